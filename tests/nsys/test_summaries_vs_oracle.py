"""Every ``nsys stats`` summary equals NVIDIA's own CSV output for every committed sample."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl
import pytest

from kernelscope.timeline.analysis.nvtx import nvtx_summary
from kernelscope.timeline.analysis.summaries import (
    cuda_api_summary,
    kernel_summary,
    memop_size_summary,
    memop_time_summary,
    osrt_summary,
)
from kernelscope.timeline.model.model import TimelineReport
from tests.nsys.oracle import (
    STATS_REPORTS,
    assert_summary_matches,
    oracle_csv,
    read_csv,
    reported_empty,
)

OURS: dict[str, Callable[[TimelineReport], pl.DataFrame]] = {
    "cuda_gpu_kern_sum": kernel_summary,
    "cuda_api_sum": cuda_api_summary,
    "cuda_gpu_mem_time_sum": memop_time_summary,
    "cuda_gpu_mem_size_sum": memop_size_summary,
    "nvtx_sum": nvtx_summary,
    "osrt_sum": osrt_summary,
}
@pytest.mark.parametrize("report", STATS_REPORTS)
def test_summary_matches_nsys_stats(sample_name: str, report: str, sample_report) -> None:
    ours = OURS[report](sample_report(sample_name))
    path = oracle_csv(sample_name, report)
    if not path.exists():
        if reported_empty(sample_name, report, "stats"):
            assert ours.height == 0, f"nsys found no {report} data but kernelscope did"
            return
        pytest.skip(f"no {report} oracle for {sample_name}")
    expected = read_csv(path)
    if not expected:
        assert ours.height == 0, f"nsys printed no {report} rows but kernelscope has some"
        return
    assert_summary_matches(ours, expected, report)
