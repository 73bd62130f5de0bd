// kernels_zoo.cu — one program, one launch per kernel, each kernel built to show
// one performance behaviour in Nsight Compute.  Sample program for kernelscope.
//
// Build:   nvcc -lineinfo -O3 -arch=sm_90 -o kernels_zoo kernels_zoo.cu
// Profile: ncu --clock-control none --set full --import-source yes -f -o zoo ./kernels_zoo
//
// Buffers are filled with cudaMemset (no init kernels), so the report holds
// exactly the 12 kernels below, in this order:
//   dram_stream_saxpy_f4          float4 saxpy over 3 x 256 MB: DRAM-bandwidth bound
//   uncoalesced_strided_gather    each lane reads a different 128-byte line: uncoalesced loads
//   smem_transpose_bank_conflicts 32x32 shared tile, column read: 32-way bank conflicts
//   smem_transpose_padded         same with a 32x33 tile: no bank conflicts
//   register_spill_local_array    __launch_bounds__ caps registers at 32: spills plus a
//                                 dynamically indexed local array (local-memory traffic)
//   small_grid_8_blocks           8 blocks x 128 threads streaming 32 MB: most SMs idle
//   warp_divergence_odd_even      even / odd lanes take different heavy paths
//   fp32_fma_compute_bound        8 independent FP32 FMA chains per thread, no memory
//   fp64_dfma_compute_bound       4 independent FP64 FMA chains per thread, no memory
//   atomic_contention_8_addresses every thread atomicAdds to one of 8 counters
//   reduce_syncthreads_per_step   interleaved shared-memory tree reduction, a
//                                 __syncthreads() per step (plus modulo divergence)
//   tiny_kernel_1_warp            one warp, a few microseconds at most
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

// ---------------------------------------------------------------- memory bound
__global__ void dram_stream_saxpy_f4(float a, const float4* __restrict__ x,
                                     float4* __restrict__ y, size_t n4) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (; i < n4; i += stride) {
    float4 xv = x[i];
    float4 yv = y[i];
    yv.x = a * xv.x + yv.x;
    yv.y = a * xv.y + yv.y;
    yv.z = a * xv.z + yv.z;
    yv.w = a * xv.w + yv.w;
    y[i] = yv;
  }
}

// lane k of a warp reads in[(i * 33) mod n]: 32 different cache lines per warp
__global__ void uncoalesced_strided_gather(const float* __restrict__ in,
                                           float* __restrict__ out, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[(i * 33) % n] * 2.0f;
}

