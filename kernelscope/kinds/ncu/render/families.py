"""Kernel families as text: launch counts, ID ranges, the duration spread and the verdicts of
their launches, shared by the exports, ``kernelscope summary`` and the TUI's family list."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from kernelscope.core.durations import fmt_duration
from kernelscope.core.units import NOT_AVAILABLE
from kernelscope.kinds.ncu.analysis.families import KernelFamily, ids_text

SPREAD_NOTE_RATIO = 1.5
"""A family whose longest launch is this many times its shortest gets a note: same kernel and
launch shape, but probably different problem sizes."""


def family_ids(family: KernelFamily) -> str:
    """``1–150`` or ``0, 3, 5–7``."""
    return ids_text(family.ids)


def launch_shape(family: KernelFamily) -> str:
    """``grid 64, block 256``."""
    return f"grid {family.grid}, block {family.block}"


def spread(family: KernelFamily) -> str:
    """``2.37 us (2.18 us – 2.81 us)``: the median and the range of the launches' durations;
    the duration alone for a single launch."""
    median = family.median_duration_ns
    if median is None:
        return NOT_AVAILABLE
    if family.count == 1 or family.min_duration_ns == family.max_duration_ns:
        return fmt_duration(median)
    return (
        f"{fmt_duration(median)} ({fmt_duration(family.min_duration_ns)} – "
        f"{fmt_duration(family.max_duration_ns)})"
    )


def spread_ratio(family: KernelFamily) -> float | None:
    """Longest over shortest launch (None without two measured launches)."""
    low, high = family.min_duration_ns, family.max_duration_ns
    if low is None or high is None or low <= 0 or len(family.measured) < 2:
        return None
    return high / low


def spread_note(family: KernelFamily) -> str:
    """A sentence when the launches differ much in duration, else ""."""
    ratio = spread_ratio(family)
    if ratio is None or ratio < SPREAD_NOTE_RATIO:
        return ""
    return (
        f"The launches' durations differ ×{ratio:.1f} with the same kernel and launch shape: "
        "they probably work on different problem sizes; the record shows the median launch."
    )


def tally(labels: Iterable[str]) -> str:
    """``launch-bound ×150`` or ``l1-bound ×3, dram-bound ×1`` (most common first)."""
    counts = Counter(labels)
    return ", ".join(f"{label} ×{n}" for label, n in counts.most_common())


def family_label(labels: Iterable[str], representative: str) -> str:
    """The family's label: the representative launch's, with the count of agreeing launches
    when they do not all agree (``launch-bound (149 of 150)``)."""
    labels = list(labels)
    agree = sum(label == representative for label in labels)
    if agree == len(labels):
        return representative
    return f"{representative} ({agree} of {len(labels)})"
