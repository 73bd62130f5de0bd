"""Short kernel names by meaning: what is dropped, what is kept, and that no two different
kernels of any sample (or of the third-party reports) share a displayed short name."""

from __future__ import annotations

import json
import lzma
import subprocess
import sys
from pathlib import Path

import pytest

from kernelscope.core.kernel_names import (
    MAX_SHORT,
    ShortNames,
    compact_name,
    fit_name,
    fit_names,
    short_names,
)
from kernelscope.kinds.nsys.model.opener import open_report
from tests.wild.conftest import require_wild

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"

ADD_FLOAT = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<"
             "float>, std::array<char *, 3>>(int, T2, T3)")
ADD_BF16 = ("void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::"
            "BFloat16>, std::array<char *, 3>>(int, T2, T3)")
GELU = ("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::"
        "TensorIteratorBase &, at::native::GeluType)::[lambda() (instance 2)]::operator ()() "
        "const::[lambda() (instance 2)]::operator ()() const::[lambda(float) (instance 1)], "
        "std::array<char *, 2>>(int, T2, T3)")
GELU_BF16 = GELU.replace("<4,", "<8,").replace("lambda(float)", "lambda(c10::BFloat16)")
XMMA = ("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_"
        "aligna4_alignc4_execute_kernel__5x_cublas")
CUDNN = ("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x256_4x1x1_"
         "cga1x1x1_kernel0_0")


@pytest.mark.parametrize(
    ("demangled", "short"),
    [
        (ADD_FLOAT, "vectorized_elementwise<CUDAFunctor_add>"),
        (GELU, "vectorized_elementwise<Gelu>"),
        ("void at::<unnamed>::vectorized_layer_norm_kernel<c10::BFloat16, float, 0>(int, T2, "
         "const T1 *, const T1 *, const T1 *, T2 *, T2 *, T1 *)",
         "vectorized_layer_norm<BFloat16, float, 0>"),
        ("void at::<unnamed>::cunn_SoftMaxForwardReg<float, float, float, at::<unnamed>::"
         "SoftMaxForwardEpilogue, long, 4>(T3 *, const T1 *, T5)",
         "cunn_SoftMaxForwardReg<SoftMaxForwardEpilogue>"),
        ("void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, "
         "__nv_bfloat16, 0, float, __nv_bfloat16, __nv_bfloat16, 1, 0, 0, 0>(cublasLt::"
         "cublasSplitKParams<T6>, const T4 *)", "splitKreduce"),
        (XMMA, "sm80_xmma_gemm_f32_nn_n_256x128x8_ffma"),
        (CUDNN, "cudnn_sdpa_sm90_flash_fprop_wgmma_f16_64x128x256"),
        ("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT",
         "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"),
        ("void mm_tiled<(int)32>(const float *, const float *, float *, int)", "mm_tiled<32>"),
        ("saxpy_f4(const float4 *, float4 *, float, int)", "saxpy_f4"),
        ("void ns::(anonymous namespace)::k<float, 4>(float *)", "k<float, 4>"),
        ("void at::native::elementwise_kernel<(int)128, (int)2, void at::native::"
         "gpu_kernel_impl_nocast<at::native::CUDAFunctor_add<float>>(at::TensorIteratorBase &, "
         "const T1 &)::[lambda(int) (instance 1)]>(int, T3)", "elementwise<CUDAFunctor_add>"),
        ("range", "range"),
    ],
)
def test_compact_names(demangled: str, short: str) -> None:
    assert compact_name(demangled) == short


def test_names_that_read_alike_are_spelled_out_until_they_differ() -> None:
    # Alone, a kernel needs no dtype; beside its bf16 twin it gets one.
    assert short_names([ADD_FLOAT])[ADD_FLOAT] == "vectorized_elementwise<CUDAFunctor_add>"
    both = short_names([ADD_FLOAT, ADD_BF16, GELU, GELU_BF16])
    assert both[ADD_FLOAT] == "vectorized_elementwise<CUDAFunctor_add<float>>"
    assert both[ADD_BF16] == "vectorized_elementwise<CUDAFunctor_add<BFloat16>>"
    assert both[GELU] == "vectorized_elementwise<Gelu(float)>"
    assert both[GELU_BF16] == "vectorized_elementwise<Gelu(BFloat16)>"
    # Overloads differ only by their parameters: those tell them apart.
    a, b = "void f<1>(int)", "void f<1>(float)"
    assert short_names([a, b]) == {a: "f<1>(int)", b: "f<1>(float)"}


_VEC = "std::vector<double, std::allocator<double>>&"
_GRAUPEL = f"graupel(unsigned long &, double &, {_VEC}, {_VEC})"
_ITER = "__gnu_cxx::__normal_iterator<unsigned long *, std::vector<unsigned long>>"


