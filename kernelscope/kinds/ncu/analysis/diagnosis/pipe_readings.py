"""The pipes of a kernel as the diagnosis reads them: each pipe's utilisation on the SMs
that ran (its ``_active`` form, else its ``_elapsed`` form over the SMs' active share), and
the busiest math pipe and other pipe among them."""

from __future__ import annotations

import math
from collections.abc import Mapping

from kernelscope.kinds.ncu.analysis.diagnosis import derived as d
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.values import Values, number
from kernelscope.kinds.ncu.model.metrics import Metric

PIPES = tuple((label, name, n.elapsed_form(name)) for label, name in (*n.BUSY_PIPES,
                                                                         *n.OTHER_PIPES))
"""(label, metric, its ``_elapsed`` form) of each pipe: the math pipes, then the others."""
PIPE_NAMES = frozenset(name for _, *names in PIPES for name in names)
MATH_PIPES = frozenset(label for label, _ in n.BUSY_PIPES)
TENSOR = next(label for label, name in n.BUSY_PIPES if name == n.PIPE_TENSOR)


def read_pipes(values: Values, active_share: float | None) -> tuple[tuple[str, str, float], ...]:
    """(label, metric read, %) of each pipe the report holds (the math pipes, then the
    others), read on the SMs that ran (``derived.active_reading``)."""
    metrics = values.metrics
    keys = metrics.keys()
    if keys.isdisjoint(PIPE_NAMES):  # no pipe collected, in either form
        return ()
    if keys.isdisjoint(ACTIVE_PIPE_NAMES):  # the _elapsed forms alone (Speed Of Light's)
        return _elapsed_pipes(metrics, active_share)
    return tuple(
        (label, *p) for label, name, elapsed in PIPES
        if (p := d.active_reading(metrics, name, active_share, elapsed)) is not None
    )


ACTIVE_PIPE_NAMES = frozenset(name for _, name, _ in PIPES)


def _elapsed_pipes(
    metrics: Mapping[str, Metric], active_share: float | None
) -> tuple[tuple[str, str, float], ...]:
    """``read_pipes`` of a report without any pipe's ``_active`` form: ``derived.active_reading``
    of each ``_elapsed`` form, without looking for the other form again."""
    found = []
    share = active_share if active_share is not None and active_share > 0 else None
    get = metrics.get
    for label, _, elapsed in PIPES:  # each read on the SMs that ran: derived.on_active_sms
        m = get(elapsed)
        if m is None:
            continue
        value = m.value if type(m) is Metric else None
        if type(value) is not float:  # number's other cases; a float is read as it does
            value = number(metrics, elapsed)
        elif not _isfinite(value):
            continue
        if value is None:
            continue
        if share is not None:  # min(100.0, value / share), without the call
            value = value / share
            if not value < 100.0:
                value = 100.0
        found.append((label, elapsed, value))
    return tuple(found)


_isfinite = math.isfinite


Pipe = tuple[str, str, float]


def busiest(pipes: tuple[Pipe, ...]) -> tuple[Pipe | None, Pipe | None]:
    """The busiest of ``pipes`` among the math pipes, and among the others: the first at
    the top reading of each, as ``max`` gives it, in one pass."""
    math_top: Pipe | None = None
    other_top: Pipe | None = None
    for pipe in pipes:
        if pipe[0] in MATH_PIPES:
            if math_top is None or pipe[2] > math_top[2]:
                math_top = pipe
        elif other_top is None or pipe[2] > other_top[2]:
            other_top = pipe
    return math_top, other_top
