"""An ASCII log-log roofline of many kernels, drawn with plotext (6.x API).

``render_roofline`` is a pure function of its arguments that returns the chart's text. It draws
on plotext's one global figure under ``plotext_figure``'s lock, so the TUI's export worker and the
UI thread can both call it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from kernelscope.kinds.ncu.analysis.roofline.collect import NOT_COLLECTED, collect_hint
from kernelscope.kinds.ncu.analysis.roofline.model import PrecisionPoint, Roofline
from kernelscope.kinds.ncu.analysis.roofline.spec import PRECISION_TITLES
from kernelscope.render.plotext_figure import plotext_figure

_LEVEL_TITLES = {"dram": "DRAM", "l2": "L2", "l1": "L1"}
_LEVEL_COLORS = {"dram": "orange", "l2": "cyan", "l1": "green"}
SELECTED_MARK = "◆"
KERNEL_MARK = "•"
RIDGE_MARK = "▲"


@dataclass(frozen=True)
class RooflineChart:
    text: str
    plotted: tuple[int, ...]
    """The ids of the kernels drawn as points."""
    not_plotted: tuple[tuple[int, str, str], ...]
    """(kernel id, name, reason) of every kernel that has no point on this chart."""


@dataclass(frozen=True)
class ChartKernel:
    """One kernel to draw: its id, a short name and its roofline (None if not computed)."""

    id: int
    name: str
    roofline: Roofline | None


def si_text(value: float) -> str:
    for div, suffix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= div:
            return f"{value / div:.3g}{suffix}"
    return f"{value:.3g}"


def _thin(ticks: list[int], most: int) -> list[int]:
    """Every k-th decade so that at most ``most`` tick labels remain."""
    step = max(1, math.ceil(len(ticks) / most))
    return ticks[::step]


def _point_xy(point: PrecisionPoint, level: str) -> tuple[float, float] | str:
    if point.flops_per_s <= 0:
        return f"no {PRECISION_TITLES.get(point.precision, point.precision)} work"
    intensity = point.intensity_by_level.get(level)
    if intensity is None or intensity <= 0:
        return f"no {_LEVEL_TITLES.get(level, level)} traffic measured"
    return intensity, point.flops_per_s


def _collect(
    kernels: Sequence[ChartKernel], precision: str, level: str
) -> tuple[dict[int, tuple[float, float]], list[tuple[int, str, str]]]:
    xy: dict[int, tuple[float, float]] = {}
    missing: list[tuple[int, str, str]] = []
    for k in kernels:
        if k.roofline is None:
            missing.append((k.id, k.name, NOT_COLLECTED))
            continue
        point = k.roofline.point(precision)
        if point is None:
            reason = k.roofline.missing.get(precision, NOT_COLLECTED)
            missing.append((k.id, k.name, reason))
            continue
        found = _point_xy(point, level)
        if isinstance(found, str):
            missing.append((k.id, k.name, found))
        else:
            xy[k.id] = found
    return xy, missing


def _ceilings_point(kernel: ChartKernel, precision: str) -> PrecisionPoint | None:
    """The kernel's point when it has the peak and ceilings a chart draws, else None."""
    point = kernel.roofline.point(precision) if kernel.roofline is not None else None
    return point if point is not None and point.peak_flops_per_s and point.ceilings else None


def _reference(
    kernels: Sequence[ChartKernel], precision: str, selected: int | None
) -> PrecisionPoint | None:
    """The point whose ceilings are drawn: the selected kernel's, else the first available."""
    for k in kernels:
        if k.id == selected and (point := _ceilings_point(k, precision)) is not None:
            return point
    return next((p for k in kernels if (p := _ceilings_point(k, precision)) is not None), None)


@dataclass(frozen=True)
class _Points:
    """What a chart of ``kernels`` draws whichever kernel is selected."""

    kernels: tuple[ChartKernel, ...]
    xy: dict[int, tuple[float, float]]
    missing: list[tuple[int, str, str]]
    names: dict[int, str]
    first_reference: PrecisionPoint | None


