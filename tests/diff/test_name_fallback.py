"""A kernel whose report holds no demangled name is named by its function name, the same
way in the kernel list, the diff's text, its JSON, and its families (the one name rule,
``KernelIdentity.name``). The reports are real (gemm_naive, gemm_tiled); only the demangled
name is taken out of every kernel, as a report without that field would give it."""

from __future__ import annotations

import copy
import dataclasses

from kernelscope.kinds.diff.analysis.kernels import diff_kernels
from kernelscope.kinds.diff.export.diff_json import kernel_entry
from kernelscope.kinds.diff.render.diff import kernel_text
from kernelscope.kinds.ncu.analysis.families import kernel_families
from kernelscope.kinds.ncu.analysis.kernel_analysis import AnalyzedReport


def without_demangled(report: AnalyzedReport) -> AnalyzedReport:
    kernels = []
    for kernel in report.kernels:
        summary = copy.copy(kernel.summary)
        summary.identity = dataclasses.replace(summary.identity, demangled="")
        summary.row = {**summary.row, "demangled": ""}
        kernels.append(dataclasses.replace(kernel, summary=summary))
    families = kernel_families(k.summary for k in kernels)
    return dataclasses.replace(report, kernels=tuple(kernels), families=families)


def test_a_kernel_without_demangled_name_is_named_alike_in_list_and_diff(opened) -> None:
    before, after = (without_demangled(r) for r in opened("gemm_naive", "gemm_tiled").analysed())
    diff = diff_kernels(before, after, by_hand=(("0", "0"),))
    pair = diff.pairs[0]
    assert before.short_name(pair.before) == "gemm_naive"
    assert kernel_text(diff, pair, "before", None) == "0 gemm_naive"
    assert kernel_text(diff, pair, "after", None) == "0 gemm_tiled"
    assert kernel_entry(pair.after)["demangled"] == "gemm_tiled"
    assert [f.demangled for f in before.families] == ["gemm_naive"]


def test_the_diff_names_kernels_as_their_report_lists_them(kernel_diff) -> None:
    """A name with launches of two shapes is two families; the diff names each as the
    kernel list does, shape included (it used to print the bare compact name)."""
    diff = kernel_diff("multi_process", "multi_process")
    texts = {kernel_text(diff, pair, "after", None).split(" ", 1)[1] for pair in diff.pairs}
    assert texts == {"mp_scale [grid 4096×1×1]", "mp_scale [grid 8192×1×1]",
                     "mp_saxpy [grid 4096×1×1]", "mp_saxpy [grid 8192×1×1]"}
