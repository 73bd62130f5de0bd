"""A launch's facts read from its metrics other than its own readings of time, throughput and
achieved occupancy (``shared_facts``), kept by the identities of those metric objects, the
names the mapping holds and the thresholds, are the facts worked out plainly: the part kept
never reads a launch's own readings, a launch with another object, another name or other
thresholds gets its own, and a memo no longer asked gives the same answers."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping

import pytest

from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis import shape, shared_facts
from kernelscope.kinds.ncu.analysis.diagnosis.facts import Facts, gather
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import DEFAULT_THRESHOLDS, Thresholds
from kernelscope.kinds.ncu.analysis.diagnosis.values import Values
from kernelscope.kinds.ncu.analysis.roofline.compute import compute_roofline
from kernelscope.kinds.ncu.model.metrics import Metric
from tests.diagnosis.sample_kernels import REPORTS, first_summaries


class _Asked(Mapping[str, Metric]):
    """A metrics mapping that notes every name whose metric is read of it (whether it holds
    a name is no read: which names a mapping holds is part of the memo's key)."""

    def __init__(self, metrics: Mapping[str, Metric]) -> None:
        self.metrics = dict(metrics)
        self.asked: set[str] = set()

    def __getitem__(self, name: str) -> Metric:
        self.asked.add(name)
        return self.metrics[name]

    def __contains__(self, name: object) -> bool:
        return name in self.metrics

    def __iter__(self) -> Iterator[str]:
        raise AssertionError("the shared facts never list the names")

    def __len__(self) -> int:
        return len(self.metrics)


def _plain(metrics: Mapping[str, Metric], t: Thresholds = DEFAULT_THRESHOLDS) -> Facts:
    """The facts with nothing kept: every metric a new object, the memos emptied."""
    shared_facts._BY_NAMES.clear()
    shape._SHAPES.clear()
    fresh = {name: Metric(*m) for name, m in metrics.items()}
    return gather(Values(fresh), compute_roofline(fresh), t)


def _facts(metrics: Mapping[str, Metric], t: Thresholds = DEFAULT_THRESHOLDS) -> Facts:
    return gather(Values(metrics), compute_roofline(metrics), t)


def _same(facts: Facts, plain: Facts) -> None:
    assert facts == plain and repr(facts) == repr(plain)
    assert vars(facts).keys() == vars(plain).keys()
    fields = {f.name: getattr(facts, f.name) for f in dataclasses.fields(Facts)}
    assert vars(facts).keys() - fields.keys() == {"grid_fit", "fills_gpu"}
    assert facts == Facts(**fields)


@pytest.mark.parametrize("name", REPORTS)
def test_the_shared_part_never_reads_a_launchs_own_readings(name: str) -> None:
    for summary in first_summaries(name):
        asked = _Asked(summary.metrics)
        found = shared_facts.worked_out(Values(asked), DEFAULT_THRESHOLDS)
        assert asked.asked and not asked.asked & shared_facts.LAUNCH_READINGS
        assert found == shared_facts.worked_out(Values(summary.metrics), DEFAULT_THRESHOLDS)


@pytest.mark.parametrize("name", REPORTS)
def test_kept_facts_are_the_plain_ones(name: str) -> None:
    for summary in first_summaries(name):
        first = _facts(summary.metrics)
        kept = _facts(summary.metrics)
        _same(first, _plain(summary.metrics))
        _same(kept, _plain(summary.metrics))


def _launch(achieved: float, duration: float = 5000.0, **other: Metric) -> dict[str, Metric]:
    return {
        n.DURATION: Metric(n.DURATION, duration, "ns"),
        n.GRID_SIZE: GRID,
        n.SM_COUNT: SMS,
        n.THEORETICAL_OCC: THEORETICAL,
        n.ACHIEVED_OCC: Metric(n.ACHIEVED_OCC, achieved, "%"),
        **other,
    }


GRID = Metric(n.GRID_SIZE, 64, "block")
SMS = Metric(n.SM_COUNT, 132, "SM")
THEORETICAL = Metric(n.THEORETICAL_OCC, 100.0, "%")


def test_launches_that_differ_elsewhere_get_their_own_facts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shared_facts._Misses, "count", 0)
    shared_facts._BY_NAMES.clear()
    base = _facts(_launch(12.0))
    assert base.grid == 64.0 and base.achieved == 12.0
    kept = len(next(iter(shared_facts._BY_NAMES.values())).memo)
    again = _facts(_launch(80.0, duration=1.0))  # its own readings alone differ: kept
    assert len(next(iter(shared_facts._BY_NAMES.values())).memo) == kept
    _same(again, _plain(_launch(80.0, duration=1.0)))
    bigger = _launch(12.0)
    bigger[n.GRID_SIZE] = Metric(n.GRID_SIZE, 4096, "block")  # another object, value
    _same(_facts(bigger), _plain(bigger))
    assert _facts(bigger).grid == 4096.0
    renamed = _launch(12.0)
    renamed[n.WAVES] = renamed.pop(n.SM_COUNT)  # the same object under another name
    _same(_facts(renamed), _plain(renamed))
    assert _facts(renamed).sm_count is None
    piped = _launch(12.0, **{n.PIPE_TENSOR: Metric(n.PIPE_TENSOR, 90.0, "%")})
    _same(_facts(piped), _plain(piped))
    strict = dataclasses.replace(DEFAULT_THRESHOLDS, pct_ceiling=50.0)
    over = _launch(12.0, **{n.ATOMIC_SLICE_MAX: Metric(n.ATOMIC_SLICE_MAX, 70.0, "%")})
    for t in (DEFAULT_THRESHOLDS, strict, DEFAULT_THRESHOLDS):
        _same(_facts(over, t), _plain(over, t))
    assert _facts(over, strict).unreliable == (n.ATOMIC_SLICE_MAX,)
    assert _facts(over).unreliable == ()


