"""HTA's numbers equal HTA 0.5.0's (samples/kineto/oracle/*.csv, written by
samples/kineto/oracle/hta_oracle.py; ../shared/wild/oracle/kineto/*.hta.json)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import polars as pl
import pytest

from kernelscope.kinds.kineto.analysis.hta import hta_gpu_events, hta_numbers, step_names
from kernelscope.kinds.kineto.model.model import read_trace
from kernelscope.timeline.analysis.gpu_breakdown import (
    KINDS,
    KindRuns,
    _kernel_type_rows,
    kernel_type_breakdown,
    kind_runs,
)
from tests.conftest import SAMPLES
from tests.wild.conftest import require_wild

KINETO = SAMPLES / "kineto"
ORACLE = KINETO / "oracle"
TOLERANCE_PP = 0.5


def _rows(name: str) -> list[dict[str, str]]:
    with open(ORACLE / name, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _by_rank(paths: list[Path]) -> dict[int, object]:
    traces = [read_trace(p) for p in paths]
    steps = step_names(traces)
    return {t.rank if t.rank is not None else 0: hta_numbers(t, steps) for t in traces}


@pytest.mark.parametrize("prefix, paths", [
    ("kineto_step", [KINETO / "kineto_step.pt.trace.json.xz"]),
    ("ranks", sorted((KINETO / "ranks").glob("*.xz"))),
])
def test_equal_to_hta(prefix: str, paths: list[Path]) -> None:
    ours = _by_rank(paths)
    temporal = _rows(f"{prefix}.temporal_breakdown.csv")
    assert len(temporal) == len(ours)
    for row in temporal:
        numbers = ours[int(row["rank"])]
        t = numbers.temporal  # type: ignore[attr-defined]
        assert t.kernel == float(row["kernel_time(us)"])
        assert abs(t.idle_pct - float(row["idle_time_pctg"])) <= TOLERANCE_PP
        assert abs(t.compute_pct - float(row["compute_time_pctg"])) <= TOLERANCE_PP
        assert abs(t.non_compute_pct - float(row["non_compute_time_pctg"])) <= TOLERANCE_PP
        expected_overlap = row["comp_comm_overlap_pctg"]
        assert numbers.overlap_pct is None if expected_overlap == "" else (  # type: ignore[attr-defined]
            abs(numbers.overlap_pct - float(expected_overlap)) <= TOLERANCE_PP)  # type: ignore[attr-defined]
    for row in _rows(f"{prefix}.idle_time_breakdown.csv"):
        idle = ours[int(row["rank"])].idle_by_stream  # type: ignore[attr-defined]
        mine = {(s, c): t for s, c, t, _ in idle.rows()}
        assert mine[(int(row["stream"]), row["idle_category"])] == float(row["idle_time"])


def test_kernel_types_equal_to_hta_on_the_single_gpu_step() -> None:
    ours = hta_numbers(read_trace(KINETO / "kineto_step.pt.trace.json.xz")).kernel_types
    expected = {r["kernel_type"]: (int(r["sum"]), float(r["percentage"]))
                for r in _rows("kineto_step.kernel_type_breakdown.csv")}
    assert {k: (s, p) for k, s, p in ours.rows()} == expected


def test_literal_breakdown_of_the_single_gpu_step() -> None:
    t = hta_numbers(read_trace(KINETO / "kineto_step.pt.trace.json.xz")).temporal
    assert t is not None
    assert (t.idle, t.compute, t.non_compute, t.kernel) == (38448, 1033, 65, 39546)


@pytest.mark.parametrize("oracle", ["flashinfer.hta.json", "lightllm.hta.json"])
def test_wild_traces_equal_to_hta(oracle: str) -> None:
    wild = require_wild()
    expected = json.loads((wild / "oracle" / "kineto" / oracle).read_text())["traces"]
    paths = [wild / "kineto" / f"{name}.xz" for name in expected]
    traces = [read_trace(p) for p in paths]
    steps = step_names(traces)
    for name, trace in zip(expected, traces, strict=True):
        numbers = hta_numbers(trace, steps)
        want = expected[name]
        assert numbers.temporal is not None
        assert numbers.temporal.kernel == want["kernel_us"]
        assert abs(numbers.temporal.idle_pct - want["idle_pct"]) <= TOLERANCE_PP
        assert abs(numbers.temporal.compute_pct - want["compute_pct"]) <= TOLERANCE_PP
        assert abs(numbers.temporal.non_compute_pct - want["non_compute_pct"]) <= TOLERANCE_PP
        assert numbers.overlap_pct == want["overlap_pct"]


def test_wild_pair_as_a_run_equal_to_hta() -> None:
    from kernelscope.kinds.ranks.analysis.run import analyse_run

    wild = require_wild()
    expected = json.loads((wild / "oracle" / "kineto" / "lightllm.hta.json").read_text())
    names = list(expected["traces"])
    run = analyse_run([wild / "kineto" / f"{name}.xz" for name in names], workers=0)
    # DeepEP's kernels are not NCCL's and the ranges name no backend: nothing to align on
    assert run.collectives.height == 0 and run.verdict.id == "no-collective"
    for rank, name in zip(run.ranks, names, strict=True):
        t = run.ranks[rank].temporal
        assert t is not None
        assert (t.idle_pct, t.compute_pct, t.non_compute_pct, t.kernel) == (
            expected["traces"][name]["idle_pct"], expected["traces"][name]["compute_pct"],
            expected["traces"][name]["non_compute_pct"], expected["traces"][name]["kernel_us"])


def test_nsys_timeline_gets_the_breakdown_too() -> None:
    from kernelscope.kinds.nsys.model.opener import open_report
    from kernelscope.timeline.analysis.timeline_data import TimelineData

    data = TimelineData(open_report(SAMPLES / "nsys" / "zoo.sqlite.xz"))
    temporal, overlap = data.breakdown
    assert temporal is not None and overlap is None  # no NCCL kernels
    assert temporal.as_ns() == {"idle_ns": 1476149, "compute_ns": 23058685,
                                "non_compute_ns": 97826442, "kernel_ns": 122361276}
    # busy (compute + non-compute) is the union of the device's work, as nsys's busy time
    span, busy = data.utilization.select("span_ns", "busy_ns").row(0)
    assert (temporal.kernel_ns, temporal.compute + temporal.non_compute) == (span, busy)


def test_kernel_types_of_the_run_equal_to_hta() -> None:
    # HTA sums each rank's kernel-type times over the run
    ours = _by_rank(sorted((KINETO / "ranks").glob("*.xz")))
    summed: dict[str, int] = {}
    for numbers in ours.values():
        for kind, total, _ in numbers.kernel_types.rows():  # type: ignore[attr-defined]
            summed[kind] = summed.get(kind, 0) + total
    expected = {r["kernel_type"]: int(r["sum"]) for r in _rows("ranks.kernel_type_breakdown.csv")}
    assert summed == expected


@pytest.mark.parametrize("path", [KINETO / "kineto_step.pt.trace.json.xz",
                                  *sorted((KINETO / "ranks").glob("*.xz"))])
def test_kernel_types_swept_in_python_equal_the_polars_sweep(path: Path) -> None:
    # the sweep runs in Python; the same sweep in polars gives the same table
    trace = read_trace(path)
    runs = kind_runs(hta_gpu_events(trace, step_names([trace])))
    assert kernel_type_breakdown(pl.DataFrame(), runs).equals(
        _kernel_type_breakdown_frames(runs))


def test_an_edge_without_a_time_counts_as_polars_sorts_it_first() -> None:
    frame = pl.DataFrame({"hts": [None, 10, 40], "hend": [30, 20, 50]},
                         schema={"hts": pl.Int64, "hend": pl.Int64})
    runs = {"COMPUTATION": frame, "COMMUNICATION": frame.slice(1, 1),
            "MEMORY": frame.slice(0, 0)}
    assert kernel_type_breakdown(pl.DataFrame(), runs).equals(
        _kernel_type_breakdown_frames(runs))


def _kernel_type_breakdown_frames(runs: KindRuns) -> pl.DataFrame:
    """The kernel-type sweep in polars (the reference): an edge without a time sorts first,
    and a span to or from it has no length."""
    edges = pl.concat([
        runs[kind].select(
            pl.concat_list("hts", "hend").alias("time"),
            pl.lit([1 << bit, -(1 << bit)], dtype=pl.List(pl.Int64)).alias("delta"))
        .explode("time", "delta")
        for bit, kind in enumerate(KINDS)
    ]).sort("time", maintain_order=True)
    spans = edges.select(pl.col("delta").cum_sum().alias("running"),
                         (pl.col("time").shift(-1) - pl.col("time")).alias("ns")
                         ).filter(pl.col("ns").is_not_null() & (pl.col("running") > 0))
    sums = spans.group_by("running", maintain_order=True).agg(pl.col("ns").sum())
    return _kernel_type_rows(sums.sort("ns", descending=True, maintain_order=True).rows())
