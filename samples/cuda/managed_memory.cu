// managed_memory.cu — a unified-memory program: the CPU and the GPU take turns on the same
// cudaMallocManaged arrays, so every GPU pass starts with its pages on the host and the
// kernels fault them over (the time a replayed kernel in Nsight Compute never sees).
//
// Build:   nvcc -lineinfo -O3 -arch=sm_90 -o managed_memory managed_memory.cu
// Profile: nsys profile --trace=cuda,nvtx,osrt --cuda-um-cpu-page-faults=true
//              --cuda-um-gpu-page-faults=true -o managed -f true ./managed_memory
//          ncu --clock-control none --set full --import-source yes -f -o managed ./managed_memory
// Run:     ./managed_memory [N] [PASSES]   (N = 32 Mi floats = 128 MB, PASSES = 4 by default)
//
// Each pass (NVTX range "pass N"): the CPU rewrites every element of `in` (its pages move to
// the host), then cub::DeviceReduce::Sum over `in` and cub::DeviceScan::InclusiveSum from `in`
// into `out` (both managed; the GPU faults the pages back), cudaDeviceSynchronize, and the CPU
// reads a few elements of `out`. No cudaMemPrefetchAsync and no cudaMemAdvise: that is the
// remedy this sample exists to be told.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (size_t(32) << 20);
  const int passes = argc > 2 ? std::atoi(argv[2]) : 4;
  float *in = nullptr, *out = nullptr, *sum = nullptr;
  CK(cudaMallocManaged(&in, n * sizeof(float)));
  CK(cudaMallocManaged(&out, n * sizeof(float)));
  CK(cudaMallocManaged(&sum, sizeof(float)));
  size_t reduce_bytes = 0, scan_bytes = 0;
  CK(cub::DeviceReduce::Sum(nullptr, reduce_bytes, in, sum, n));
  CK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, in, out, n));
  void* scratch = nullptr;
  CK(cudaMalloc(&scratch, reduce_bytes > scan_bytes ? reduce_bytes : scan_bytes));
  double check = 0;
  for (int p = 0; p < passes; ++p) {
    nvtxRangePushA(("pass " + std::to_string(p)).c_str());
    for (size_t i = 0; i < n; ++i) in[i] = float((i + p) % 7) * 0.25f;
    size_t bytes = reduce_bytes;
    CK(cub::DeviceReduce::Sum(scratch, bytes, in, sum, n));
    bytes = scan_bytes;
    CK(cub::DeviceScan::InclusiveSum(scratch, bytes, in, out, n));
    CK(cudaDeviceSynchronize());
    check += *sum + out[n - 1] + out[n / 2];
    nvtxRangePop();
  }
  std::printf("managed_memory: n=%zu passes=%d check=%.1f\n", n, passes, check);
  CK(cudaFree(scratch));
  CK(cudaFree(in));
  CK(cudaFree(out));
  CK(cudaFree(sum));
  return 0;
}