def test_a_memo_no_longer_asked_answers_plainly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Launches that share no metric object stop the memo for their names (asked again once
    in a while): their facts are the plain ones throughout, and a repeat is kept again once
    the memo is asked."""
    monkeypatch.setattr(shared_facts, "_PER_NAMES", 2)
    monkeypatch.setattr(shared_facts, "_RETRY_AFTER", 6)
    monkeypatch.setattr(shared_facts._Misses, "count", 0)
    shared_facts._BY_NAMES.clear()
    launches = [_launch(10.0 + i, **{n.WAVES: Metric(n.WAVES, 0.1 * i, "wave")})
                for i in range(12)]
    for launch in [*launches, *launches]:
        _same(_facts(launch), _plain(launch))
    shared_facts._BY_NAMES.clear()
    for launch in launches:
        _facts(launch)
    assert shared_facts._Misses.count >= 2
    repeat = launches[-1]
    for _ in range(16):  # one of these asks the memo, which holds the last launch's objects
        _facts(repeat)
    assert shared_facts._Misses.count == 0


def _read_plainly(metrics: Mapping[str, Metric], t: Thresholds) -> tuple[object, ...]:
    """A launch's own readings, its unreliable ones and the NaN ones, read name by name."""
    values = Values(metrics)
    read, unreliable = [], []
    for name, checked in shared_facts.READ_AT_LAUNCH:
        number = values.num(name)
        if checked and number is not None and number > t.pct_ceiling:
            unreliable.append(name)
            number = None
        read.append(number)
    nans = []
    for (name, _), number in zip(shared_facts.READ_AT_LAUNCH[:4], read, strict=False):
        value = getattr(metrics.get(name), "value", None)
        if number is None and isinstance(value, float) and math.isnan(value):
            nans.append(name)
    return tuple(read), tuple(unreliable), tuple(nans)


@pytest.mark.parametrize("name", REPORTS)
def test_a_launchs_own_readings_are_read_as_held(name: str) -> None:
    """``gather`` reads only the launch readings the metrics hold (kept with the shared
    facts, by the names): the same readings as asking each by name, with each of them
    taken out, made NaN, above the ceiling or text, one at a time."""
    t = DEFAULT_THRESHOLDS
    for summary in first_summaries(name, 10):
        metrics = dict(summary.metrics)
        cases = [metrics]
        for reading, _ in shared_facts.READ_AT_LAUNCH:
            cases.append({k: v for k, v in metrics.items() if k != reading})
            for value in (math.nan, 250.0, "text", 7):
                cases.append({**metrics, reading: Metric(reading, value, "%")})
        for case in cases:
            facts = _facts(case)
            read = (facts.duration_ns, facts.sm, facts.mem, facts.dram, facts.l1, facts.l2,
                    facts.achieved)
            plain, unreliable, nans = _read_plainly(case, t)
            assert read == plain
            assert [u for u in facts.unreliable if u in shared_facts.LAUNCH_READINGS] == list(
                unreliable)
            assert facts.nan_metrics == nans
