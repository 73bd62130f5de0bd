"""The nsys-parity findings equal the rows ``nsys analyze`` printed for every sample."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl
import pytest

from kernelscope.parsers.nsys import NsysReport, findings
from kernelscope.parsers.nsys import nsys_rules as rules
from tests.nsys.oracle import ANALYZE_RULES, number, oracle_csv, read_csv, reported_empty

OURS: dict[str, Callable[[NsysReport], pl.DataFrame]] = {
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


def _cell(header: str, value: object) -> object:
    """Our value as nsys prints it in that column."""
    if value is None:
        return ""
    if header == "Bytes (MB)":
        return round(int(value) / 1e6, 3)  # type: ignore[call-overload]
    return value


def _oracle_cell(header: str, text: str) -> object:
    text = text.strip()
    if text == "":
        return ""
    num = number(text) if text.replace(",", "").replace(".", "").lstrip("-").isdigit() else None
    if num is None:
        return text
    if header == "Bytes (MB)" or header == "In-Use (%)":
        return num
    return int(num)


def _rows(frame: pl.DataFrame, headers: list[str], rule: str) -> list[tuple[object, ...]]:
    key_of = {v: k for k, v in rules.RULE_COLUMNS[rule].items()}
    return [
        tuple(_cell(h, row[key_of[h]]) for h in headers) for row in frame.to_dicts()
    ]


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
    headers = list(expected_rows[0].keys())
    assert set(headers) <= set(rules.RULE_COLUMNS[rule].values()), headers
    expected = [tuple(_oracle_cell(h, r[h]) for h in headers) for r in expected_rows]
    got = _rows(ours, headers, rule)
    if "Row#" in headers:  # nsys numbers rows in its own order: compare that order exactly
        assert got == expected
    else:  # ties in duration may be printed in any order
        assert sorted(got, key=repr) == sorted(expected, key=repr)
    assert FINDING_ID[rule] in finding_ids
