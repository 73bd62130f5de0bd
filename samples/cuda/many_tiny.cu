// many_tiny.cu — 40,000 tiny kernel launches (two names, 20,000 each, interleaved)
// for kernelscope's Nsight Systems benchmark trace.
//
// Build:   nvcc -lineinfo -O3 -arch=sm_90 -o many_tiny many_tiny.cu
// Profile: nsys profile --trace=cuda -o many_tiny -f true ./many_tiny [launches]
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

__global__ void tiny_inc(float* a) { a[threadIdx.x] += 1.0f; }
__global__ void tiny_axpb(float* a, float m, float c) {
  a[blockIdx.x * blockDim.x + threadIdx.x] = a[blockIdx.x * blockDim.x + threadIdx.x] * m + c;
}

int main(int argc, char** argv) {
  int launches = argc > 1 ? atoi(argv[1]) : 40000;
  float* a;
  CK(cudaMalloc(&a, 1024 * sizeof(float)));
  CK(cudaMemset(a, 0, 1024 * sizeof(float)));
  for (int i = 0; i < launches; i += 2) {
    tiny_inc<<<1, 32>>>(a);
    tiny_axpb<<<4, 64>>>(a, 0.5f, 1.0f);
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  float h;
  CK(cudaMemcpy(&h, a, sizeof(float), cudaMemcpyDeviceToHost));
  printf("many_tiny: %d launches, a[0]=%g\n", launches, h);
  return 0;
}
