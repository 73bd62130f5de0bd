"""A diff's numbers as text, the same for the exports and the screens: changes, speedups,
label transitions, the rows of each table, and both roofline points on one chart."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import zip_longest
from typing import TYPE_CHECKING

from kernelscope.core.durations import fmt_duration
from kernelscope.core.kernel_names import ShortNames, fit_name, short_name
from kernelscope.core.units import NOT_AVAILABLE, fmt_number
from kernelscope.kinds.diff.analysis.devices import CROSS_DEVICE, Devices
from kernelscope.kinds.diff.analysis.kernels import KernelDiff, KernelPair
from kernelscope.kinds.diff.analysis.summed import TOTAL, UNPAIRED, Summed
from kernelscope.kinds.ncu.analysis.metric_changes import MetricChange, TimeChange
from kernelscope.kinds.ncu.analysis.roofline.model import PrecisionPoint, Roofline
from kernelscope.kinds.ncu.analysis.roofline.spec import PRECISIONS
from kernelscope.kinds.ncu.render.changes import (
    fmt_change,
    fmt_speedup,
)
from kernelscope.kinds.ncu.render.roofline import (
    ChartKernel,
    RooflineChart,
    render_roofline,
    si_text,
)

if TYPE_CHECKING:
    from kernelscope.kinds.diff.analysis.timelines import BusyChange

PRECISION_TITLES = {p.key: p.title for p in PRECISIONS}


def speedup_text(speedup: float | None, devices: Devices | None = None) -> str:
    """``1.18×``; ``51.91× across GPUs`` where the two sides ran on different GPUs."""
    text = fmt_speedup(speedup)
    return f"{text} {CROSS_DEVICE}" if devices is not None and not devices.same else text


def summed_text(summed: Summed, devices: Devices | None = None) -> str:
    """The headline: ``9.57 ms → 8.10 ms (−15.4 %, 1.18×)``; per instance where the counts
    differ (and saying so); no verdict where nothing could be paired; the speedup labelled
    ``across GPUs`` where ``devices`` differ."""
    times = f"{fmt_duration(summed.before_ns)} → {fmt_duration(summed.after_ns)}"
    if summed.basis == UNPAIRED:
        return (f"{times}; nothing could be paired between the two inputs, so they are not "
                "compared (no verdict)")
    verdict = f"({fmt_change(summed.change_pct)}, {speedup_text(summed.speedup, devices)})"
    if summed.basis == TOTAL:
        return f"{times} {verdict}"
    before, after = summed.compared_ns()
    return (f"{fmt_duration(summed.before_ns)} in {summed.before_count:,} kernel instances → "
            f"{fmt_duration(summed.after_ns)} in {summed.after_count:,}; the counts differ, so "
            f"per instance: {fmt_duration(before)} → {fmt_duration(after)} {verdict}")


def label_text(pair: KernelPair) -> str:
    """``l1-bound → occupancy-bound``, or ``l1-bound (unchanged)``."""
    return pair.label_change or f"{pair.after.diagnosis.label} (unchanged)"


def kernel_text(diff: KernelDiff, pair: KernelPair, side: str, width: int | None = 32) -> str:
    """``0 gemm_naive``: the kernel's ID and short name in its report (in ``width``; whole
    when None) on one side of a pair."""
    kernel = pair.before if side == "before" else pair.after
    name = diff.short_name(kernel)
    return f"{kernel.id} {name if width is None else fit_name(name, width)}"


def pair_row(diff: KernelDiff, pair: KernelPair, width: int | None = 32) -> list[str]:
    """Before, after, matched by, durations, speedup, change, bottleneck."""
    return [
        kernel_text(diff, pair, "before", width),
        kernel_text(diff, pair, "after", width),
        fmt_duration(pair.before_ns),
        fmt_duration(pair.after_ns),
        speedup_text(pair.speedup, diff.devices),
        fmt_change(pair.change_pct),
        label_text(pair),
    ]


PAIR_HEADERS = ("Before", "After", "Before time", "After time", "Speedup", "Change",
                "Bottleneck")


def count_text(before: int, after: int) -> str:
    return f"{before:,} → {after:,}" if before != after else f"{before:,}"


def kernel_names(rows: Iterable[TimeChange]) -> ShortNames:
    """Short names of the kernels of ``rows`` (a family's demangled names, or a name with a
    parameter list), unique within them: a table of them tells every kernel apart."""
    names = ShortNames()
    for row in rows:
        names.add(row.kernels or ([row.name] if "(" in row.name else []))
    return names


def _row_name(row: TimeChange, width: int, names: ShortNames | None) -> str:
    if names is not None and row.kernels:
        each = width if len(row.kernels) == 1 else max(8, (width - 3) // 2)
        return " → ".join(fit_name(names[k], each) for k in row.kernels)
    if "(" in row.name:
        return short_name(row.name, width) if names is None else fit_name(names[row.name], width)
    return row.name[:width]


def time_row(row: TimeChange, width: int = 48, names: ShortNames | None = None) -> list[str]:
    """Name, count(s), before, after, change (``new``/``gone`` where one side lacks it).
    ``names``: the short names of the table's kernels (else each kernel's compact name)."""
    change = row.status or fmt_change(row.change_pct)
    return [
        _row_name(row, width, names),
        count_text(row.before_count, row.after_count),
        fmt_duration(row.before_ns),
        fmt_duration(row.after_ns),
        change,
    ]


TIME_HEADERS = ("Name", "Count", "Before", "After", "Change")


def family_row(row: TimeChange, width: int = 48, names: ShortNames | None = None
               ) -> list[str]:
    """A kernel family: name, instances, total before/after, change, average before/after.
    Where its instance counts differ the change is that of the average, and says so."""
    cells = time_row(row, width, names)
    if row.counts_differ:
        cells[-1] = f"{fmt_change(row.per_instance_change_pct)} per instance"
    return [*cells, fmt_duration(row.before_avg_ns), fmt_duration(row.after_avg_ns)]


FAMILY_HEADERS = ("Kernel", "Instances", "Total before", "Total after", "Change",
                  "Avg before", "Avg after")


def pct_pair(before: float | None, after: float | None) -> str:
    """``5.6 % → 8.0 %``."""
    def one(value: float | None) -> str:
        return NOT_AVAILABLE if value is None else f"{value:.1f} %"

    return f"{one(before)} → {one(after)}"


def busy_text(busy: BusyChange) -> str:
    """``1.20 ms of 2.00 ms → 1.50 ms of 2.10 ms (60.0 % → 71.4 %)``."""
    old, new = busy.before, busy.after
    return (f"{fmt_duration(old.busy_ns)} of {fmt_duration(old.span_ns)} → "
            f"{fmt_duration(new.busy_ns)} of {fmt_duration(new.span_ns)} "
            f"({pct_pair(old.pct, new.pct)})")


def pair_roofline(
    pair: KernelPair,
    *,
    width: int = 80,
    height: int = 20,
    color: bool = True,
    level: str = "dram",
) -> RooflineChart | None:
    """Both kernels of the pair on one roofline (``KernelPair.chart_points``): the before
    kernel (•) and the after kernel (◆, labelled), with the after kernel's ceilings."""
    found = pair.chart_points()
    if found is None:
        return None
    precision, old, new = found

    def chart_kernel(kernel_id: int, point: PrecisionPoint | None) -> ChartKernel:
        side = pair.before if kernel_id == 0 else pair.after
        label = ("before", "after")[kernel_id]
        name = f"{label}: {short_name(side.summary.identity.function, 20)}"
        if point is None:
            return ChartKernel(kernel_id, name, None)
        return ChartKernel(kernel_id, name, Roofline(points={precision: point}))

    kernels = [chart_kernel(0, old), chart_kernel(1, new)]
    return render_roofline(kernels, precision=precision, selected=1, width=width,
                           height=height, level=level, color=color, marks=("after", "before"))


