"""The facts of a launch read from every metric but its own readings of time, throughput and
achieved occupancy (``LAUNCH_READINGS``): its shape, pipes, stalls, memory path and atomics.

A loop's launches differ in those few readings and repeat the rest: the reader hands out one
``Metric`` object for every launch that stores the same bytes, so the 8,676 launches of a
report collected with the launch statistics hold a handful of sets of other metric objects.
``shared_facts`` works each set out once (``gather`` then reads the launch's own readings
alone) and keeps it by the identities of those objects, held so that their ids stay theirs.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from operator import itemgetter
from typing import Any, NamedTuple

from kernelscope.core.memo import Memo
from kernelscope.kinds.ncu.analysis.diagnosis import derived as d
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.memory_path import memory_path_facts, positive
from kernelscope.kinds.ncu.analysis.diagnosis.pipe_readings import TENSOR as _TENSOR
from kernelscope.kinds.ncu.analysis.diagnosis.pipe_readings import busiest as _busiest
from kernelscope.kinds.ncu.analysis.diagnosis.pipe_readings import read_pipes as _pipes
from kernelscope.kinds.ncu.analysis.diagnosis.shape import shape_facts
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import Thresholds
from kernelscope.kinds.ncu.analysis.diagnosis.values import Values, share
from kernelscope.kinds.ncu.model.metrics import Metric

READ_AT_LAUNCH = (
    (n.DURATION, False), (n.SM_PCT, True), (n.MEM_PCT, True), (n.DRAM_PCT, True),
    (n.L1_PCT, True), (n.L2_PCT, True), (n.ACHIEVED_OCC, False),
)
"""The metrics ``gather`` reads for each launch itself, in its order, each with whether it is
a percentage of peak checked against the ceiling."""
LAUNCH_READINGS = frozenset(name for name, _ in READ_AT_LAUNCH)
"""Those metrics, which ``shared_facts`` never reads."""

Readings = tuple[tuple[int, str, bool], ...]
"""(place in ``READ_AT_LAUNCH``, name, checked) of some of its metrics."""


ALL_READINGS: Readings = tuple(
    (at, name, checked) for at, (name, checked) in enumerate(READ_AT_LAUNCH)
)
"""Every one of ``READ_AT_LAUNCH``, with its place: what ``gather`` reads of a mapping whose
names are not known (one not held reads None)."""


def held_readings(names: Collection[str]) -> Readings:
    """Those of ``ALL_READINGS`` among ``names``: the others read None (a report collected
    with the launch statistics alone holds two of seven)."""
    return tuple(reading for reading in ALL_READINGS if reading[1] in names)


class SharedFacts(NamedTuple):
    """What ``gather`` takes of ``shared_facts``."""

    fields: dict[str, Any]
    """The ``Facts`` fields read from the metrics other than ``LAUNCH_READINGS``, and the
    values ``Facts`` derives from the shape's fields alone (``shape.ShapeFacts``): copied
    into each launch's facts, never changed."""
    unreliable: tuple[str, ...]
    """Those metrics above ``Thresholds.pct_ceiling`` (set aside as noise), in reading order."""
    readings: Readings
    """Those of ``READ_AT_LAUNCH`` the metrics may hold: all ``gather`` reads of the launch
    itself. Kept, those among the names of the dict (part of the memo's key); else all."""


class _ByNames:
    """What ``shared_facts`` keeps for the metrics mappings of one list of names and one
    ``Thresholds``: how to take the metrics other than ``LAUNCH_READINGS`` out of one (in
    its order), and each set of those objects' facts by their ids, with the objects (held,
    so that their ids stay theirs)."""

    __slots__ = ("held", "kept", "memo", "readings")

    def __init__(self, names: tuple[str, ...], t: Thresholds) -> None:
        kept = tuple(name for name in names if name not in LAUNCH_READINGS)
        self.held: Callable[[dict[str, Metric]], tuple[Any, ...]] = (
            itemgetter(*kept) if len(kept) > 1 else lambda metrics: tuple(map(metrics.get, kept))
        )
        self.kept = t
        """The thresholds these facts were read at (held for its id: the memo's key)."""
        self.memo: Memo[tuple[int, ...], tuple[tuple[Any, ...], SharedFacts]] = Memo(_PER_NAMES)
        self.readings = held_readings(frozenset(names))
        """The launch's own readings among the names (``SharedFacts.readings``)."""


class _Misses:
    """The launches the memo missed in a row: from ``_PER_NAMES`` on (a report whose
    launches share none of their other metric objects: each reads its own counters) it is
    asked, and filled, once every ``_RETRY_AFTER`` launches only."""

    count = 0


