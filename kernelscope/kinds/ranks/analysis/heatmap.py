"""GPU utilisation of every rank in equal time columns of the common clock.

Each rank sends back its cumulative GPU busy time at :data:`DEFAULT_BUSY_POINTS` evenly
spaced points of its GPU span; the busy time in any column is the difference of that curve,
interpolated linearly, at the column's edges. Columns narrower than the curve's spacing are
smoothed to it: zoom into a rank's own timeline for finer detail.
"""

from __future__ import annotations

from bisect import bisect_right

from kernelscope.kinds.ranks.analysis.model import RankSummary, RunAnalysis


def _cumulative(edges: list[int], cum: list[int], t: int) -> float:
    """Busy time before local time ``t`` (linear between the curve's points)."""
    if not edges or t <= edges[0]:
        return 0.0
    if t >= edges[-1]:
        return float(cum[-1])
    i = bisect_right(edges, t) - 1
    e0, e1 = edges[i], edges[i + 1]
    frac = (t - e0) / (e1 - e0) if e1 > e0 else 0.0
    return cum[i] + frac * (cum[i + 1] - cum[i])


def rank_utilization(summary: RankSummary, offset_ns: int, t0: int, t1: int,
                     width: int) -> list[float]:
    """Busy fraction (0-1) of the rank's GPU in ``width`` equal columns of [t0, t1) (common
    clock)."""
    width = max(int(width), 1)
    span = max(t1 - t0, 1)
    bounds = [t0 + span * i // width for i in range(width + 1)]
    values = [_cumulative(summary.busy_edges, summary.busy_cum, b - offset_ns) for b in bounds]
    out = []
    for i in range(width):
        length = bounds[i + 1] - bounds[i]
        out.append(min(max((values[i + 1] - values[i]) / length, 0.0), 1.0) if length else 0.0)
    return out


def heatmap(run: RunAnalysis, t0: int | None = None, t1: int | None = None,
            width: int = 100) -> dict[int, list[float]]:
    """``{rank: [busy fraction per column]}`` over [t0, t1) (default: the whole run)."""
    lo = run.t0 if t0 is None else t0
    hi = run.t1 if t1 is None else t1
    return {rank: rank_utilization(s, run.clock.offsets_ns[rank], lo, hi, width)
            for rank, s in run.ranks.items()}
