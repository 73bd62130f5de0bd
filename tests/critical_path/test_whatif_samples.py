"""The what-if against a re-run (issue 37): ``samples/whatif/`` holds four single-GPU programs
(``samples/torch/whatif_cases.py``), each traced by torch.profiler and by nsys as a base and as
a variant in which one part really is faster (samples/README.md, "What-if pairs").
``whatif BASE --faster NAME=2`` is compared with the variant's own measured median step.

Measured on the committed traces (ms; torch.profiler / nsys):

| case | fast, measured | what-if | naive: base minus the time saved |
| --- | --- | --- | --- |
| serial | 6.24 / 6.34 | 6.35 / 6.36 | 6.35 / 6.36 |
| beside | 9.69 / 8.63 | 10.57 / 9.42 | 7.61 / 6.75 |
| hidden | 10.15 / 10.04 | 10.17 / 10.04 | 8.14 / 8.04 |
| shift | 7.16 / 6.87 | 8.34 / 7.43 | 5.16 / 4.52 |

Every what-if lands within 15 % of the re-run but one: in ``shift`` under torch.profiler the
spin kernel ran 8.16 ms beside six GEMMs and 6.98 ms beside three; the model keeps its
measured 8.16 ms, and that difference is the what-if's whole error (16.6 %). These traces
cannot say whether the SMs the GEMMs took or a lower clock slowed it; the same pair traced with
the GPU's metrics (``samples/whatif/metrics``, ``test_beside_clock.py``) shows the clock: the
spin ran at 1,521 MHz beside six GEMMs and 1,721 MHz beside three, on a GPU whose top is 1,980.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from kernelscope.export.whatif import timeline_of
from kernelscope.timeline.analysis.critical_path.vocabulary import EVENT, GPU
from kernelscope.timeline.analysis.critical_path.whatif import Faster
from tests.conftest import SAMPLES

WHATIF = SAMPLES / "whatif"
FASTER = {"serial": "spin_kernel", "beside": "spin_kernel", "hidden": "spin_kernel",
          "shift": "nvjet"}
"""The what-if of each case, as samples/README.md names it (``shift``: the GEMM kernel)."""
KINDS = ("pt.trace.json.xz", "sqlite.xz")
BESIDE_MORE_WORK = pytest.mark.xfail(
    strict=True, reason="the spin kernel counts SM cycles: beside six GEMMs the GPU's clock "
    "was 1.46 GHz, beside three for half its time 1.70 GHz; the model keeps a duration as "
    "measured (docs/critical_path.md)")


def _base(case: str, kind: str) -> dict[str, Any]:
    """The base's measured and predicted median step, the naive estimate, the spin's time."""
    def answer(data: Any) -> dict[str, Any]:
        result = data.critical_model.whatif([Faster(FASTER[case], 2.0)])
        graph = data.critical_model.graph
        matched = graph.nodes.filter((pl.col("cls") == GPU)
                                     & pl.col("name").cast(pl.String).str.contains(FASTER[case]))
        saved = [int((part["end"] - part["start"]).sum()) // 2 for part in (
            matched.filter((pl.col("start") >= s0) & (pl.col("start") < s1))
            for s0, s1 in graph.steps.select("start", "end").iter_rows())]
        naive = pl.Series([m - s for m, s in zip(result.steps["measured_ns"].to_list(), saved,
                                                 strict=True)]).median()
        return {"measured": result.measured_step_ns, "predicted": result.predicted_step_ns,
                "naive": naive, "spin": _spin(data), "after": result.after,
                "beside": result.beside}
    return dict(timeline_of(WHATIF / f"{case}_base.{kind}", None, answer))


def _fast(case: str, kind: str) -> tuple[int, float]:
    """The variant's measured median step and its spin kernel's median time."""
    return tuple(timeline_of(WHATIF / f"{case}_fast.{kind}", None,  # type: ignore[return-value]
                             lambda data: (data.critical_path.median_step_ns, _spin(data))))


def _spin(data: Any) -> float:
    spins = data.report.kernels.filter(pl.col("name").cast(pl.String).str.contains("spin_kernel"))
    return float((spins["end"] - spins["start"]).median())


CASES = [pytest.param(case, kind, marks=BESIDE_MORE_WORK if (case, kind) == ("shift", KINDS[0])
                      else ()) for case in FASTER for kind in KINDS]


@pytest.mark.parametrize(("case", "kind"), CASES)
def test_whatif_lands_within_15_percent_of_the_rerun(case: str, kind: str) -> None:
    base = _base(case, kind)
    fast, _ = _fast(case, kind)
    assert abs(base["predicted"] - fast) <= 0.15 * fast, (base["predicted"], fast)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", ["beside", "hidden", "shift"])
def test_off_the_path_the_whatif_beats_the_naive_estimate(case: str, kind: str) -> None:
    """The naive estimate (the base minus the time the kernel saves) misses by 20-34 %."""
    base = _base(case, kind)
    fast, _ = _fast(case, kind)
    assert abs(base["naive"] - fast) > 0.19 * fast
    assert abs(base["predicted"] - fast) < abs(base["naive"] - fast)


@pytest.mark.parametrize("kind", KINDS)
def test_halving_the_longer_chain_makes_the_spin_the_path(kind: str) -> None:
    """``shift``: after the what-if the spin kernel on the side stream is most of every
    step's path, and the prediction's error is the spin's own change beside fewer GEMMs."""
    base = _base("shift", kind)
    fast, fast_spin = _fast("shift", kind)
    kinds = base["after"].breakdown.filter(pl.col("kind") == "kernel")
    assert kinds["name"].item(0).endswith("spin_kernel(long)")
    assert float(kinds["pct"].item(0)) > 75
    error = base["predicted"] - fast
    assert abs(error - (base["spin"] - fast_spin)) <= 0.05 * fast