_PER_NAMES = 64
"""The sets of metric objects kept for one list of names."""
_RETRY_AFTER = 1024
_BY_NAMES: Memo[tuple[tuple[str, ...], int], _ByNames] = Memo(16)
"""What is kept for each list of names a metrics mapping holds, and thresholds' id."""


def shared_facts(values: Values, t: Thresholds) -> SharedFacts:
    """The launch's facts read from its metrics other than ``LAUNCH_READINGS`` (the module),
    kept for a dict of ``Metric`` objects by the identities of those objects and of ``t``
    (both immutable: the same objects are the same values) and by the dict's names, which
    say which metrics are absent. Any other mapping is worked out each time."""
    metrics = values.metrics
    misses = _Misses.count
    if misses >= _PER_NAMES or type(metrics) is not dict:
        if misses >= _PER_NAMES:  # one more try every _RETRY_AFTER launches (_Misses)
            _Misses.count = misses + 1 if misses < _RETRY_AFTER else _PER_NAMES - 1
        return worked_out(values, t)
    key = (tuple(metrics), id(t))
    by_names = _BY_NAMES.get(key)
    if by_names is None:
        by_names = _BY_NAMES.keep(key, _ByNames(key[0], t))
    held = by_names.held(metrics)
    ids = tuple(map(id, held))
    found = by_names.memo.get(ids)
    if found is not None:
        _Misses.count = 0
        return found[1]
    _Misses.count = misses + 1
    made = worked_out(values, t, by_names.readings)
    if set(map(type, held)) <= {Metric}:
        by_names.memo.keep(ids, (held, made))
    return made


def worked_out(values: Values, t: Thresholds, readings: Readings = ALL_READINGS) -> SharedFacts:
    """``shared_facts`` without the memo; ``readings``: those of the launch's own readings the
    metrics may hold (all, unless their names are known)."""
    unreliable: list[str] = []
    shape, shape_derived = shape_facts(values.metrics)
    atomic_requests, atomic_request_share = _atomic_requests(values)
    atomic_max = pct_read(values, n.ATOMIC_SLICE_MAX, unreliable, t.pct_ceiling)
    latency = positive(values, n.WARP_LATENCY)
    active_share = d.active_sm_share(values.metrics)
    pipes = _pipes(values, active_share)
    busiest_pipe, busiest_other = _busiest(pipes)
    fields = {
        "busiest_pipe": busiest_pipe,
        "busiest_other": busiest_other,
        "threads_per_inst": positive(values, n.THREADS_PER_INST),
        "issue_active": values.num(n.ISSUE_ACTIVE),
        "latency": latency,
        "stall_shares": _stall_shares(values, latency),
        "atomic_slice_max": atomic_max,
        "atomic_slice_avg": values.num(n.ATOMIC_SLICE_AVG),
        "atomic_requests": atomic_requests,
        "atomic_request_share": atomic_request_share,
        "tensor_pipe": _tensor_pipe(pipes),
        **memory_path_facts(values, t),
        "active_share": active_share,
        "pipes": pipes,
        **shape,
        **shape_derived,
    }
    return SharedFacts(fields, tuple(unreliable), readings)


def pct_read(values: Values, name: str, unreliable: list[str], ceiling: float) -> float | None:
    """The percentage ``name`` reads, None above ``ceiling`` (its name noted in
    ``unreliable``: measurement noise)."""
    v = values.num(name)
    if v is not None and v > ceiling:
        unreliable.append(name)
        return None
    return v


def _tensor_pipe(pipes: tuple[tuple[str, str, float], ...]) -> tuple[str, float] | None:
    """(metric read, %) of the first tensor pipe among ``pipes``, if any."""
    for label, metric, pct in pipes:
        if label == _TENSOR:
            return metric, pct
    return None


def _atomic_requests(values: Values) -> tuple[float | None, float | None]:
    parts = [values.num(n.GLOBAL_ATOM_REQUESTS), values.num(n.GLOBAL_RED_REQUESTS)]
    if parts[0] is None and parts[1] is None:  # no atomics read (most reports)
        return None, None
    atomic = sum(v for v in parts if v is not None)
    other = [values.num(n.GLOBAL_LD_REQUESTS), values.num(n.GLOBAL_ST_REQUESTS)]
    return atomic, share(atomic, atomic + sum(v for v in other if v is not None))


def _stall_shares(values: Values, latency: float | None) -> dict[str, float]:
    out: dict[str, float] = {}
    if latency is None:  # no share without the cycles between issues
        return out
    for name in n.STALL_REASONS:
        s = share(values.num(name), latency)
        if s is not None:
            out[name] = s
    return out
