// thrust_lambdas.cu — a small thrust program whose kernels are templated on device lambdas,
// for kernelscope's kernel-name and diagnosis samples (issue 24). Their mangled names carry
// the enclosing function and the lambda's number (`__nv_dl_tag<..., &main, 1>` and so on).
// nvcc-flags: --extended-lambda
//
// Build:   nvcc -lineinfo -O3 -arch=sm_90 --extended-lambda -o thrust_lambdas thrust_lambdas.cu
// Run:     ./thrust_lambdas [N]     (N = 4 Mi floats by default)
//
// Steps: three thrust::transform calls (saxpy, a clamp and a logistic function), one
// thrust::transform_reduce (sum of squares), one thrust::reduce with a max lambda and one
// thrust::count_if: six algorithms, each with its own lambda.
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <cstdio>
#include <cstdlib>

static float scale_and_reduce(thrust::device_vector<float>& x, thrust::device_vector<float>& y,
                              float a) {
  thrust::transform(x.begin(), x.end(), y.begin(), y.begin(),
                    [a] __device__(float xi, float yi) -> float { return a * xi + yi; });
  thrust::transform(y.begin(), y.end(), y.begin(),
                    [] __device__(float v) -> float { return v < 0.f ? 0.f : (v > 1e6f ? 1e6f : v); });
  thrust::transform(y.begin(), y.end(), x.begin(),
                    [] __device__(float v) -> float { return 1.f / (1.f + __expf(-v * 1e-6f)); });
  return thrust::transform_reduce(
      x.begin(), x.end(), [] __device__(float v) -> float { return v * v; }, 0.f,
      [] __device__(float l, float r) -> float { return l + r; });
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : (4 << 20);
  thrust::device_vector<float> x(n), y(n);
  thrust::sequence(x.begin(), x.end(), 0.f, 0.25f);
  thrust::sequence(y.begin(), y.end(), 1.f, 0.5f);
  float squares = scale_and_reduce(x, y, 2.f);
  float biggest = thrust::reduce(y.begin(), y.end(), 0.f,
                                 [] __device__(float l, float r) -> float { return l > r ? l : r; });
  long above = thrust::count_if(x.begin(), x.end(), [] __device__(float v) -> bool { return v > 0.75f; });
  printf("sum of squares %.3f, max %.1f, %ld above 0.75\n", squares, biggest, above);
  return 0;
}
