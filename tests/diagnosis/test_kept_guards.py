"""The guard rails' kept parts give what the plain computation gives: ``grid-cannot-fill``'s
launch evidence and text kept by the identities of the shape values it reads, and the low
occupancy's evidence made once per ``Facts``."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from kernelscope.kinds.ncu.analysis.diagnosis import (
    classify,
    derived,
    engine,
    launch,
    occupancy_guards,
)
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.derived import GridFit
from kernelscope.kinds.ncu.analysis.diagnosis.evidence import ev
from kernelscope.kinds.ncu.analysis.diagnosis.facts import Facts
from kernelscope.kinds.ncu.analysis.diagnosis.guards import guard_rails
from kernelscope.kinds.ncu.analysis.diagnosis.occupancy_guards import grid_cannot_fill
from kernelscope.kinds.ncu.analysis.diagnosis.result import GuardRail
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import DEFAULT_THRESHOLDS, Thresholds
from tests.diagnosis.sample_kernels import first_summaries
from tests.diagnosis.test_kept_readings import _facts, _fresh

T = DEFAULT_THRESHOLDS


def test_grid_cannot_fill_kept_is_the_plain_one() -> None:
    """Each launch's guard rail, read again from what the first reading kept, is the one
    worked out from new objects with nothing kept; many_launches raises it."""
    raised = 0
    for summary in first_summaries("many_launches"):
        first = grid_cannot_fill(_facts(summary.metrics), T)
        again = grid_cannot_fill(_facts(summary.metrics), T)
        plain = _plain(_facts(_fresh(summary.metrics)), T)
        assert first == again == plain
        raised += plain is not None
    assert raised


def _raising() -> Facts:
    """The first launch of many_launches that raises ``grid-cannot-fill``."""
    return next(
        f for f in (_facts(s.metrics) for s in first_summaries("many_launches"))
        if grid_cannot_fill(f, T) is not None
    )


def _plain(f: Facts, t: Thresholds) -> GuardRail | None:
    """``grid_cannot_fill`` with nothing kept."""
    occupancy_guards._GRID_PARTS.clear()
    return grid_cannot_fill(f, t)


@pytest.mark.parametrize(
    "change",
    [{"grid": 3.0}, {"grid": 1.0}, {"sm_count": 500.0}, {"waves": 0.25, "grid": 400.0},
     {"theoretical": 75.0}, {"theoretical": None}, {"achieved": 5.0}],
)
def test_grid_cannot_fill_follows_each_value_it_reads(change: dict[str, Any]) -> None:
    """A launch that differs in one value the kept part reads gets its own part, even with
    the same ``GridFit`` object where the value is not one the fit reads: the guard rail of
    the changed launch, read after the kept one, is the one worked out afresh."""
    base = _raising()
    changed = dataclasses.replace(base, **change)
    if not change.keys() & {"grid", "sm_count", "waves"}:
        changed.__dict__["grid_fit"] = base.grid_fit
    grid_cannot_fill(base, T)
    kept = grid_cannot_fill(changed, T)
    assert kept == _plain(changed, T)
    assert kept != grid_cannot_fill(base, T)


def test_grid_cannot_fill_follows_the_thresholds() -> None:
    """Other thresholds of the same launch give their own bars, not the kept ones."""
    f = _raising()
    other = Thresholds(waves_fill=0.5, occupancy_low_pct=70.0)
    grid_cannot_fill(f, T)
    kept = grid_cannot_fill(f, other)
    assert kept == _plain(f, other)
    assert kept != grid_cannot_fill(f, T)


@pytest.mark.parametrize("name", ["many_launches", "gemm_sets_full", "zoo"])
def test_low_evidence_is_the_low_readings(name: str) -> None:
    """The low occupancy's evidence, made once per ``Facts`` and thresholds, is each low
    reading's evidence at those thresholds, and the guard rails cite it as made afresh."""
    other = Thresholds(occupancy_low_pct=90.0)
    for summary in first_summaries(name):
        f = _facts(summary.metrics)
        for t in (T, other, T):
            assert f.low_evidence(t) == tuple(
                ev("occupancy", metric, v, "<", t.occupancy_low_pct, "%")
                for metric, v in f.low_occupancy(t)
            )
        assert guard_rails(f, T) == guard_rails(_facts(_fresh(summary.metrics)), T)


