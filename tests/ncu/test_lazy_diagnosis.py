"""An analysed report's kernels are diagnosed when first asked for: before that, the label and
roofline a document reads of every launch come from the classification alone, and they are
the diagnosis' own; the diagnosis made late is the one made at once (weighed by the kernel's
shares); the Markdown export asks only each family's median launch for its diagnosis."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from kernelscope.kinds.ncu.analysis.analyzed_kernel import AnalyzedKernel
from kernelscope.kinds.ncu.analysis.diagnosis.result import UNDETERMINED
from kernelscope.kinds.ncu.analysis.kernel_analysis import (
    ReportWeights,
    analyze,
    diagnose_summary,
    open_for_analysis,
)
from kernelscope.kinds.ncu.export.ncu_markdown import render_ncu_markdown
from tests.conftest import NCU_SAMPLES, ncu_sample_paths


def _name(path: Path) -> str:
    return path.name.removesuffix(".ncu-rep.xz")


@pytest.mark.parametrize("path", ncu_sample_paths(), ids=_name)
def test_label_and_roofline_before_the_diagnosis_are_its_own(path: Path) -> None:
    with open_for_analysis(path) as report:
        analyzed = analyze(report)
        summaries = [report.summary(k) for k in range(report.kernel_count)]
    weights = ReportWeights.of(summaries)
    labels = set()
    for kernel, summary in zip(analyzed.kernels, summaries, strict=True):
        assert kernel.made is None  # nothing asked yet
        label, roofline = kernel.label, kernel.roofline
        assert kernel.made is None  # the label and roofline made no diagnosis
        made = kernel.diagnosis
        assert kernel.made is made
        assert (label, roofline) == (made.label, made.roofline)
        assert made == weights.weigh(diagnose_summary(summary), summary.id)
        labels.add(label)
    assert labels - {UNDETERMINED}, labels  # classified, not only undetermined


@pytest.mark.parametrize("path", ncu_sample_paths(), ids=_name)
def test_the_roofline_alone_is_the_diagnosis_own(path: Path) -> None:
    with open_for_analysis(path) as report:
        analyzed = analyze(report)
    for kernel in analyzed.kernels:
        roofline = kernel.roofline  # asked first: neither classified nor diagnosed for it
        assert (kernel.made, kernel._classified) == (None, None)
        assert roofline == kernel.diagnosis.roofline
        assert kernel.roofline is kernel.diagnosis.roofline  # the diagnosis' once made


@pytest.mark.parametrize("path", ncu_sample_paths(), ids=_name)
def test_the_outline_before_the_diagnosis_is_its_own(path: Path) -> None:
    """A diff's label, flag ids and roofline of a launch, worked out without the rest of
    its diagnosis, are the diagnosis' (flags in its order, weighed or not)."""
    with open_for_analysis(path) as report:
        analyzed = analyze(report)
    flagged = 0
    for kernel in analyzed.kernels:
        label, flags, roofline = kernel.outline()
        assert kernel.made is None  # the outline made no diagnosis
        made = kernel.diagnosis
        assert (label, flags, roofline) == (made.label, tuple(f.id for f in made.flags),
                                            made.roofline)
        assert kernel.outline() == (label, flags, roofline)  # the diagnosis' once made
        flagged += len(flags) > 1
    if path.name.startswith("zoo"):
        assert flagged  # a launch with several flags, whose order the outline keeps


@pytest.mark.parametrize("path", ncu_sample_paths(), ids=_name)
def test_the_row_diagnosis_is_the_diagnosis_without_its_notes(path: Path) -> None:
    """A CSV row's diagnosis of a launch, made without the notes of what could not be checked
    and not kept, is the diagnosis but for them; once the diagnosis is made it is that one."""
    with open_for_analysis(path) as report:
        analyzed = analyze(report)
    noted = 0
    for kernel in analyzed.kernels:
        row = kernel.row_diagnosis()
        assert kernel.made is None  # not kept
        made = kernel.diagnosis
        assert replace(row, notes=made.notes) == made
        assert set(row.notes) <= set(made.notes)  # a minor share's note (the weighing's) alone
        noted += len(made.notes) > len(row.notes)
        assert kernel.row_diagnosis() is made
    if path.name.startswith("many_launches"):
        assert noted  # notes there (sections not collected), which the row leaves out


def test_the_markdown_asks_only_the_families_median_launches() -> None:
    with open_for_analysis(NCU_SAMPLES / "many_launches.ncu-rep.xz") as report:
        analyzed = analyze(report)
        text = render_ncu_markdown(analyzed)
        asked = {k.id for k in analyzed.kernels if k.made is not None}
        medians = {f.representative for f in analyzed.families}
    assert "## Kernel families" in text
    assert asked == medians
    assert len(analyzed.kernels) > 10 * len(medians)


def test_a_kernel_without_a_measurement_is_undetermined_without_a_point() -> None:
    with open_for_analysis(NCU_SAMPLES / "zoo.ncu-rep.xz") as report:
        measured = report.summary(0)
    reason = "The kernel has no metrics: ncu could not profile it."
    for summary in (replace(measured, unmeasured=reason), replace(measured, metrics={})):
        kernel = AnalyzedKernel(summary, None, 0.5, (0.5, None, 1))
        assert (kernel.label, kernel.roofline) == (UNDETERMINED, None)
        assert kernel.made is None
        assert kernel.diagnosis.label == UNDETERMINED and kernel.diagnosis.roofline is None
    assert AnalyzedKernel(measured, None, None).label != UNDETERMINED
