// histogram_atomics.cu — a histogram whose time goes to contended atomics, and the
// same histogram privatised in shared memory, for kernelscope's diagnosis samples.
//
// Build:   nvcc -lineinfo -O3 -arch=sm_90 -o histogram_atomics histogram_atomics.cu
// Run:     ./histogram_atomics [N]          (N = 16 Mi keys by default)
//
// histogram_global_atomics_4bins: every thread atomicAdd()s its key's bin directly in
//        global memory; with only 4 bins, all 132 SMs serialise on 4 addresses in L2.
// histogram_shared_privatized:    per-block bins in shared memory, one global atomicAdd
//        per bin and block at the end (the usual remedy).
// Keys are made on the host (a multiplicative hash) so only these kernels run.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
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

#define BINS 4

__global__ void histogram_global_atomics_4bins(const unsigned* __restrict__ keys,
                                               unsigned* bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[keys[i] % BINS], 1u);
}

__global__ void histogram_shared_privatized(const unsigned* __restrict__ keys, unsigned* bins,
                                            int n) {
  __shared__ unsigned local[BINS];
  if (threadIdx.x < BINS) local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[keys[i] % BINS], 1u);
  __syncthreads();
  if (threadIdx.x < BINS) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : (16 << 20);
  std::vector<unsigned> h(n);
  std::vector<unsigned> expect(BINS, 0);
  for (int i = 0; i < n; ++i) {
    h[i] = (unsigned)i * 2654435761u >> 7;
    expect[h[i] % BINS]++;
  }
  unsigned *keys, *bins;
  CK(cudaMalloc(&keys, n * sizeof(unsigned)));
  CK(cudaMalloc(&bins, 2 * BINS * sizeof(unsigned)));
  CK(cudaMemcpy(keys, h.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  CK(cudaMemset(bins, 0, 2 * BINS * sizeof(unsigned)));
  const int blocks = 132 * 8, threads = 256;
  histogram_global_atomics_4bins<<<blocks, threads>>>(keys, bins, n);
  histogram_shared_privatized<<<blocks, threads>>>(keys, bins + BINS, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  unsigned got[2 * BINS];
  CK(cudaMemcpy(got, bins, sizeof(got), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int b = 0; b < BINS; ++b) bad += (got[b] != expect[b]) + (got[BINS + b] != expect[b]);
  printf("histogram n=%d bins %u %u %u %u: %s\n", n, got[0], got[1], got[2], got[3],
         bad ? "WRONG" : "ok");
  return bad ? 1 : 0;
}