@pytest.mark.parametrize(
    ("grid", "sm_count"), [(16.0, 132.0), (16.0, 108.0), (200.0, 132.0), (None, 132.0),
                           (float("nan"), 132.0), (1.0, 1e9)],
)
def test_grid_evidence_kept_is_the_plain_one(grid: float | None, sm_count: float) -> None:
    """The grid against the SMs, kept by the identities of the two values, is the evidence
    made afresh: read twice, and after another grid or SM count was kept."""
    plain = ev("launch", n.GRID_SIZE, grid, "<", sm_count, "block",
               note=f"{n.SM_COUNT} = {sm_count:.0f}")
    launch.grid_against_sms(grid, sm_count + 1.0)  # the same grid object on other SMs
    first = launch.grid_against_sms(grid, sm_count)
    assert launch.grid_against_sms(grid, sm_count) is first
    assert repr(first) == repr(plain)


@pytest.mark.parametrize(
    ("duration", "threshold"), [(2560.0, 5000.0), (2560, 5000.0), (2560.0, 5000), (0.0, 5000.0),
                                (-0.0, 5000.0), (float("nan"), 5000.0), (None, 5000.0),
                                (1e12, 5000.0)],
)
def test_duration_evidence_kept_is_the_plain_one(
    duration: float | None, threshold: float
) -> None:
    """The duration against the short-kernel threshold, kept by the two values (positive
    floats alone), is the evidence made afresh (its value's and threshold's types and
    signs too), read twice and after an equal value of another type was kept."""
    plain = ev("launch", n.DURATION, duration, "<", threshold, "ns")
    t = dataclasses.replace(DEFAULT_THRESHOLDS, short_kernel_ns=threshold)
    other = 2560 if isinstance(duration, float) else 2560.0
    launch.duration_evidence(_with_duration(other), t)
    first = launch.duration_evidence(_with_duration(duration), t)
    again = launch.duration_evidence(_with_duration(duration), t)
    assert repr(first) == repr(plain) and repr(again) == repr(plain)
    assert type(first.value) is type(duration) and type(first.threshold) is type(threshold)
    if duration == 2560.0 and type(duration) is float:
        assert again is first


def _with_duration(duration: float | None) -> Any:
    """What ``duration_evidence`` reads of a kernel's facts: its duration."""
    return type("DurationOnly", (), {"duration_ns": duration})()


def test_idle_sms_words_follow_the_fit_and_sm_count() -> None:
    """The launch-bound sentence's idle SMs, kept by the fit and SM count, are the words made
    afresh, for the same fit read with another SM count as well."""
    fit = GridFit(16.0, 132.0, 0.015, 8.0)
    for sm_count in (132.0, 1320.0, None, 132.0):
        words = launch._idle_sms_words(fit, sm_count)
        assert words == (
            f"leaves {fit.idle_sms or 0:,.0f} of the {sm_count or 0:,.0f} SMs without a block"
        )
    assert launch._idle_sms_words(GridFit(1.0, 132.0, 0.01), 132.0).startswith("leaves 131 ")


@pytest.mark.parametrize("launches", [2, 250, 1000, 1234567, 250])
def test_family_words_kept_are_the_plain_ones(launches: int) -> None:
    """A family's share evidence and note, with its words kept by the number of launches,
    read as formatted afresh, after another family's were kept."""
    engine._family_words(launches + 1)
    weighed = engine.with_time_share(
        engine.undetermined("x"), 0.001, 0.004, launches
    )
    e = weighed.bottleneck.evidence[0]
    assert e.metric == f"share of profiled GPU time of its family of {launches:,} launches"
    assert weighed.notes[0] == (
        f"This kernel's family of {launches:,} launches is 0.40% of the profiled GPU time."
    )


