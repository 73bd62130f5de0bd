"""The diagnosis' kept readings give what the plain computation gives: a launch shape's facts
kept by its Metric objects (``shape.shape_facts``), ``grid-too-small`` kept by its shared
``GridFit``, the durations formatted once per value, the low occupancy and the busiest unit
read once per ``Facts``, the memory path of a report without its metrics, and the NaN
metrics looked for only where a key metric was not read as a number."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

import pytest

from kernelscope.core.durations import fmt_duration
from kernelscope.kinds.ncu.analysis.diagnosis import (
    derived,
    launch,
    memory_path,
    shape,
    shared_facts,
)
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.engine import _classified, diagnose
from kernelscope.kinds.ncu.analysis.diagnosis.facts import Facts, gather
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import DEFAULT_THRESHOLDS
from kernelscope.kinds.ncu.analysis.diagnosis.values import Values
from kernelscope.kinds.ncu.analysis.roofline.compute import compute_roofline
from kernelscope.kinds.ncu.model.metrics import Metric
from tests.diagnosis.sample_kernels import REPORTS, first_summaries


def _fresh(metrics: Mapping[str, Metric]) -> dict[str, Metric]:
    """The same metrics as new objects: nothing kept by their identities applies to them."""
    return {name: Metric(*m) for name, m in metrics.items()}


def _forget() -> None:
    shape._SHAPES.clear()
    shared_facts._BY_NAMES.clear()
    launch._GRID_OUTCOMES.clear()
    derived._DURATION_TEXTS.clear()


def _facts(metrics: Mapping[str, Metric]) -> Facts:
    return gather(Values(metrics), compute_roofline(metrics), DEFAULT_THRESHOLDS)


@pytest.mark.parametrize("name", REPORTS)
def test_kept_diagnosis_is_the_plain_one(name: str) -> None:
    """Each kernel diagnosed twice (the second time from what the first kept) and once more
    from new objects with nothing kept: the same diagnosis, the same facts."""
    for summary in first_summaries(name):
        first = diagnose(summary.metrics, summary.rules, summary.sections)
        kept = diagnose(summary.metrics, summary.rules, summary.sections)
        kept_facts = _facts(summary.metrics)
        _forget()
        fresh = _fresh(summary.metrics)
        plain = diagnose(fresh, summary.rules, summary.sections)
        plain_facts = _facts(fresh)
        assert first.to_dict() == kept.to_dict() == plain.to_dict()
        assert kept_facts == plain_facts
        assert kept_facts.grid_fit == plain_facts.grid_fit
        assert kept_facts.fills_gpu == plain_facts.fills_gpu


def test_shape_facts_follow_the_metric_objects() -> None:
    """Two launches that differ in one configuration metric get their own shape facts; a
    mapping of other objects than Metric is worked out each time, never kept."""
    base = {
        n.GRID_SIZE: Metric(n.GRID_SIZE, 16, "block"),
        n.BLOCK_SIZE: Metric(n.BLOCK_SIZE, 256, "thread"),
        n.SM_COUNT: Metric(n.SM_COUNT, 132, "SM"),
        n.WAVES: Metric(n.WAVES, 0.25, "wave"),
    }
    wider = {**base, n.GRID_SIZE: Metric(n.GRID_SIZE, 1024, "block")}
    fields, fit = shape.shape_facts(base)
    other_fields, other_fit = shape.shape_facts(wider)
    assert fields["grid"] == 16.0 and other_fields["grid"] == 1024.0
    assert fit["grid_fit"] != other_fit["grid_fit"]
    assert shape.shape_facts(base) == shape.worked_out(base)
    kept = len(shape._SHAPES)
    shape.shape_facts({n.GRID_SIZE: Metric(n.GRID_SIZE, 8, "block")._replace()})
    assert len(shape._SHAPES) == kept + 1
    shape.shape_facts({n.GRID_SIZE: dataclasses.make_dataclass("M", ["value"])(8)})
    assert len(shape._SHAPES) == kept + 1


def test_grid_outcome_kept_by_fit_and_thresholds() -> None:
    strict = dataclasses.replace(DEFAULT_THRESHOLDS, grid_warning_fraction=0.01,
                                 grid_critical_fraction=0.001)
    for grid in (1.0, 16.0, 100.0, 132.0, 1024.0):
        metrics = {n.GRID_SIZE: Metric(n.GRID_SIZE, grid, "block"),
                   n.SM_COUNT: Metric(n.SM_COUNT, 132, "SM"),
                   n.WAVES: Metric(n.WAVES, grid / 528, "wave")}
        facts = _facts(metrics)
        for t in (DEFAULT_THRESHOLDS, strict, DEFAULT_THRESHOLDS):
            assert launch.grid_too_small(facts, t, {}) == launch.grid_outcome(
                derived.grid_fit(facts.grid, facts.sm_count, facts.waves, facts.limits), t)


@pytest.mark.parametrize("ns", [-0.0, 0.0, -5.0, 1.0, 999.5, 2464.0, 1.5e6, 3.2e9, 7, 0])
def test_duration_text_is_fmt_duration(ns: float) -> None:
    assert derived.duration_text(ns) == fmt_duration(ns)
    assert derived.duration_text(ns) == fmt_duration(ns)  # the kept one, where kept


def test_low_occupancy_and_busiest_unit_read_once_are_the_plain_ones() -> None:
    other = dataclasses.replace(DEFAULT_THRESHOLDS, occupancy_low_pct=80.0)
    for summary in first_summaries("zoo"):
        facts = _facts(summary.metrics)
        for t in (DEFAULT_THRESHOLDS, other, DEFAULT_THRESHOLDS):
            plain = derived.low_occupancy_readings(facts.achieved, facts.theoretical, t)
            assert list(facts.low_occupancy(t)) == plain
        units = [(w, m, v) for w, m, v in (
            ("SM", n.SM_PCT, facts.sm_active), ("memory", n.MEM_PCT, facts.mem),
            ("DRAM", n.DRAM_PCT, facts.dram), ("L1/TEX", n.L1_PCT, facts.l1),
            ("L2", n.L2_PCT, facts.l2)) if v is not None]
        units += [(f"{p[0]} pipe", p[1], p[2]) for p in (facts.busiest_pipe,
                                                         facts.busiest_other) if p is not None]
        for threshold in (0.0, 10.0, 50.0, 60.0, 80.0, 100.0):
            busy = [u for u in units if u[2] >= threshold]
            expected = max(busy, key=lambda u: u[2]) if busy else None
            assert facts.saturated_unit(threshold) == expected


def test_memory_path_without_its_metrics_is_the_plain_reading() -> None:
    metrics = {n.DURATION: Metric(n.DURATION, 2000.0, "ns"),
               n.REGISTERS: Metric(n.REGISTERS, 255, "register"),
               n.BLOCK_SIZE: Metric(n.BLOCK_SIZE, 1024, "thread"),
               n.LOCAL_LD_SECTORS: Metric(n.LOCAL_LD_SECTORS, 10, "sector")}
    values = Values(metrics)
    assert memory_path.memory_path_facts(values, DEFAULT_THRESHOLDS) == (
        memory_path._memory_path_read(values, DEFAULT_THRESHOLDS))
    metrics[n.LOCAL_LD_REQUESTS] = Metric(n.LOCAL_LD_REQUESTS, 4, "request")
    found = memory_path.memory_path_facts(Values(metrics), DEFAULT_THRESHOLDS)
    assert found["local_share"] == 1.0
    assert found["spill_evidence"] is not None


@pytest.mark.parametrize("nan", [n.DURATION, n.SM_PCT, n.MEM_PCT, n.DRAM_PCT])
def test_nan_metrics_found_wherever_a_key_metric_is_nan(nan: str) -> None:
    metrics = {name: Metric(name, 50.0, "%") for name in (n.SM_PCT, n.MEM_PCT, n.DRAM_PCT)}
    metrics[n.DURATION] = Metric(n.DURATION, 4000.0, "ns")
    assert _facts(metrics).nan_metrics == ()
    metrics[nan] = Metric(nan, math.nan, "")
    assert _facts(metrics).nan_metrics == (nan,)
    over = {**metrics, n.SM_PCT: Metric(n.SM_PCT, 250.0, "%")}  # unreliable, not NaN
    assert n.SM_PCT not in _facts(over).nan_metrics
    assert _classified(metrics, (), DEFAULT_THRESHOLDS)[1].nan_metrics == (nan,)


@pytest.mark.parametrize("name", REPORTS)
def test_pipes_read_as_active_reading_reads_them(name: str) -> None:
    """The pipes of a report holding only their ``_elapsed`` forms, read without looking for
    the other form, and the busiest of each kind found in one pass, are the plain readings."""
    from kernelscope.kinds.ncu.analysis.diagnosis import pipe_readings

    for summary in first_summaries(name):
        metrics = summary.metrics
        for share in (None, 0.0, 0.001, 0.25, 1.0, derived.active_sm_share(metrics)):
            plain = tuple(
                (label, *p) for label, pipe, elapsed in pipe_readings.PIPES
                if (p := derived.active_reading(metrics, pipe, share, elapsed)) is not None
            )
            pipes = pipe_readings.read_pipes(Values(metrics), share)
            assert pipes == plain
            for is_math, top in zip((True, False), pipe_readings.busiest(pipes), strict=True):
                of_kind = [p for p in pipes if (p[0] in pipe_readings.MATH_PIPES) is is_math]
                assert top == (max(of_kind, key=lambda p: p[2]) if of_kind else None)


@pytest.mark.parametrize("name", REPORTS)
def test_ncu_speedup_reads_every_matching_rule(name: str) -> None:
    from kernelscope.kinds.ncu.analysis.diagnosis.catalog import CATALOG
    from kernelscope.kinds.ncu.analysis.diagnosis.engine import ncu_speedup

    for summary in first_summaries(name):
        rules = tuple(summary.rules)
        for spec in CATALOG.values():
            best: tuple[float | None, str | None] = (None, None)
            for rule in rules:
                for match in spec.rules:
                    title = f"{rule.title} {rule.name}".lower()
                    if rule.rule != match.rule or (
                        match.title_contains and match.title_contains.lower() not in title
                    ):
                        continue
                    named = f"{rule.rule}: {rule.title}" if rule.title else rule.rule
                    pct = rule.speedup_pct
                    if pct is not None and (best[0] is None or pct > best[0]):
                        best = (pct, named)
                    elif best[1] is None:
                        best = (None, named)
            assert ncu_speedup(spec, rules) == best


def test_undetermined_summary_kept_by_its_words() -> None:
    from kernelscope.kinds.ncu.analysis.diagnosis.classify import undetermined

    for why, collect in (("No SOL.", (n.SECTION_SOL,)), ("No SOL.", (n.SECTION_SOL, "X")),
                         ("Other.", (n.SECTION_SOL,)), ("None.", ())):
        for _ in range(2):
            summary = undetermined(why, [], collect).summary
            options = " ".join(f"--section {s}" for s in collect)
            assert summary == (f"{why} Collect {', '.join(collect)} (ncu {options}, or --set "
                               "full)." if collect else why)
