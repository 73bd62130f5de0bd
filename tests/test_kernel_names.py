"""Short kernel names by meaning: what is dropped, what is kept, and that no two different
kernels of any sample (or of the third-party reports) share a displayed short name."""

from __future__ import annotations

import csv
import io
import json
import lzma
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernelscope.parsers.kernel_names import (
    ShortNames,
    compact_name,
    fit_name,
    fit_names,
    name_at,
    short_names,
)
from kernelscope.parsers.nsys import open_report

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
    # Overloads differ only by their parameters: the whole name tells them apart.
    a, b = "void f<1>(int)", "void f<1>(float)"
    assert short_names([a, b]) == {a: name_at(a, 5), b: name_at(b, 5)}


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
from kernelscope.parsers.ncu.opener import load_ncu_context
from kernelscope.parsers.ncu.summary_reader import action_names
out = {}
for path in sys.argv[1:]:
    ctx, _ = load_ncu_context(path)
    names = set()
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        for a in range(rng.num_actions()):
            names.add(action_names(rng.action_by_idx(a))[1])
    out[path] = sorted(names)
print(json.dumps(out))
"""


def _ncu_names(paths: list[Path]) -> dict[str, list[str]]:
    """The demangled names of every kernel of each report, as kernelscope reads them (in a
    child process: ncu_report keeps every kernel it opens in memory)."""
    done = subprocess.run(
        [sys.executable, "-c", READ_NAMES, *map(str, paths)],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )
    return json.loads(done.stdout)


def _assert_unique(names: list[str], where: str) -> None:
    shorts = short_names(names)
    by_short: dict[str, list[str]] = {}
    for name, short in shorts.items():
        by_short.setdefault(short, []).append(name)
    clashes = {s: n for s, n in by_short.items() if len(n) > 1}
    assert not clashes, f"{where}: kernels share a short name: {clashes}"


def test_no_two_kernels_of_a_sample_share_a_short_name() -> None:
    reports = sorted((SAMPLES / "ncu").glob("*.ncu-rep.xz"))
    assert reports
    for path, names in _ncu_names(reports).items():
        assert names, f"{path} has no kernels"
        _assert_unique(names, Path(path).name)
    traces = sorted((SAMPLES / "nsys").glob("*.sqlite.xz"))
    traces += sorted((SAMPLES / "nsys" / "ranks").glob("*.sqlite.xz"))
    for trace in traces:
        names = open_report(trace).kernels["name"].cast(str).drop_nulls().unique().to_list()
        _assert_unique(names, trace.name)


def _wild() -> Path:
    return Path(os.environ.get("KERNELSCOPE_WILD", ROOT.parent / "shared" / "wild"))


def test_no_two_kernels_of_a_wild_report_share_a_short_name() -> None:
    """The third-party reports, through the kernel names NVIDIA's CLIs printed for them."""
    oracle = _wild() / "oracle"
    if not oracle.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"no third-party reports at {_wild()}")
        pytest.skip(f"no third-party reports at {_wild()}")
    checked = 0
    for path in sorted(oracle.glob("ncu/*.raw_base.csv.xz")) + sorted(
        oracle.glob("nsys/*_cuda_gpu_kern_sum.csv.xz")
    ):
        text = lzma.decompress(path.read_bytes()).decode("utf-8", "replace")
        rows = list(csv.reader(io.StringIO(text[text.find('"'):] if path.parent.name == "ncu"
                                           else text)))
        if not rows:
            continue
        column = "Kernel Name" if "Kernel Name" in rows[0] else "Name"
        if column not in rows[0]:
            continue
        i = rows[0].index(column)
        names = sorted({r[i] for r in rows[1:] if len(r) > i and r[i]})
        if names:
            _assert_unique(names, path.name)
            checked += 1
    assert checked
