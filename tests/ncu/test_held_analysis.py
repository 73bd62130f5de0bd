"""The TUI's one analysis of a kernel report (``ReportAnalysis``), as plain objects: grown
batch by batch as the kernel session grows it, it is the analysis ``analyze`` makes for the
exports; the Diagnosis pane shows the diagnosis a worker left in it; and ``e`` on the kernel
list renders what is held: the report is not opened again (its file is gone by then) and
only the families' representatives are decoded again, for their records."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelscope.export.writer import ExportOptions, render
from kernelscope.kinds.ncu.analysis.diagnosis import REQUIRED_METRICS
from kernelscope.kinds.ncu.analysis.kernel_analysis import analyze, diagnose_summary
from kernelscope.kinds.ncu.analysis.report_analysis import ReportAnalysis
from kernelscope.kinds.ncu.model import open_ncu_report
from kernelscope.kinds.ncu.render.flag_cells import top_flag_text
from kernelscope.kinds.ncu.screens.kernel_state import KernelReportData
from tests.conftest import NCU_SAMPLES

SMALL_FAMILY = NCU_SAMPLES / "small_family.ncu-rep.xz"
ZOO_A = NCU_SAMPLES / "zoo_a.ncu-rep.xz"


def _grown(path: Path, per_batch: int) -> ReportAnalysis:
    """The report's analysis grown ``per_batch`` kernels at a time, as the session grows it."""
    report = open_ncu_report(path, extra_metrics=REQUIRED_METRICS)
    analysis = ReportAnalysis(report)
    read = [pair for batch in report.iter_summaries(analyse=diagnose_summary) for pair in batch]
    for start in range(0, len(read), per_batch):
        analysis.add(read[start:start + per_batch])
        assert analysis.time_share(0) is None  # no share before every kernel is read
    analysis.finish()
    return analysis


def test_the_grown_analysis_is_the_exports_analysis() -> None:
    analysis = _grown(SMALL_FAMILY, per_batch=40)
    assert analysis.report is not None
    with open_ncu_report(SMALL_FAMILY, extra_metrics=REQUIRED_METRICS) as report:
        whole = analyze(report)
    held = analysis.analyzed()
    assert held is analysis.analyzed()  # made once
    assert [k.id for k in held.kernels] == list(range(len(whole.kernels)))
    assert [(k.diagnosis.label, top_flag_text(k.diagnosis), k.time_share)
            for k in held.kernels] == [
        (k.diagnosis.label, top_flag_text(k.diagnosis), k.time_share) for k in whole.kernels
    ]
    assert [f.ids for f in held.families] == [f.ids for f in whole.families]
    assert [held.short_name(k) for k in held.kernels] == [
        whole.short_name(k) for k in whole.kernels
    ]
    assert held.total_ns == whole.total_ns and held.sections == whole.sections
    assert analysis.time_share(3) == whole.kernel(3).time_share
    analysis.report.close()


def test_the_pane_shows_what_a_worker_left_and_knows_when_it_is_stale() -> None:
    report = open_ncu_report(ZOO_A, extra_metrics=REQUIRED_METRICS)
    state = KernelReportData(ZOO_A)
    state.report = report
    pairs = [pair for batch in report.iter_summaries(analyse=diagnose_summary) for pair in batch]
    state.add_summaries(pairs[:3])
    detail = report.detail(1)
    assert state.pane_view.held(1) is None  # not made yet: the pane says so
    early = state.pane_view.read(detail)  # the detail worker's call
    assert state.pane_view.held(1) == early
    state.add_summaries(pairs[3:])  # more kernels read: weighed among them again
    state.loaded_all = True
    assert state.pane_view.held(1) is None
    final = state.pane_view.read(detail)  # weighed again, not diagnosed again
    assert state.pane_view.held(1) == final
    assert final.diagnosis == state.analysis.weights().diagnose(detail)
    assert final.share == state.analysis.analyzed().kernel(1).time_share
    points = state.pane_view.chart_kernels()
    assert [k.id for k in points] == list(range(len(pairs)))
    assert state.pane_view.chart_kernels() is points  # fitted once
    report.close()


def test_e_on_the_list_renders_what_is_held(tmp_path: Path) -> None:
    path = tmp_path / SMALL_FAMILY.name
    shutil.copyfile(SMALL_FAMILY, path)
    expected = render(path, ExportOptions(fmt="md"))  # the CLI's export
    state = KernelReportData(path)
    state.report = report = open_ncu_report(path, extra_metrics=REQUIRED_METRICS)
    for batch in report.iter_summaries(analyse=diagnose_summary):
        state.add_summaries(batch)
    state.loaded_all = True
    held = state.analysis.analyzed()
    path.unlink()  # opening the report again would fail now
    decoded = report.decoded
    text = state.render_job(state.report_job(tmp_path))
    assert text == expected
    assert state.analysis.analyzed() is held
    # Only the families' median launches are read again (their records), not every kernel.
    again = report.decoded - decoded
    assert 0 < again <= len(held.families) < len(held.kernels)
    report.close()


def test_the_shares_come_without_the_families_and_equal_the_weights() -> None:
    """Once every kernel is read, the list's share column asks for each kernel's share: they
    are the weights' shares, made without grouping the families (which only the weights, the
    family view and the Diagnosis pane need)."""
    analysis = _grown(SMALL_FAMILY, per_batch=40)
    shares = [analysis.time_share(s.id) for s in analysis.summaries]
    assert analysis._families is None and analysis._weights is None
    assert shares == [analysis.weights().shares[s.id] for s in analysis.summaries]
    assert sum(share or 0.0 for share in shares) == pytest.approx(1.0)
    assert analysis.report is not None
    analysis.report.close()