def _thrust_for_each(instance: int) -> str:
    body = (f"thrust::THRUST_200300_89_NS::cuda_cub::for_each_f<{_ITER}, thrust::THRUST_200300_"
            f"89_NS::detail::wrapped_function<{_GRAUPEL}::[lambda(unsigned long) (instance "
            f"{instance})], void>>")
    return ("void thrust::THRUST_200300_89_NS::cuda_cub::core::_kernel_agent<thrust::THRUST_2003"
            f"00_89_NS::cuda_cub::__parallel_for::ParallelForAgent<{body}, long>, {body}, long>"
            "(T2, T3)")


CUB_REDUCE = (
    "void cub::CUB_200300_89_NS::DeviceReduceKernel<cub::CUB_200300_89_NS::DeviceReducePolicy<"
    "unsigned long, unsigned int, std::plus<unsigned long>>::Policy600, thrust::THRUST_200300_89"
    f"_NS::cuda_cub::transform_input_iterator_t<unsigned long, {_ITER}, {_GRAUPEL}::[lambda("
    "unsigned long) (instance 1)]>, unsigned int, std::plus<unsigned long>, unsigned long>(T2, "
    "T5 *, T3, cub::CUB_200300_89_NS::GridEvenShare<T3>, T4)"
)
KOKKOS_LAMBDA = (
    "void Kokkos::Impl::cuda_parallel_launch_local_memory<Kokkos::Impl::ParallelFor<Nukexc::"
    "compute_half_inverse(const Kokkos::View<double **, Kokkos::LayoutLeft, Kokkos::Cuda> &, "
    "double)::[lambda(int) (instance {n})], Kokkos::RangePolicy<Kokkos::Cuda>, Kokkos::Cuda>>(T1)"
)
KOKKOS_FILL = (
    "void Kokkos::Impl::cuda_parallel_launch_local_memory<Kokkos::Impl::ParallelFor<Kokkos::Impl"
    "::ViewFill<Kokkos::View<int *, Kokkos::LayoutRight, Kokkos::Device<Kokkos::Cuda, Kokkos::"
    "AnonymousSpace>, Kokkos::MemoryTraits<(unsigned int)0>>, Kokkos::LayoutRight, Kokkos::Cuda, "
    "(int)1, int>, Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int>>, Kokkos::Cuda>>(T1)"
)
CUTLASS = (
    "void cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::MmaPipelined<"
    "cutlass::gemm::GemmShape<(int)128, (int)128, (int)32>, cutlass::transform::threadblock::"
    "PredicatedTileIterator<cutlass::MatrixShape<(int)128, (int)32>, float>>, (bool)0>>(T1::Params)"
)
CUTE = (
    "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, "
    "int>, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::"
    "MainloopSm90TmaGmmaWarpSpecialized<(int)4, cute::tuple<cute::C<(int)2>, cute::C<(int)1>, "
    "cute::C<(int)1>>>, cute::tuple<cute::C<(int)128>, cute::C<(int)256>, cute::C<(int)64>>, "
    "cutlass::bfloat16_t>>>(T1::Params)"
)
REDUCE = ("void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<{t}, at::native::"
          "func_wrapper_t<{t}, at::native::sum_functor<{t}, float, {t}>::operator ()(at::Tensor"
          "Iterator &)::[lambda(float, float) (instance 1)]>, unsigned int, {t}, (int)4, "
          "(int)4>>(T3)")
TRITON = "triton_per_fused__to_copy_add_embedding_mean_mul_pow_rsqrt_transpose_view_where_12"
CONV = ("sm80_xmma_fprop_implicit_gemm_indexed_wo_smem_f16f16_f16f16_f16_nhwckrsc_nhwc_tilesize128"
        "x32x64_stage1_warpsize4x1x1_g1_tensor16x8x16_aligna8_alignc8_execute_kernel_trt")


def test_launchers_are_named_by_what_they_launch() -> None:
    names = [_thrust_for_each(n) for n in (2, 3, 4)] + [CUB_REDUCE]
    assert short_names(names) == {
        names[0]: "graupel λ#2", names[1]: "graupel λ#3", names[2]: "graupel λ#4",
        CUB_REDUCE: "DeviceReduceKernel<graupel>",
    }
    assert compact_name(_thrust_for_each(4)) == "graupel"
    kokkos = [KOKKOS_LAMBDA.format(n=1), KOKKOS_LAMBDA.format(n=2), KOKKOS_FILL]
    assert short_names(kokkos) == {
        kokkos[0]: "compute_half_inverse λ#1", kokkos[1]: "compute_half_inverse λ#2",
        KOKKOS_FILL: "ViewFill<1, int>",
    }
    assert compact_name(CUTLASS) == "Gemm 128x128x32"
    assert compact_name(CUTE) == "GemmUniversal 128x256x64"
    assert compact_name(CONV) == "sm80_xmma_fprop_gemm_indexed_wo_smem_f16_128x32x64_tensor"