@pytest.mark.parametrize(
    "readings",
    [{"sm": 50.0, "mem": 50.0, "busiest_pipe": ("FMA", "fma", 50.0)},
     {"sm": 20.0, "mem": 30.0, "busiest_pipe": ("FMA", "fma", 40.0),
      "busiest_other": ("LSU", "lsu", 40.0)},
     {"sm": None, "mem": None, "dram": None, "l1": None, "l2": None,
      "busiest_pipe": None, "busiest_other": ("ALU", "alu", 10.0)},
     {"sm": None, "mem": None, "dram": None, "l1": None, "l2": None,
      "busiest_pipe": None, "busiest_other": None},
     {"sm": 90.0, "l2": 90.0, "busiest_other": ("LSU", "lsu", 89.0)}],
)
def test_busiest_unit_is_the_first_at_the_top(readings: dict[str, Any]) -> None:
    """The busiest unit or pipe is what ``max`` gives of them all, ties to the first."""
    f = dataclasses.replace(_raising(), active_share=None, **readings)
    units = [(w, m, v) for w, m, v in (
        ("SM", n.SM_PCT, f.sm), ("memory", n.MEM_PCT, f.mem), ("DRAM", n.DRAM_PCT, f.dram),
        ("L1/TEX", n.L1_PCT, f.l1), ("L2", n.L2_PCT, f.l2)) if v is not None]
    units += [(f"{p[0]} pipe", p[1], p[2]) for p in (f.busiest_pipe, f.busiest_other)
              if p is not None]
    assert f.busiest_unit == (max(units, key=lambda u: u[2]) if units else None)


@pytest.mark.parametrize(
    "readings",
    [{"dram": 40.0, "l2": 40.0, "l1": 10.0, "mem": 40.0},
     {"dram": None, "l2": 20.0, "l1": 30.0, "mem": 30.0},
     {"dram": None, "l2": None, "l1": None, "mem": None},
     {"dram": 5.0, "l2": None, "l1": None, "mem": 6.0}],
)
def test_busiest_memory_unit_is_the_first_at_the_top(readings: dict[str, Any]) -> None:
    """The busiest memory unit is what ``max`` gives of them, ties to the first."""
    f = dataclasses.replace(_raising(), **readings)
    units = [(w, m, v) for w, m, v in (
        ("DRAM", n.DRAM_PCT, f.dram), ("L2", n.L2_PCT, f.l2), ("L1/TEX", n.L1_PCT, f.l1),
        ("The memory path", n.MEM_PCT, f.mem)) if v is not None]
    expected = max(units, key=lambda u: u[2]) if units else None
    assert classify._busiest_memory_unit(f) == expected


@pytest.mark.parametrize(
    ("loads", "stores"),
    [(4.0, 8.0), (8.0, 4.0), (4.0, 4.0), (None, 4.0), (4.0, None), (None, None)],
)
def test_sector_bytes_is_the_worse_ratio(loads: float | None, stores: float | None) -> None:
    """The worse bytes-per-sector ratio is what ``min`` gives of the known ones, ties to the
    loads."""
    f = dataclasses.replace(_raising(), ld_bytes_per_sector=loads, st_bytes_per_sector=stores)
    known = [(m, v) for m, v in ((n.GLOBAL_LD_BYTES_PER_SECTOR, loads),
                                 (n.GLOBAL_ST_BYTES_PER_SECTOR, stores)) if v is not None]
    assert f.sector_bytes == (min(known, key=lambda x: x[1]) if known else None)


@pytest.mark.parametrize(
    "shares",
    [{"a": 0.6, "b": 0.2}, {"a": 0.6, "b": 0.6}, {"b": 0.7, "a": 0.7, "c": 0.1},
     {"a": 0.3}, {"a": 0.0, "b": -0.0}, {}, {"z": 0.9, "y": 0.95, "x": 0.95}],
)
def test_leading_stall_is_the_largest_share(shares: dict[str, float]) -> None:
    """The leading stall is what ``max`` by (share, name) gives, above the lead share."""
    expected = None
    if shares:
        name, value = max(shares.items(), key=lambda item: (item[1], item[0]))
        expected = (name, value) if value > T.stall_lead_share else None
    assert derived.leading_stall(shares) == expected
