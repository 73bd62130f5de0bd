// gemm_ladder.cu — the seeds' GEMM tuning ladder, one kernel per step, for
// kernelscope's before/after diffs (one report per step) and for its diagnosis
// samples (all of them in one report, default and full section sets).
//
// Build:   nvcc -lineinfo -O3 -arch=sm_90 -o gemm_ladder gemm_ladder.cu
// Run:     ./gemm_ladder naive|tiled|regtile|wmma [N]   one step (N=2048 default)
//          ./gemm_ladder sets [N]                       regtile, wmma, dgemm_tiled and
//                                                       fp64_dfma_chain in one run
//
// Kernels (C = A * B, N x N, row-major):
//   gemm_naive       one thread per C element, every operand from global memory
//   gemm_tiled       32 x 32 shared-memory tiles (coalesced loads, reuse in SMEM)
//   gemm_regtile     64 x 64 block tile, 8-deep K slices, 4 x 4 outputs per thread
//   gemm_wmma        FP16 inputs, FP32 accumulate on tensor cores (WMMA 16x16x16),
//                    shared-memory staged 64 x 64 block tile
//   dgemm_tiled      FP64 version of gemm_tiled (FP64 pipe)
//   fp64_dfma_chain  independent FP64 FMA chains, no memory traffic (FP64-pipe bound)
// Inputs are filled on the host and copied, so only these kernels run on the GPU.
// A few C elements are checked against a double-precision host product.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cmath>
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

__global__ void gemm_naive(const float* A, const float* B, float* C, int N) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < N && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k) sum += A[row * N + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}

#define TILE 32
__global__ void gemm_tiled(const float* A, const float* B, float* C, int N) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0.0f;
  for (int t = 0; t < N; t += TILE) {
    As[threadIdx.y][threadIdx.x] = A[row * N + t + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * N + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) sum += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[row * N + col] = sum;
}

// 64 x 64 tile per block of 256 threads (16 x 16); each thread owns 4 x 4 outputs.
#define RT_BM 64
#define RT_BK 8
__global__ void __launch_bounds__(256) gemm_regtile(const float* A, const float* B, float* C,
                                                    int N) {
  __shared__ float As[RT_BK][RT_BM];  // A slice stored transposed: As[k][m]
  __shared__ float Bs[RT_BK][RT_BM];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * RT_BM, col0 = blockIdx.x * RT_BM;
  float acc[4][4] = {};
  for (int t = 0; t < N; t += RT_BK) {
    // 64 x 8 A elements and 8 x 64 B elements: two of each per thread.
    for (int i = threadIdx.x; i < RT_BM * RT_BK; i += 256) {
      int m = i / RT_BK, k = i % RT_BK;
      As[k][m] = A[(row0 + m) * N + t + k];
      int kb = i / RT_BM, n = i % RT_BM;
      Bs[kb][n] = B[(t + kb) * N + col0 + n];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < RT_BK; ++k) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = As[k][ty * 4 + i];
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = Bs[k][tx * 4 + j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) C[(row0 + ty * 4 + i) * N + col0 + tx * 4 + j] = acc[i][j];
}

// Tensor cores: a 64 x 64 block tile, 8 warps, each warp 2 (of 4 x 4) 16 x 16 tiles;
// A and B slices of 64 x 32 / 32 x 64 halves staged through shared memory.
#define WM_BM 64
#define WM_BK 32
__global__ void __launch_bounds__(256) gemm_wmma(const half* A, const half* B, float* C, int N) {
  using namespace nvcuda;
  __shared__ __align__(32) half As[WM_BM][WM_BK + 8];
  __shared__ __align__(32) half Bs[WM_BK][WM_BM + 8];
  const int warp = threadIdx.x / 32;
  const int wr = warp / 2;        // 0..3: tile row
  const int wc = (warp % 2) * 2;  // 0 or 2: first of two tile columns
  const int row0 = blockIdx.y * WM_BM, col0 = blockIdx.x * WM_BM;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2];
  wmma::fill_fragment(acc[0], 0.0f);
  wmma::fill_fragment(acc[1], 0.0f);
  for (int t = 0; t < N; t += WM_BK) {
    for (int i = threadIdx.x; i < WM_BM * WM_BK; i += 256) {
      int m = i / WM_BK, k = i % WM_BK;
      As[m][k] = A[(row0 + m) * N + t + k];
      int kb = i / WM_BM, n = i % WM_BM;
      Bs[kb][n] = B[(t + kb) * N + col0 + n];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < WM_BK; k += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
      wmma::load_matrix_sync(fa, &As[wr * 16][k], WM_BK + 8);
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
        wmma::load_matrix_sync(fb, &Bs[k][(wc + j) * 16], WM_BM + 8);
        wmma::mma_sync(acc[j], fa, fb, acc[j]);
      }
    }
    __syncthreads();
  }
  for (int j = 0; j < 2; ++j)
    wmma::store_matrix_sync(&C[(row0 + wr * 16) * N + col0 + (wc + j) * 16], acc[j], N,
                            wmma::mem_row_major);
}

__global__ void dgemm_tiled(const double* A, const double* B, double* C, int N) {
  __shared__ double As[TILE][TILE];
  __shared__ double Bs[TILE][TILE + 1];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  double sum = 0.0;
  for (int t = 0; t < N; t += TILE) {
    As[threadIdx.y][threadIdx.x] = A[row * N + t + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * N + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) sum = fma(As[threadIdx.y][k], Bs[k][threadIdx.x], sum);
    __syncthreads();
  }
  C[row * N + col] = sum;
}

