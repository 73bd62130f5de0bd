// many_launches.cu — 1,000 launches (250 rounds x 4 kernels) of small kernels of
// four names and sizes, for kernelscope's benchmark report (ncu default set).
//
// Build:   nvcc -lineinfo -O3 -arch=sm_90 -o many_launches many_launches.cu
// Profile: ncu --clock-control none -f -o many_launches ./many_launches [rounds]
//
// Kernels (launched round-robin, in this order):
//   ml_scale_4k           4 Ki floats,   16 blocks x 256
//   ml_add_256k           256 Ki floats, 1024 blocks x 256
//   ml_fma_loop_64blocks  64 blocks x 128, 256 dependent FMAs per thread
//   ml_copy_2m_f4         2 Mi floats as float4, 512 blocks x 256
// Device memory is kept small (~ 20 MB) so ncu's kernel replay stays cheap.
// Under ncu's default set (10 passes a kernel) each launch costs ~0.35-0.4 s of
// profiling on an H200, so the whole report takes ~6-7 minutes to collect.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,                 \
              cudaGetErrorString(e_));                                          \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

__global__ void ml_scale_4k(float* a, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= s;
}

__global__ void ml_add_256k(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void ml_fma_loop_64blocks(float* out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i * 1e-3f;
  for (int k = 0; k < iters; ++k) v = fmaf(v, 0.999f, 0.001f);
  out[i] = v;
}

__global__ void ml_copy_2m_f4(const float4* __restrict__ in, float4* __restrict__ out,
                              int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (; i < n4; i += gridDim.x * blockDim.x) out[i] = in[i];
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 250;
  const int NS = 4096, NA = 256 << 10, NC = 2 << 20;
  float *s, *a, *b, *c, *f, *ci, *co;
  CK(cudaMalloc(&s, NS * sizeof(float)));
  CK(cudaMalloc(&a, NA * sizeof(float)));
  CK(cudaMalloc(&b, NA * sizeof(float)));
  CK(cudaMalloc(&c, NA * sizeof(float)));
  CK(cudaMalloc(&f, 64 * 128 * sizeof(float)));
  CK(cudaMalloc(&ci, NC * sizeof(float)));
  CK(cudaMalloc(&co, NC * sizeof(float)));
  CK(cudaMemset(s, 0x3c, NS * sizeof(float)));
  CK(cudaMemset(a, 0x3c, NA * sizeof(float)));
  CK(cudaMemset(b, 0x3c, NA * sizeof(float)));
  CK(cudaMemset(ci, 0x3c, NC * sizeof(float)));
  for (int r = 0; r < rounds; ++r) {
    ml_scale_4k<<<NS / 256, 256>>>(s, 1.0001f, NS);
    ml_add_256k<<<NA / 256, 256>>>(a, b, c, NA);
    ml_fma_loop_64blocks<<<64, 128>>>(f, 256);
    ml_copy_2m_f4<<<512, 256>>>((const float4*)ci, (float4*)co, NC / 4);
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  printf("many_launches: %d launches\n", rounds * 4);
  return 0;
}