_KEPT_POINTS: dict[tuple[int, str, str], _Points] = {}
KEPT_CHARTS = 8
"""Charts whose points are kept (the TUI steps through one report's kernels: each key draws
the same points with another selected, ~1,000 points looked up for nothing otherwise)."""


def _points(kernels: Sequence[ChartKernel], precision: str, level: str) -> _Points:
    """The points of ``kernels``, kept while the same tuple of kernels is drawn again."""
    key = (id(kernels), precision, level)
    kept = _KEPT_POINTS.get(key)
    if kept is not None and kept.kernels is kernels:
        return kept
    xy, missing = _collect(kernels, precision, level)
    points = _Points(tuple(kernels), xy, missing, {k.id: k.name for k in kernels},
                     _reference(kernels, precision, None))
    if isinstance(kernels, tuple):  # (a list may change under the same id)
        if len(_KEPT_POINTS) >= KEPT_CHARTS:
            _KEPT_POINTS.pop(next(iter(_KEPT_POINTS)), None)
        _KEPT_POINTS[key] = replace(points, kernels=kernels)
    return points


def _selected_reference(
    points: _Points, kernels: Sequence[ChartKernel], precision: str, selected: int | None
) -> PrecisionPoint | None:
    """``_reference`` from the kept points: the selected kernel's point, else the first."""
    if selected is not None and selected in points.names:
        for k in kernels:
            if k.id == selected and (point := _ceilings_point(k, precision)) is not None:
                return point
    return points.first_reference


def _wrap(parts: list[str], width: int) -> list[str]:
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + 2 + len(part) <= width:
            lines[-1] += "  " + part
        else:
            lines.append(part)
    return lines


def _legend(
    ref: PrecisionPoint | None,
    level: str,
    precision: str,
    width: int,
    marks: tuple[str, str] = ("selected", "other kernels"),
) -> list[str]:
    parts = []
    if ref is not None and ref.peak_flops_per_s:
        title = PRECISION_TITLES.get(precision, precision)
        parts.append(f"peak {title} {si_text(ref.peak_flops_per_s)}FLOP/s")
        for c in ref.ceilings:
            ridge = f" (ridge {c.ridge_intensity:.3g})" if c.ridge_intensity else ""
            parts.append(f"{_LEVEL_TITLES[c.level]} {si_text(c.bytes_per_s)}B/s{ridge}")
    parts += [
        f"{SELECTED_MARK} {marks[0]}",
        f"{KERNEL_MARK} {marks[1]}",
        f"{RIDGE_MARK} ridge",
        f"x: FLOP per {_LEVEL_TITLES.get(level, level)} byte",
    ]
    return _wrap(parts, width)


def render_roofline(
    kernels: Sequence[ChartKernel],
    *,
    precision: str = "fp32",
    selected: int | None = None,
    width: int = 80,
    height: int = 24,
    level: str = "dram",
    color: bool = True,
    marks: tuple[str, str] = ("selected", "other kernels"),
) -> RooflineChart:
    """Draw every kernel as a point on a log-log roofline of ``precision`` (``fp64``, ``fp32``,
    ``fp16`` or ``tensor``), the ``selected`` one highlighted and labelled, with the memory
    ceilings of the selected (or first) kernel and their ridge points. Kernels without a point
    are returned in ``not_plotted`` with the reason, and counted under the chart. ``marks``
    names the selected and the other points in the legend (a diff: ``after``, ``before``)."""
    points = _points(kernels, precision, level)
    xy, missing, names = points.xy, points.missing, points.names
    ref = _selected_reference(points, kernels, precision, selected)
    legend = _legend(ref, level, precision, max(20, width), marks)
    if missing:
        legend.append(f"not plotted: {len(missing)} kernel(s), see the list")
        command = collect_hint((reason for _, _, reason in missing), precision)
        if command is not None:
            legend.append(f"to plot them: {command} (or --set full)")
    chart_h = max(8, height - len(legend))
    with plotext_figure(max(20, width), chart_h) as plt:
        text = _draw(plt, xy, ref, names, selected, precision, width, chart_h, color)
    text = text.rstrip("\n") + "\n" + "\n".join(legend)
    return RooflineChart(text, plotted=tuple(xy), not_plotted=tuple(missing))