__global__ void fp64_dfma_chain(double* out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double a = 1.0 + i * 1e-9, b = 0.5 + i * 1e-9, c = 0.25, d = 0.125;
  for (int k = 0; k < iters; ++k) {
    a = fma(a, 0.999999, 1e-7);
    b = fma(b, 0.999998, 2e-7);
    c = fma(c, 0.999997, 3e-7);
    d = fma(d, 0.999996, 4e-7);
  }
  out[i] = a + b + c + d;
}

static void fill(std::vector<float>& v, unsigned seed) {
  for (size_t i = 0; i < v.size(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = ((seed >> 9) & 0xffff) / 65536.0f - 0.5f;
  }
}

// max |C - A*B| over a few elements, from a double-precision host product
template <typename T>
static double check(const std::vector<float>& A, const std::vector<float>& B,
                    const std::vector<T>& C, int N) {
  double worst = 0.0;
  for (int s = 0; s < 16; ++s) {
    int r = (s * 977) % N, c = (s * 613 + 5) % N;
    double ref = 0.0;
    for (int k = 0; k < N; ++k) ref += (double)A[r * N + k] * B[k * N + c];
    worst = fmax(worst, fabs(ref - (double)C[r * N + c]));
  }
  return worst;
}

static void run_f32(const char* which, int N, const std::vector<float>& hA,
                    const std::vector<float>& hB) {
  size_t bytes = (size_t)N * N * sizeof(float);
  float *A, *B, *C;
  CK(cudaMalloc(&A, bytes));
  CK(cudaMalloc(&B, bytes));
  CK(cudaMalloc(&C, bytes));
  CK(cudaMemcpy(A, hA.data(), bytes, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(B, hB.data(), bytes, cudaMemcpyHostToDevice));
  if (!strcmp(which, "naive")) {
    gemm_naive<<<dim3(N / 16, N / 16), dim3(16, 16)>>>(A, B, C, N);
  } else if (!strcmp(which, "tiled")) {
    gemm_tiled<<<dim3(N / TILE, N / TILE), dim3(TILE, TILE)>>>(A, B, C, N);
  } else {
    gemm_regtile<<<dim3(N / RT_BM, N / RT_BM), 256>>>(A, B, C, N);
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<float> hC((size_t)N * N);
  CK(cudaMemcpy(hC.data(), C, bytes, cudaMemcpyDeviceToHost));
  printf("%s N=%d max abs error %.3g\n", which, N, check(hA, hB, hC, N));
  CK(cudaFree(A));
  CK(cudaFree(B));
  CK(cudaFree(C));
}

static void run_wmma(int N, const std::vector<float>& hA, const std::vector<float>& hB) {
  size_t n = (size_t)N * N;
  std::vector<half> a16(n), b16(n);
  std::vector<float> ar(n), br(n);  // the rounded inputs, for the check
  for (size_t i = 0; i < n; ++i) {
    a16[i] = __float2half(hA[i]);
    b16[i] = __float2half(hB[i]);
    ar[i] = __half2float(a16[i]);
    br[i] = __half2float(b16[i]);
  }
  half *A, *B;
  float* C;
  CK(cudaMalloc(&A, n * sizeof(half)));
  CK(cudaMalloc(&B, n * sizeof(half)));
  CK(cudaMalloc(&C, n * sizeof(float)));
  CK(cudaMemcpy(A, a16.data(), n * sizeof(half), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(B, b16.data(), n * sizeof(half), cudaMemcpyHostToDevice));
  gemm_wmma<<<dim3(N / WM_BM, N / WM_BM), 256>>>(A, B, C, N);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<float> hC(n);
  CK(cudaMemcpy(hC.data(), C, n * sizeof(float), cudaMemcpyDeviceToHost));
  printf("wmma N=%d max abs error %.3g\n", N, check(ar, br, hC, N));
  CK(cudaFree(A));
  CK(cudaFree(B));
  CK(cudaFree(C));
}

static void run_fp64(int N, const std::vector<float>& hA, const std::vector<float>& hB) {
  size_t n = (size_t)N * N;
  std::vector<double> a(hA.begin(), hA.end()), b(hB.begin(), hB.end());
  double *A, *B, *C;
  CK(cudaMalloc(&A, n * sizeof(double)));
  CK(cudaMalloc(&B, n * sizeof(double)));
  CK(cudaMalloc(&C, n * sizeof(double)));
  CK(cudaMemcpy(A, a.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(B, b.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  dgemm_tiled<<<dim3(N / TILE, N / TILE), dim3(TILE, TILE)>>>(A, B, C, N);
  CK(cudaGetLastError());
  std::vector<double> hC(n);
  CK(cudaMemcpy(hC.data(), C, n * sizeof(double), cudaMemcpyDeviceToHost));
  printf("dgemm N=%d max abs error %.3g\n", N, check(hA, hB, hC, N));
  const int threads = 132 * 2048;
  fp64_dfma_chain<<<threads / 256, 256>>>(C, 4096);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaFree(A));
  CK(cudaFree(B));
  CK(cudaFree(C));
}

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "sets";
  int N = argc > 2 ? atoi(argv[2]) : 2048;
  if (N % 64) {
    fprintf(stderr, "N must be a multiple of 64\n");
    return 2;
  }
  std::vector<float> hA((size_t)N * N), hB((size_t)N * N);
  fill(hA, 1);
  fill(hB, 2);
  if (!strcmp(which, "naive") || !strcmp(which, "tiled") || !strcmp(which, "regtile")) {
    run_f32(which, N, hA, hB);
  } else if (!strcmp(which, "wmma")) {
    run_wmma(N, hA, hB);
  } else if (!strcmp(which, "sets")) {
    run_f32("regtile", N, hA, hB);
    run_wmma(N, hA, hB);
    run_fp64(N, hA, hB);
  } else {
    fprintf(stderr, "usage: gemm_ladder naive|tiled|regtile|wmma|sets [N]\n");
    return 2;
  }
  return 0;
}
