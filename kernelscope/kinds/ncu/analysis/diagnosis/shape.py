"""The facts of a launch's shape: its grid and blocks, the SMs, the occupancy limits, the
resources its blocks hold and the device's math rates. They are read from the launch
configuration and device attributes alone, which repeat from launch to launch: the reader
hands out one ``Metric`` object for every launch that stores the same bytes, so the 8,676
launches of a loop have a handful of shapes. ``shape_facts`` works each shape out once."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from kernelscope.core.memo import Memo
from kernelscope.kinds.ncu.analysis.diagnosis import derived as d
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.values import Values, share
from kernelscope.kinds.ncu.model.metrics import Metric

SHAPE_METRICS: tuple[str, ...] = (
    n.GRID_SIZE,
    n.BLOCK_SIZE,
    n.SM_COUNT,
    n.DEVICE_SM_COUNT,
    n.WAVES,
    n.THEORETICAL_OCC,
    *(name for _, name in n.OCCUPANCY_LIMITS),
    n.REGISTERS,
    n.SM_REGISTERS,
    n.SHARED_STATIC,
    n.SHARED_DYNAMIC,
    n.SHARED_DRIVER,
    n.SM_SHARED,
    n.CC_MAJOR,
    n.CC_MINOR,
    n.FFMA_PEAK,
    n.DFMA_PEAK,
)
"""Every metric the shape's facts are read from, and no other."""

ShapeFacts = tuple[dict[str, Any], dict[str, Any]]
"""(the ``Facts`` fields of the shape, the values ``Facts`` derives from them alone: its
``grid_fit`` and ``fills_gpu``)."""

_SHAPES: Memo[tuple[int, ...], tuple[tuple[Metric | None, ...], ShapeFacts]] = Memo(512)
"""Each shape's facts by the identities of its metric objects, with those objects (held, so
that their ids are not given to other objects while the entry lives)."""


def shape_facts(metrics: Mapping[str, Metric]) -> ShapeFacts:
    """The launch's shape facts (see the module), worked out from ``SHAPE_METRICS`` alone and
    kept by the identities of those metric objects: the same objects are the same values, a
    ``Metric`` being immutable (an id matches a kept one only while that object is held, so
    only for that object). A mapping holding other objects is worked out each time."""
    key = tuple(map(id, map(metrics.get, SHAPE_METRICS)))
    kept = _SHAPES.get(key)
    if kept is not None:
        return kept[1]
    held = tuple(map(metrics.get, SHAPE_METRICS))  # kept by these objects' own ids
    found = worked_out(dict(zip(SHAPE_METRICS, held, strict=True)))
    if all(m is None or type(m) is Metric for m in held):
        _SHAPES.keep(tuple(map(id, held)), (held, found))
    return found


def worked_out(metrics: Mapping[str, Metric | None]) -> ShapeFacts:
    """The shape facts of ``metrics`` (absent names held as None), without the memo."""
    present = {name: m for name, m in metrics.items() if m is not None}
    values = Values(present)
    limits = d.block_limits(present)
    register_share, shared_share = d.resource_shares(present, limits)
    grid, waves, sm_count = values.num(n.GRID_SIZE), values.num(n.WAVES), d.sm_count(present)
    fields = {
        "grid": grid,
        "block": values.num(n.BLOCK_SIZE),
        "sm_count": sm_count,
        "waves": waves,
        "theoretical": values.num(n.THEORETICAL_OCC),
        "limits": limits,
        "ideal_threads": _ideal_threads(values.num(n.BLOCK_SIZE)),
        "register_share": register_share,
        "shared_share": shared_share,
        "compute_capability": _compute_capability(values),
        "fp64_rate_ratio": share(values.num(n.FFMA_PEAK), values.num(n.DFMA_PEAK)),
    }
    derived = {
        "grid_fit": d.grid_fit(grid, sm_count, waves, limits),
        "fills_gpu": d.fills_gpu(grid, sm_count, waves),
    }
    return fields, derived


def _ideal_threads(block: float | None) -> float | None:
    if block is None or block < 1:  # no thread at all (or a corrupt value): nothing to compare
        return None
    warps = math.ceil(block / 32)
    return min(32.0, block / warps)


def _compute_capability(values: Values) -> tuple[int, int] | None:
    major, minor = values.num(n.CC_MAJOR), values.num(n.CC_MINOR)
    return None if major is None else (int(major), int(minor or 0))
