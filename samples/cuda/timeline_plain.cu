// timeline_plain.cu — a plain CUDA program (no NVTX) for an Nsight Systems timeline:
// synchronous pageable cudaMemcpy both ways, a cudaMemset, kernels of three names,
// explicit cudaDeviceSynchronize calls and a 50 ms usleep gap with the GPU idle.
//
// Build:   nvcc -lineinfo -O3 -arch=sm_90 -o timeline_plain timeline_plain.cu
// Profile: nsys profile --trace=cuda,nvtx,osrt -o timeline_plain -f true ./timeline_plain
//
// Sequence: cudaMalloc x3; pageable H2D cudaMemcpy 64 MB (x2); cudaMemset 64 MB;
// 20 x plain_scale; 5 x plain_stencil3; cudaDeviceSynchronize; usleep(50 ms);
// 10 x plain_saxpy; cudaDeviceSynchronize; pageable D2H cudaMemcpy 64 MB.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
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

__global__ void plain_scale(float* a, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= s;
}

__global__ void plain_stencil3(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}

__global__ void plain_saxpy(float a, const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  const int N = 16 << 20;  // 16 Mi floats = 64 MB
  const size_t bytes = N * sizeof(float);
  float* h = (float*)malloc(bytes);  // pageable host memory
  for (int i = 0; i < N; ++i) h[i] = (float)(i % 1000) * 1e-3f;
  float *a, *b, *c;
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&b, bytes));
  CK(cudaMalloc(&c, bytes));
  CK(cudaMemcpy(a, h, bytes, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(b, h, bytes, cudaMemcpyHostToDevice));
  CK(cudaMemset(c, 0, bytes));
  const int B = 256, G = (N + B - 1) / B;
  for (int k = 0; k < 20; ++k) plain_scale<<<G, B>>>(a, 1.0001f, N);
  for (int k = 0; k < 5; ++k) plain_stencil3<<<G, B>>>(a, c, N);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  usleep(50 * 1000);  // CPU busy elsewhere, GPU idle for 50 ms
  for (int k = 0; k < 10; ++k) plain_saxpy<<<G, B>>>(0.5f, b, c, N);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h, c, bytes, cudaMemcpyDeviceToHost));
  printf("timeline_plain: h[1]=%g\n", h[1]);
  CK(cudaFree(a)); CK(cudaFree(b)); CK(cudaFree(c));
  free(h);
  return 0;
}
