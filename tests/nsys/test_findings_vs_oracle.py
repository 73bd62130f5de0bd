"""The nsys-parity findings equal the rows ``nsys analyze`` printed for every sample."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl
import pytest

from kernelscope.timeline.analysis import nsys_rules as rules
from kernelscope.timeline.analysis.findings import findings
from kernelscope.timeline.model.model import TimelineReport
from tests.nsys.oracle import (
    ANALYZE_RULES,
    assert_rule_matches,
    oracle_csv,
    read_csv,
    reported_empty,
)

OURS: dict[str, Callable[[TimelineReport], pl.DataFrame]] = {
    "cuda_memcpy_async": rules.cuda_memcpy_async,
    "cuda_memcpy_sync": rules.cuda_memcpy_sync,
    "cuda_memset_sync": rules.cuda_memset_sync,
    "cuda_api_sync": rules.cuda_api_sync,
    "gpu_gaps": rules.gpu_gaps,
    "gpu_time_util": rules.gpu_time_util,
}
FINDING_ID = {
    "cuda_memcpy_async": "pageable-memcpy", "cuda_memcpy_sync": "sync-memcpy",
    "cuda_memset_sync": "sync-memset", "cuda_api_sync": "sync-api", "gpu_gaps": "gpu-gap",
    "gpu_time_util": "low-gpu-utilization",
}


@pytest.mark.parametrize("rule", ANALYZE_RULES)
def test_rule_matches_nsys_analyze(sample_name: str, rule: str, sample_report) -> None:
    report = sample_report(sample_name)
    ours = OURS[rule](report)
    finding_ids = {f.id for f in findings(report)}
    path = oracle_csv(sample_name, rule)
    if not path.exists():
        if reported_empty(sample_name, rule, "analyze"):
            assert ours.height == 0, f"nsys analyze found no {rule} problem but kernelscope did"
            assert FINDING_ID[rule] not in finding_ids
            return
        pytest.skip(f"no {rule} oracle for {sample_name}")
    expected_rows = read_csv(path)
    if not expected_rows:
        assert ours.height == 0, f"nsys analyze found no {rule} problem but kernelscope did"
        assert FINDING_ID[rule] not in finding_ids
        return
    assert_rule_matches(ours, expected_rows, rules.RULE_COLUMNS[rule])
    assert FINDING_ID[rule] in finding_ids


@pytest.mark.parametrize("gap_ms", [1, 10, 100, 500])
def test_gpu_gaps_at_a_threshold_are_the_longer_gaps_of_all(sample_name: str, gap_ms: int,
                                                           sample_report) -> None:
    """The gaps longer than ``gap_ms`` are those of every gap longer than 0 ms, whether or
    not some process's operations span longer than ``gap_ms`` (where none does, the rule
    skips the merge)."""
    report = sample_report(sample_name)
    every = rules.gpu_gaps(report, 0)
    longer = every.filter(pl.col("duration_ns") > gap_ms * 1_000_000)
    ours = rules.gpu_gaps(report, gap_ms)
    assert ours.drop("row").equals(longer.drop("row"))
    assert ours["row"].to_list() == list(range(1, ours.height + 1))