// ----------------------------------------------------------- shared memory
#define TILE 32
#define ROWS 8
__global__ void smem_transpose_bank_conflicts(const float* __restrict__ in,
                                              float* __restrict__ out, int w,
                                              int h) {
  __shared__ float tile[TILE][TILE];  // no padding: column access -> 32-way conflict
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * w + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    out[(size_t)(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void smem_transpose_padded(const float* __restrict__ in,
                                      float* __restrict__ out, int w, int h) {
  __shared__ float tile[TILE][TILE + 1];  // padded: conflict free
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * w + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    out[(size_t)(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

// ------------------------------------------------------------------ registers
// 256 threads x 8 blocks/SM -> at most 32 registers per thread.  40 live
// accumulators do not fit: ptxas spills (see -Xptxas -v); buf[] is indexed with
// a run-time index, so it lives in local memory as well.
#define NACC 40
__global__ void __launch_bounds__(256, 8)
    register_spill_local_array(const float* __restrict__ in,
                               float* __restrict__ out, int n, int iters) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  float buf[64];
  float acc[NACC];
  float v = in[tid];
#pragma unroll
  for (int k = 0; k < NACC; ++k) acc[k] = v * (k + 1);
#pragma unroll 4
  for (int k = 0; k < 64; ++k) buf[k] = v + k;
  int idx = tid & 63;
  for (int it = 0; it < iters; ++it) {
    float b = buf[idx];
#pragma unroll
    for (int k = 0; k < NACC; ++k) acc[k] = fmaf(acc[k], b, acc[(k + 7) % NACC]);
    buf[(idx * 5 + it) & 63] = acc[it % 3];
    idx = (idx * 13 + 7) & 63;
  }
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < NACC; ++k) s += acc[k];
  out[tid] = s + buf[idx];
}

// --------------------------------------------------------- launch config
// launched as <<<8, 128>>>: 8 of the H200's 132 SMs get one block each
__global__ void small_grid_8_blocks(const float* __restrict__ in,
                                    float* __restrict__ out, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  float s = 0.f;
  for (; i < n; i += stride) s = fmaf(s, 0.999f, in[i]);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// --------------------------------------------------------------- divergence
__global__ void warp_divergence_odd_even(const float* __restrict__ in,
                                         float* __restrict__ out, int n,
                                         int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  if (threadIdx.x % 2 == 0) {
    for (int k = 0; k < iters; ++k) v = __sinf(v) * 1.0001f + __cosf(v * 0.5f);
  } else {
    for (int k = 0; k < iters; ++k) v = sqrtf(fabsf(v) + 1.0f) * 0.999f + rsqrtf(v * v + 2.0f);
  }
  out[i] = v;
}

// ----------------------------------------------------------------- compute
__global__ void fp32_fma_compute_bound(float* __restrict__ out, float seed,
                                       int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a0 = seed + i, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
  float a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
  const float m = 0.9999f, c = 0.0001f;
  for (int k = 0; k < iters; ++k) {
    a0 = fmaf(a0, m, c); a1 = fmaf(a1, m, c); a2 = fmaf(a2, m, c); a3 = fmaf(a3, m, c);
    a4 = fmaf(a4, m, c); a5 = fmaf(a5, m, c); a6 = fmaf(a6, m, c); a7 = fmaf(a7, m, c);
  }
  out[i] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

__global__ void fp64_dfma_compute_bound(double* __restrict__ out, double seed,
                                        int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double a0 = seed + i, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
  const double m = 0.99999, c = 0.00001;
  for (int k = 0; k < iters; ++k) {
    a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);
  }
  out[i] = a0 + a1 + a2 + a3;
}

// ----------------------------------------------------------------- atomics
__global__ void atomic_contention_8_addresses(const float* __restrict__ in,
                                              float* counters, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&counters[threadIdx.x & 7], in[i]);
}

// --------------------------------------------------------------- reduction
__global__ void reduce_syncthreads_per_step(const float* __restrict__ in,
                                            float* result, int n) {
  __shared__ float s[256];
  unsigned tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (unsigned st = 1; st < blockDim.x; st *= 2) {
    if (tid % (2 * st) == 0) s[tid] += s[tid + st];
    __syncthreads();
  }
  if (tid == 0) atomicAdd(result, s[0]);
}

// -------------------------------------------------------------------- tiny
__global__ void tiny_kernel_1_warp(float* out) {
  out[threadIdx.x] = threadIdx.x * 0.5f;
}

int main() {
  const size_t N = 64ull << 20;  // 64 Mi floats = 256 MB per buffer
  float *x, *y, *z;
  double* d;
  float* ctr;
  CK(cudaFree(0));  // warm-up: create the context before any launch
  CK(cudaMalloc(&x, N * sizeof(float)));
  CK(cudaMalloc(&y, N * sizeof(float)));
  CK(cudaMalloc(&z, N * sizeof(float)));
  CK(cudaMalloc(&d, (1 << 20) * sizeof(double)));
  CK(cudaMalloc(&ctr, 64 * sizeof(float)));
  // 0x3c bytes -> every float is 0.0115; no init kernels, so ncu sees only the zoo
  CK(cudaMemset(x, 0x3c, N * sizeof(float)));
  CK(cudaMemset(y, 0x3c, N * sizeof(float)));
  CK(cudaMemset(z, 0, N * sizeof(float)));
  CK(cudaMemset(ctr, 0, 64 * sizeof(float)));
  CK(cudaDeviceSynchronize());

  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

  dram_stream_saxpy_f4<<<sms * 8, 256>>>(2.0f, (const float4*)x, (float4*)y, N / 4);
  CK(cudaGetLastError());

  const size_t G = 16ull << 20;
  uncoalesced_strided_gather<<<(G + 255) / 256, 256>>>(x, z, G);
  CK(cudaGetLastError());

  const int W = 8192, H = 8192;  // 256 MB in, 256 MB out
  dim3 tb(TILE, ROWS), tg(W / TILE, H / TILE);
  smem_transpose_bank_conflicts<<<tg, tb>>>(x, z, W, H);
  CK(cudaGetLastError());
  smem_transpose_padded<<<tg, tb>>>(x, z, W, H);
  CK(cudaGetLastError());

  const int NS = 1 << 18;  // ~ one wave: 132 SMs x 2048 threads
  register_spill_local_array<<<NS / 256, 256>>>(x, z, NS, 32);
  CK(cudaGetLastError());

  small_grid_8_blocks<<<8, 128>>>(x, z, 8ull << 20);
  CK(cudaGetLastError());

  const int ND = 4 << 20;
  warp_divergence_odd_even<<<ND / 256, 256>>>(x, z, ND, 64);
  CK(cudaGetLastError());

  fp32_fma_compute_bound<<<sms * 8, 256>>>(z, 1.0f, 8192);
  CK(cudaGetLastError());
  fp64_dfma_compute_bound<<<sms * 8, 256>>>(d, 1.0, 2048);
  CK(cudaGetLastError());

  const int NA = 4 << 20;
  atomic_contention_8_addresses<<<NA / 256, 256>>>(x, ctr, NA);
  CK(cudaGetLastError());

  const int NR = 16 << 20;
  reduce_syncthreads_per_step<<<NR / 256, 256>>>(x, ctr + 16, NR);
  CK(cudaGetLastError());

  tiny_kernel_1_warp<<<1, 32>>>(ctr + 32);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  float h[64];
  CK(cudaMemcpy(h, ctr, sizeof(h), cudaMemcpyDeviceToHost));
  printf("kernels_zoo: 12 kernels done; counters[0]=%g reduce=%g tiny=%g\n", h[0],
         h[16], h[33]);
  CK(cudaFree(x)); CK(cudaFree(y)); CK(cudaFree(z)); CK(cudaFree(d)); CK(cudaFree(ctr));
  return 0;
}
