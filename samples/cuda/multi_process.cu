// multi_process.cu — one worker process of a multi-process Nsight Compute sample.
//
// Build:   nvcc -lineinfo -O3 -arch=sm_90 -o multi_process multi_process.cu
// Profile: ncu --target-processes all -f -o multi_process \
//              sh -c './multi_process 1 && ./multi_process 2'
//
// Worker W launches mp_scale (W x 1 Mi floats) twice and mp_saxpy once, so both
// processes run kernels of the same names with different sizes.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,                 \
              cudaGetErrorString(e_));                                          \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

__global__ void mp_scale(float* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}

__global__ void mp_saxpy(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv) {
  int w = argc > 1 ? atoi(argv[1]) : 1;
  int n = w << 20;
  float *x, *y;
  CK(cudaMalloc(&x, n * sizeof(float)));
  CK(cudaMalloc(&y, n * sizeof(float)));
  CK(cudaMemset(x, 0, n * sizeof(float)));
  CK(cudaMemset(y, 0, n * sizeof(float)));
  mp_scale<<<(n + 255) / 256, 256>>>(x, 1.5f, n);
  mp_scale<<<(n + 255) / 256, 256>>>(y, 0.5f, n);
  mp_saxpy<<<(n + 255) / 256, 256>>>(x, y, 2.0f, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  printf("multi_process worker %d (pid %d): 3 kernels\n", w, (int)getpid());
  return 0;
}