def _axes(
    fig: Any, xy: dict[int, tuple[float, float]], ref: PrecisionPoint | None, width: int,
    chart_h: int,
) -> tuple[int, int]:
    """Set both rulers (log10 units, ticks thinned to fit) and return the x limits."""
    lg = math.log10
    xs = [x for x, _ in xy.values()]
    ys = [y for _, y in xy.values()]
    peak = ref.peak_flops_per_s if ref is not None else None
    ridges = [c.ridge_intensity for c in ref.ceilings if c.ridge_intensity] if ref else []
    # plotext's log rulers mishandle explicit ticks, so the chart is drawn in log10 units.
    x_lo = math.floor(lg(min([*xs, *ridges, 1.0]) / 2))
    x_hi = math.ceil(lg(max([*xs, *ridges, 1.0]) * 2))
    y_lo = math.floor(lg(min([*ys, *([peak / 1e3] if peak else [])] or [1e9]) / 2))
    y_hi = math.ceil(lg(max([*ys, *([peak] if peak else [])] or [1e12]) * 1.2))
    fig.ruler("x").lim(x_lo, x_hi)
    fig.ruler("y").lim(y_lo, y_hi)
    xt = _thin(list(range(x_lo, x_hi + 1)), max(2, (max(20, width) - 6) // 7))
    yt = _thin(list(range(y_lo, y_hi + 1)), max(2, (chart_h - 5) // 2))
    fig.ruler("x").ticks(xt, [si_text(10.0**t) for t in xt])
    fig.ruler("y").ticks(yt, [si_text(10.0**t) for t in yt])
    return x_lo, x_hi


def _draw_roofs(plt: Any, fig: Any, ref: PrecisionPoint | None, x_lo: int, x_hi: int) -> None:
    """Each memory level's roof up to its ridge, then the compute peak, and the ridges."""
    lg = math.log10
    peak = ref.peak_flops_per_s if ref is not None else None
    if ref is None or not peak:
        return
    ridges = [c.ridge_intensity for c in ref.ceilings if c.ridge_intensity]
    for c in ref.ceilings:
        if not c.ridge_intensity:
            continue
        roof = fig.signal(
            [x_lo, lg(c.ridge_intensity), x_hi],
            [lg(c.bytes_per_s) + x_lo, lg(peak), lg(peak)],
            marker=plt.marker("braille", pixel=_LEVEL_COLORS.get(c.level)),
        )
        fig.draw(roof.lines())
    fig.draw(
        fig.signal(
            [lg(r) for r in ridges],
            [lg(peak)] * len(ridges),
            marker=plt.marker(RIDGE_MARK, pixel="red"),
        )
    )


def _draw(
    plt: Any,
    xy: dict[int, tuple[float, float]],
    ref: PrecisionPoint | None,
    names: dict[int, str],
    selected: int | None,
    precision: str,
    width: int,
    chart_h: int,
    color: bool,
) -> str:
    fig = plt.figure
    fig.theme("simple" if color else "colorless")
    lg = math.log10
    x_lo, x_hi = _axes(fig, xy, ref, width, chart_h)
    _draw_roofs(plt, fig, ref, x_lo, x_hi)
    others = [k for k in xy if k != selected]
    if others:
        fig.draw(
            fig.signal(
                [lg(xy[k][0]) for k in others],
                [lg(xy[k][1]) for k in others],
                marker=plt.marker(KERNEL_MARK, pixel="blue"),
            )
        )
    if selected is not None and selected in xy:
        sx, sy = lg(xy[selected][0]), lg(xy[selected][1])
        right_half = sx - x_lo > 0.6 * (x_hi - x_lo)
        name = names[selected]
        label = f"{name} {SELECTED_MARK}" if right_half else f"{SELECTED_MARK} {name}"
        mark = plt.colorize(label, "red") if color else label
        text = fig.text(sx, sy, mark, alignment="right" if right_half else "left")
        fig.draw(text)
    fig.title(f"{PRECISION_TITLES.get(precision, precision)} roofline")
    fig.label("FLOP/byte", axis="x")
    fig.label("FLOP/s", axis="y")
    return str(fig.build().string(colorless=not color))
