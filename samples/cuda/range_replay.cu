// range_replay.cu — two ranges of kernels for Nsight Compute's range replay.
//
// Build:   nvcc -lineinfo -O3 -arch=sm_90 -o range_replay range_replay.cu
// Profile (ranges from cudaProfilerStart/Stop):
//   ncu --replay-mode range -f -o range_replay ./range_replay
// Profile (ranges from NVTX push/pop, whole-application range replay):
//   ncu --replay-mode app-range --nvtx --nvtx-include 'phase_a/' \
//       --nvtx-include 'phase_b/' -f -o range_nvtx ./range_replay nvtx
//
// Range "phase_a": rr_fill, rr_scale, rr_reduce_partial; range "phase_b": rr_scale x2,
// rr_add. Without "nvtx" each range is bracketed by cudaProfilerStart/Stop as well.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,                 \
              cudaGetErrorString(e_));                                          \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

__global__ void rr_fill(float* x, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v + i * 1e-6f;
}

__global__ void rr_scale(float* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}

__global__ void rr_add(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] += a[i];
}

__global__ void rr_reduce_partial(const float* x, float* partial, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int k = 128; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

int main(int argc, char** argv) {
  bool nvtx_only = argc > 1 && !strcmp(argv[1], "nvtx");
  const int n = 4 << 20, blocks = n / 256;
  float *x, *y, *partial;
  CK(cudaMalloc(&x, n * sizeof(float)));
  CK(cudaMalloc(&y, n * sizeof(float)));
  CK(cudaMalloc(&partial, blocks * sizeof(float)));
  CK(cudaMemset(y, 0, n * sizeof(float)));
  CK(cudaDeviceSynchronize());

  if (!nvtx_only) CK(cudaProfilerStart());
  nvtxRangePushA("phase_a");
  rr_fill<<<blocks, 256>>>(x, 1.0f, n);
  rr_scale<<<blocks, 256>>>(x, 2.0f, n);
  rr_reduce_partial<<<blocks, 256>>>(x, partial, n);
  nvtxRangePop();
  if (!nvtx_only) CK(cudaProfilerStop());

  if (!nvtx_only) CK(cudaProfilerStart());
  nvtxRangePushA("phase_b");
  rr_scale<<<blocks, 256>>>(y, 0.5f, n);
  rr_scale<<<blocks, 256>>>(x, 0.25f, n);
  rr_add<<<blocks, 256>>>(x, y, n);
  nvtxRangePop();
  if (!nvtx_only) CK(cudaProfilerStop());

  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  printf("range_replay%s: 2 ranges, 6 kernels\n", nvtx_only ? " (nvtx)" : "");
  return 0;
}
