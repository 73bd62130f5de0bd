// small_family.cu — one kernel family of many identical small launches and a one-off
// kernel, the shape of a real PyTorch report, for kernelscope's family samples.
//
// Build:   nvcc -lineinfo -O3 -arch=sm_90 -o small_family small_family.cu
// Run:     ./small_family [launches]        (150 by default)
//
// rng_uniform_fill      once: 4 Mi floats of a counter-based hash RNG (longest launch)
// vec_mul_64blocks      `launches` times: c = a * b over 16 Ki floats, 64 blocks x 256
//                       threads on a 132-SM GPU (a grid too small to fill it, ~2-3 us)
// The family's summed time is far larger than the one-off kernel's.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,                 \
              cudaGetErrorString(e_));                                          \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

__global__ void rng_uniform_fill(float* out, int n, unsigned seed) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned x = (unsigned)i * 0x9E3779B9u ^ seed;
    for (int r = 0; r < 8; ++r) {
      x ^= x >> 16;
      x *= 0x7feb352du;
      x ^= x >> 15;
      x *= 0x846ca68bu;
    }
    out[i] = (x >> 8) * (1.0f / 16777216.0f);
  }
}

__global__ void vec_mul_64blocks(const float* __restrict__ a, const float* __restrict__ b,
                                 float* __restrict__ c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] * b[i];
}

int main(int argc, char** argv) {
  int launches = argc > 1 ? atoi(argv[1]) : 150;
  const int NR = 4 << 20, NM = 64 * 256;
  float *r, *c;
  CK(cudaMalloc(&r, NR * sizeof(float)));
  CK(cudaMalloc(&c, NM * sizeof(float)));
  rng_uniform_fill<<<132 * 4, 256>>>(r, NR, 1234u);
  for (int k = 0; k < launches; ++k) vec_mul_64blocks<<<NM / 256, 256>>>(r, r + NM, c, NM);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  printf("small_family: 1 + %d launches\n", launches);
  return 0;
}