def _point_text(point: PrecisionPoint | None) -> str:
    if point is None or point.flops_per_s <= 0:
        return "no floating-point work measured"
    title = PRECISION_TITLES.get(point.precision, point.precision)
    intensity = point.intensity
    peak = f", {point.pct_of_peak:.1f} % of its peak" if point.pct_of_peak is not None else ""
    at = f" at {fmt_number(intensity)} FLOP/byte" if intensity is not None else ""
    return f"{si_text(point.flops_per_s)}FLOP/s {title}{at}{peak}"


def moved_text(pair: KernelPair) -> str:
    """Where the kernel moved on the roofline: each side's FLOP/s, precision and intensity."""
    found = pair.chart_points()
    if found is None:
        return ("neither kernel has a roofline point (no floating-point work measured; "
                "the roofline needs the SpeedOfLight_RooflineChart section)")
    _, old, new = found
    return f"before {_point_text(old)}; after {_point_text(new)}"


def top_moves(changes: Sequence[MetricChange], count: int = 5) -> list[MetricChange]:
    """The metrics (beyond the launch's shape and the duration) that moved the most: the
    percentages that moved most in points and the others that moved most relatively, taken in
    turn (points and relative % are not one scale), each by 1 or more."""
    moved = [c for c in changes if c.pane != "launch" and c.name != "gpu__time_duration.sum"
             and c.moved is not None and c.moved >= 1.0]
    moved.sort(key=lambda c: -(c.moved or 0.0))
    points = [c for c in moved if c.is_percentage]
    relative = [c for c in moved if not c.is_percentage]
    turns = [c for pair in zip_longest(points, relative) for c in pair if c is not None]
    return turns[:count]
