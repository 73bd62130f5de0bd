// diagnosis_cases.cu — three kernels whose verdicts a GPU-wide reading gets wrong, for
// kernelscope's diagnosis samples (issue 24). One kernel per run, one report per kernel.
//
// Build:   nvcc -lineinfo -O3 -arch=sm_90 -o diagnosis_cases diagnosis_cases.cu
// Run:     ./diagnosis_cases pipe|membar|sgemm
//
// fma_pipe_half_grid   (pipe)   one block of 1,024 threads on half of the SMs; 8 independent
//                               FP32 FMA chains per thread keep the FMA pipe of every SM that
//                               has a block saturated, while the GPU-wide averages read ~50 %.
//                               The grid is the problem, not occupancy.
// fence_after_store    (membar) every thread stores and then __threadfence()s, 256 times: the
//                               warps spend most of their cycles in memory-barrier stalls.
// sgemm_fp32_regtile   (sgemm)  FP32 SGEMM (2,048^3) with 128 x 128 block tiles and 8 x 8
//                               outputs per thread, FFMA only: no tensor core on a GPU that
//                               has them (TF32 or BF16 tensor cores would be the remedy).
// Inputs are set on the device with cudaMemset (zeros are fine for the counters), so the
// reports hold only these kernels.
#include <cuda_runtime.h>

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

// -- (a) a pipe saturated on the SMs that run, half of the SMs idle ----------------------
__global__ void __launch_bounds__(1024) fma_pipe_half_grid(float* out, int iters, float k) {
  float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
  float a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
  for (int i = 0; i < iters; ++i) {
    a0 = fmaf(a0, k, 0.5f); a1 = fmaf(a1, k, 0.5f); a2 = fmaf(a2, k, 0.5f);
    a3 = fmaf(a3, k, 0.5f); a4 = fmaf(a4, k, 0.5f); a5 = fmaf(a5, k, 0.5f);
    a6 = fmaf(a6, k, 0.5f); a7 = fmaf(a7, k, 0.5f);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

// -- (b) memory fences after every store ---------------------------------------------------
__global__ void fence_after_store(float* data, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = data[i];
  for (int r = 0; r < rounds; ++r) {
    v = v * 0.999f + 1.0f;
    data[i] = v;
    __threadfence();  // MEMBAR: the store must be visible GPU-wide before the warp goes on
  }
}

// -- (c) FP32 SGEMM on the FMA pipe ----------------------------------------------------------
constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;

__global__ void __launch_bounds__(256) sgemm_fp32_regtile(const float* __restrict__ A,
                                                          const float* __restrict__ B,
                                                          float* __restrict__ C, int N) {
  __shared__ float As[BK][BM];  // A tile stored transposed: As[k][m]
  __shared__ float Bs[BK][BN];
  const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float acc[TM][TN] = {};
  float ra[TM], rb[TN];
  for (int k0 = 0; k0 < N; k0 += BK) {
    // 256 threads load 128 x 8 of A and 8 x 128 of B: four floats each
    for (int l = threadIdx.x; l < BM * BK; l += blockDim.x) {
      int m = l / BK, k = l % BK;
      As[k][m] = A[(row0 + m) * N + k0 + k];
      int kb = l / BN, n = l % BN;
      Bs[kb][n] = B[(k0 + kb) * N + col0 + n];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; ++i) ra[i] = As[k][ty * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) rb[j] = Bs[k][tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) C[(row0 + ty * TM + i) * N + col0 + tx * TN + j] = acc[i][j];
}

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "";
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  if (!strcmp(which, "pipe")) {
    float* out;
    int blocks = sms / 2;
    CK(cudaMalloc(&out, blocks * 1024 * sizeof(float)));
    fma_pipe_half_grid<<<blocks, 1024>>>(out, 1 << 14, 0.999f);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaFree(out));
  } else if (!strcmp(which, "membar")) {
    const int threads = 256, blocks = sms * 8;
    float* data;
    CK(cudaMalloc(&data, blocks * threads * sizeof(float)));
    CK(cudaMemset(data, 0, blocks * threads * sizeof(float)));
    fence_after_store<<<blocks, threads>>>(data, 256);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaFree(data));
  } else if (!strcmp(which, "sgemm")) {
    const int N = argc > 2 ? atoi(argv[2]) : 2048;
    size_t bytes = (size_t)N * N * sizeof(float);
    float *A, *B, *C;
    CK(cudaMalloc(&A, bytes));
    CK(cudaMalloc(&B, bytes));
    CK(cudaMalloc(&C, bytes));
    CK(cudaMemset(A, 0, bytes));
    CK(cudaMemset(B, 0, bytes));
    sgemm_fp32_regtile<<<dim3(N / BN, N / BM), 256>>>(A, B, C, N);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
  } else {
    fprintf(stderr, "usage: diagnosis_cases pipe|membar|sgemm\n");
    return 2;
  }
  printf("%s done on %d SMs\n", which, sms);
  return 0;
}