def test_long_names_are_cut_keeping_what_differs() -> None:
    bf16, fp32 = REDUCE.format(t="c10::BFloat16"), REDUCE.format(t="float")
    assert short_names([bf16, fp32]) == {bf16: "reduce<…, BFloat16, …>",
                                         fp32: "reduce<…, float, …>"}
    assert compact_name(TRITON) == "triton_per_fused__to_copy_add_embedding_mean…e_view_where_12"
    assert len(compact_name(TRITON)) == 60
    # A difference deep inside the template arguments is followed down to where it lies.
    deep = [f"void k<{'A<' * 30}{t}{'>' * 30}>()" for t in ("x", "y")]
    assert short_names(deep) == {deep[0]: "k<x>", deep[1]: "k<y>"}
    # Names that differ only where a short name never looks (namespaces) are numbered.
    spaces = ["void a::k<int>(float *)", "void b::k<int>(float *)"]
    assert short_names(spaces) == {spaces[0]: "k<int> #1", spaces[1]: "k<int> #2"}


def test_names_added_later_rename_the_earlier_ones() -> None:
    names = ShortNames([ADD_FLOAT])
    assert names[ADD_FLOAT] == "vectorized_elementwise<CUDAFunctor_add>"
    changed = names.add([ADD_BF16, ADD_FLOAT])
    assert changed == {ADD_FLOAT, ADD_BF16}
    assert names[ADD_FLOAT] != names[ADD_BF16]
    assert names.add([ADD_BF16]) == set()


def test_fitting_keeps_what_tells_names_apart() -> None:
    assert fit_name("vectorized_elementwise<CUDAFunctor_add>", 26) == "vectoriz…<CUDAFunctor_add>"
    assert len(fit_name("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", 20)) == 20
    a, b = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", "nvjet_sm90_tst_256x128_x_splitK_NNT"
    fitted = fit_names([a, b], 16)
    assert fitted[a] != fitted[b] and all(len(f) <= 16 for f in fitted.values())


# -- every sample -------------------------------------------------------------------------

READ_NAMES = """
import json, sys
from kernelscope.kinds.ncu.model.report import NcuReport
out = {}
for path in sys.argv[1:]:
    report = NcuReport(path)
    try:
        names = {str(report.summary(k).row["demangled"]) for k in range(report.kernel_count)}
    finally:
        report.close()
    out[path] = sorted(names)
print(json.dumps(out))
"""


def _ncu_names(paths: list[Path]) -> dict[str, list[str]]:
    """The demangled names of every kernel of each report, as kernelscope reads them (in a
    child process, as when ncu_report kept every kernel it opened in memory)."""
    done = subprocess.run(
        [sys.executable, "-c", READ_NAMES, *map(str, paths)],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )
    return json.loads(done.stdout)


def _assert_short_and_unique(names: list[str], where: str) -> None:
    shorts = short_names(names)
    by_short: dict[str, list[str]] = {}
    for name, short in shorts.items():
        by_short.setdefault(short, []).append(name)
        assert len(short) <= MAX_SHORT, f"{where}: {short!r} is {len(short)} characters"
    clashes = {s: n for s, n in by_short.items() if len(n) > 1}
    assert not clashes, f"{where}: kernels share a short name: {clashes}"


def _nsys_names(path: Path) -> list[str]:
    return open_report(path).kernels["name"].cast(str).drop_nulls().unique().to_list()


def test_every_sample_kernel_has_a_short_unique_name() -> None:
    reports = sorted((SAMPLES / "ncu").glob("*.ncu-rep.xz"))
    assert reports
    for path, names in _ncu_names(reports).items():
        assert names, f"{path} has no kernels"
        _assert_short_and_unique(names, Path(path).name)
    traces = sorted((SAMPLES / "nsys").glob("*.sqlite.xz"))
    traces += sorted((SAMPLES / "nsys" / "ranks").glob("*.sqlite.xz"))
    for trace in traces:
        _assert_short_and_unique(_nsys_names(trace), trace.name)


def test_every_wild_kernel_has_a_short_unique_name(tmp_path: Path) -> None:
    """Every kernel of the third-party kernel reports and Nsight Systems exports, as
    kernelscope reads them."""
    wild = require_wild()
    reports = []
    for packed in sorted((wild / "ncu").glob("*.xz")):
        target = tmp_path / packed.name.removesuffix(".xz")
        target.write_bytes(lzma.decompress(packed.read_bytes()))
        reports.append(target)
    checked = 0
    for path, names in _ncu_names(reports).items():
        _assert_short_and_unique(names, Path(path).name)
        checked += bool(names)
    for trace in sorted((wild / "nsys").glob("*.sqlite.xz")):
        names = _nsys_names(trace)
        _assert_short_and_unique(names, trace.name)
        checked += bool(names)
    assert checked >= 40
