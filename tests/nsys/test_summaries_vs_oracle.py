"""Every ``nsys stats`` summary equals NVIDIA's own CSV output for every committed sample."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl
import pytest

from kernelscope.parsers.nsys import (
    NsysReport,
    cuda_api_summary,
    kernel_summary,
    memop_size_summary,
    memop_time_summary,
    nvtx_summary,
    osrt_summary,
)
from tests.nsys.oracle import STATS_REPORTS, number, oracle_csv, read_csv, reported_empty

OURS: dict[str, Callable[[NsysReport], pl.DataFrame]] = {
    "cuda_gpu_kern_sum": kernel_summary,
    "cuda_api_sum": cuda_api_summary,
    "cuda_gpu_mem_time_sum": memop_time_summary,
    "cuda_gpu_mem_size_sum": memop_size_summary,
    "nvtx_sum": nvtx_summary,
    "osrt_sum": osrt_summary,
}
TEXT_COLUMNS = {"Name", "Operation", "Range", "Style"}


def _tolerance(column: str) -> float:
    """Half a unit of the last printed digit (nsys prints MB with 3 decimals, else 1)."""
    return 0.0005 + 1e-9 if "(MB)" in column else 0.05 + 1e-9


def _key(row: dict[str, object], columns: list[str]) -> tuple[str, ...]:
    return tuple(str(row[c]) for c in columns if c in TEXT_COLUMNS)


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
    assert list(expected[0].keys()) == ours.columns, "columns differ from nsys stats"
    assert ours.height == len(expected), "row count differs from nsys stats"
    mine = {_key(r, ours.columns): r for r in ours.to_dicts()}
    assert len(mine) == ours.height
    for exp in expected:
        key = _key(exp, ours.columns)
        assert key in mine, f"{key} missing from kernelscope's {report}"
        got = mine[key]
        for col in ours.columns:
            if col in TEXT_COLUMNS:
                continue
            want = number(exp[col])
            have = got[col]
            assert want is not None and have is not None, (key, col)
            if isinstance(have, int) and float(want).is_integer() and "." not in exp[col]:
                assert have == int(want), (key, col, have, want)
            else:
                assert abs(float(have) - want) <= _tolerance(col), (key, col, have, want)
    # Same order as nsys (largest total first); ties may come in either order.
    totals = ours[ours.columns[1 if report != "cuda_gpu_mem_size_sum" else 0]].to_list()
    assert totals == sorted(totals, reverse=True)
