// transpose_pad.cu — a shared-memory matrix transpose before and after padding its
// tile, one variant a run, for kernelscope's before/after diff sample.
//
// Build:   nvcc -lineinfo -O3 -arch=sm_90 -o transpose_pad transpose_pad.cu
// Run:     ./transpose_pad conflicts|padded [N]      (N = 8192 by default)
//
// transpose_smem<0>: a 32 x 32 float tile read back by columns, so the 32 lanes of a
//                    warp hit one shared-memory bank (32-way bank conflicts);
// transpose_smem<1>: the same with a 32 x 33 tile, the column read spread over all
//                    banks. Blocks are 32 x 8 threads, each thread moves 4 elements.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,                 \
              cudaGetErrorString(e_));                                          \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

template <int PAD>
__global__ void transpose_smem(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[32][32 + PAD];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "conflicts";
  int n = argc > 2 ? atoi(argv[2]) : 8192;
  bool padded = !strcmp(which, "padded");
  if ((!padded && strcmp(which, "conflicts")) || n % 32) {
    fprintf(stderr, "usage: transpose_pad conflicts|padded [N, a multiple of 32]\n");
    return 2;
  }
  size_t count = (size_t)n * n;
  std::vector<float> h(count);
  for (size_t i = 0; i < count; ++i) h[i] = (float)(i % 1000003);
  float *in, *out;
  CK(cudaMalloc(&in, count * sizeof(float)));
  CK(cudaMalloc(&out, count * sizeof(float)));
  CK(cudaMemcpy(in, h.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  dim3 grid(n / 32, n / 32), block(32, 8);
  if (padded)
    transpose_smem<1><<<grid, block>>>(in, out, n);
  else
    transpose_smem<0><<<grid, block>>>(in, out, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<float> t(count);
  CK(cudaMemcpy(t.data(), out, count * sizeof(float), cudaMemcpyDeviceToHost));
  size_t bad = 0;
  for (int s = 0; s < 4096; ++s) {
    size_t r = (size_t)(s * 7919) % n, c = (size_t)(s * 104729) % n;
    bad += t[c * n + r] != h[r * n + c];
  }
  printf("transpose %s n=%d: %zu of 4096 samples wrong\n", which, n, bad);
  return bad ? 1 : 0;
}