SPIN_MS = {"serial": 4.0, "hidden": 4.0, "shift": 6.0}
"""What the spin kernel of each case's base is asked to spin (``shift``'s fast too), in ms of
the top SM clock (1.98 million cycles per ms, samples/torch/whatif_cases.py)."""


@pytest.mark.parametrize("kind", KINDS)
def test_beside_the_gemms_the_gpu_clock_is_lower(kind: str) -> None:
    """The spin counts SM cycles, so its cycles over its time are the clock it ran at: near
    the top (1.98 GHz) alone, at most 1.65 GHz beside GEMMs, the change the what-if of
    ``shift`` cannot see (docs/critical_path.md)."""
    def clock_ghz(case: str, variant: str) -> float:
        spin_ns = timeline_of(WHATIF / f"{case}_{variant}.{kind}", None, _spin)
        return SPIN_MS[case] * 1.98e6 / spin_ns
    assert clock_ghz("serial", "base") > 1.9 and clock_ghz("hidden", "base") > 1.9
    assert clock_ghz("shift", "base") < 1.65 < clock_ghz("shift", "fast") < 1.9


def test_the_samples_are_there() -> None:
    assert sorted(p.name for p in WHATIF.glob("*_base.*")) == sorted(
        f"{case}_base.{kind}" for case in FASTER for kind in (*KINDS, "nsys.steps.json.xz",
                                                              "steps.json.xz"))




@pytest.mark.parametrize("kind", KINDS)
def test_a_wait_edge_ends_on_the_stream_the_sync_record_names(kind: str) -> None:
    """``shift`` waits across streams both ways (``wait_stream``); nsys's synchronisation
    table and Kineto's ``cuda_sync`` events name the stream that waits, and every event edge
    ends on a launch to that stream."""
    def check(data: Any) -> tuple[set[int], set[int]]:
        sync = data.report.sync.filter(pl.col("sync_type") == 2)
        waiting = set((sync["device_id"] * (1 << 32) + sync["stream_id"]).to_list())
        graph = data.critical_model.graph
        events = graph.edges.filter(pl.col("etype") == EVENT)
        return waiting, set(graph.nodes["lane"].gather(events["dst"]).to_list())
    waiting, ends = timeline_of(WHATIF / f"shift_base.{kind}", None, check)
    assert len(waiting) == 2 and ends and ends <= waiting


def test_the_predicted_path_names_cpu_time_by_the_ranges_of_the_trace() -> None:
    """A CPU gap on the predicted path is named where the trace has it, not where the replay
    moved it: a gap on both paths whole gets the same name on both."""
    def paths(data: Any) -> tuple[pl.DataFrame, pl.DataFrame]:
        answer = data.critical_model.whatif([Faster(FASTER["serial"], 2.0)])
        return answer.before.segments, answer.after.segments

    before, after = timeline_of(WHATIF / "serial_base.pt.trace.json.xz", None, paths)
    keys = ["step", "node", "edge", "ns"]
    both = before.filter(pl.col("kind") == "cpu").join(
        after.filter(pl.col("kind") == "cpu"), on=keys, suffix="_after")
    assert both.height >= 10
    assert both["name"].to_list() == both["name_after"].to_list()
    named = after.filter(pl.col("kind") == "cpu").group_by("name").agg(pl.col("ns").sum())
    assert dict(named.iter_rows())["aten::mm"] > 100_000  # the matmuls' host time stays theirs
