"""Two timelines compared: where the GPU time went before and after, and what appeared.

Built from the two reports' :class:`TimelineData` (the tables the timeline screen and its
exports show), so a diff shows the same numbers as each report on its own: per kernel name
(the families ``nsys stats`` groups kernels into) the total time, instances and average; GPU
busy %; idle gaps by the cause kernelscope found for them; NVTX ranges by name; copies by
operation; the findings; and which kernels and CUDA API calls appeared or vanished (capturing
a step in a CUDA graph replaces thousands of ``cudaLaunchKernel`` calls with a few
``cudaGraphLaunch``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from kernelscope.core.errors import ReportError, kernel_filter, safe_text
from kernelscope.core.findings import Finding
from kernelscope.core.jsonsafe import attributes
from kernelscope.core.severity import severity_rank
from kernelscope.kinds.diff.analysis.devices import Device, Devices
from kernelscope.kinds.diff.analysis.summed import Summed
from kernelscope.kinds.ncu.analysis.metric_changes import TimeChange
from kernelscope.timeline.analysis.timeline_data import TimelineData

SHORT_GAPS = "short (not explained)"
"""The cause column of the gaps too short (or too many) to be explained."""


@dataclass(frozen=True)
class GpuBusy:
    """One timeline's GPU busy time over the GPU's active span, summed over devices."""

    busy_ns: int
    span_ns: int

    @property
    def pct(self) -> float | None:
        """Busy over span, in % (None for a timeline without GPU work)."""
        return 100.0 * self.busy_ns / self.span_ns if self.span_ns else None


@dataclass(frozen=True)
class BusyChange:
    """GPU busy time before and after."""

    before: GpuBusy
    after: GpuBusy

    def to_dict(self) -> dict[str, Any]:
        before, after = self.before, self.after
        return {"before_busy_ns": before.busy_ns, "after_busy_ns": after.busy_ns,
                "before_span_ns": before.span_ns, "after_span_ns": after.span_ns,
                "before_pct": before.pct, "after_pct": after.pct}


@dataclass(frozen=True)
class RangeChange(TimeChange):
    """An NVTX range's instances, total time and GPU busy % before and after."""

    before_busy_pct: float | None = None
    after_busy_pct: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "before_gpu_busy_pct": self.before_busy_pct,
                "after_gpu_busy_pct": self.after_busy_pct}


@dataclass(frozen=True)
class FindingChange:
    """A finding (``nsys analyze`` rule or kernelscope's own) before and after."""

    id: str
    title: str
    before_severity: str | None
    after_severity: str | None
    before_items: int
    after_items: int

    @property
    def status(self) -> str:
        """``resolved``, ``new``, ``better``, ``worse`` or ``same`` (severity, then items)."""
        if self.after_severity is None:
            return "resolved"
        if self.before_severity is None:
            return "new"
        old, new = severity_rank(self.before_severity), severity_rank(self.after_severity)
        if new != old:
            return "better" if new < old else "worse"
        if self.after_items != self.before_items:
            return "better" if self.after_items < self.before_items else "worse"
        return "same"

    def to_dict(self) -> dict[str, Any]:
        return attributes(self, "id", "title", "before_severity", "after_severity",
                          "before_items", "after_items", "status")


@dataclass(frozen=True)
class TimelineDiff:
    """Two timelines compared (``diff_timelines``)."""

    before: TimelineData
    after: TimelineData
    families: tuple[TimeChange, ...]
    """Per kernel name, largest time (either side) first."""
    busy: BusyChange
    gaps: tuple[TimeChange, ...]
    nvtx: tuple[RangeChange, ...]
    copies: tuple[TimeChange, ...]
    findings: tuple[FindingChange, ...]
    api: tuple[TimeChange, ...]
    """Per CUDA API call name (calls and time)."""
    pattern: str | None = None

    @property
    def summed(self) -> Summed:
        """The headline: the kernel time (of the kernels ``pattern`` selects), per instance
        where the instance counts differ; paired: the kernel names on both timelines."""
        families = self.families
        return Summed(float(sum(f.before_ns or 0 for f in families)),
                      float(sum(f.after_ns or 0 for f in families)),
                      sum(f.before_count for f in families),
                      sum(f.after_count for f in families),
                      sum(1 for f in families if f.before_count and f.after_count))

    @property
    def paths(self) -> tuple[Path, Path]:
        """The two inputs (before, after)."""
        return self.before.path, self.after.path

    @property
    def devices(self) -> Devices:
        """The GPUs each timeline recorded (name and SM count; a timeline records no
        clocks)."""
        def of(data: TimelineData) -> tuple[Device, ...]:
            return tuple(Device(d.name, d.sm_count) for d in data.report.devices)

        return Devices(of(self.before), of(self.after))

    @property
    def launch_calls(self) -> tuple[TimeChange, ...]:
        """The API calls that launch work (kernels, graphs), before and after."""
        return tuple(a for a in self.api if _LAUNCH.search(a.name))


def appeared(rows: Iterable[TimeChange]) -> tuple[TimeChange, ...]:
    """The rows only the after side has (kernels, API calls that appeared)."""
    return tuple(r for r in rows if r.status == "new")


def vanished(rows: Iterable[TimeChange]) -> tuple[TimeChange, ...]:
    """The rows only the before side has."""
    return tuple(r for r in rows if r.status == "gone")


_LAUNCH = re.compile(r"Launch|GraphLaunch", re.IGNORECASE)


def _joined(
    before: Iterable[tuple[str, float, int]], after: Iterable[tuple[str, float, int]]
) -> tuple[TimeChange, ...]:
    """(name, total ns, count) rows of both sides, joined by name, largest time first."""
    rows: dict[str, list[Any]] = {}
    for side, items in ((0, before), (1, after)):
        for name, total, count in items:
            row = rows.setdefault(name, [None, None, 0, 0])
            row[side] = (row[side] or 0.0) + float(total)
            row[2 + side] += int(count)
    out = [TimeChange(name, b, a, bc, ac) for name, (b, a, bc, ac) in rows.items()]
    out.sort(key=lambda r: (-max(r.before_ns or 0.0, r.after_ns or 0.0), r.name))
    return tuple(out)


def _rows(frame: pl.DataFrame, name: str, total: str, count: str) -> list[tuple[str, float, int]]:
    if not frame.height:
        return []
    return [(str(r[0]), float(r[1] or 0), int(r[2] or 0))
            for r in frame.select(name, total, count).iter_rows()]


def _kernels(data: TimelineData, regex: re.Pattern[str] | None) -> list[tuple[str, float, int]]:
    rows = _rows(data.kernels, "Name", "Total Time (ns)", "Instances")
    return [r for r in rows if regex is None or regex.search(r[0])]


def _gaps(data: TimelineData) -> list[tuple[str, float, int]]:
    gaps = data.gaps
    if not gaps.height:
        return []
    by = gaps.group_by(pl.col("cause").fill_null(SHORT_GAPS)).agg(
        pl.col("duration_ns").sum().alias("total"), pl.len().alias("count")
    )
    return _rows(by, "cause", "total", "count")


def _nvtx(before: TimelineData, after: TimelineData) -> tuple[RangeChange, ...]:
    busy: dict[str, list[float | None]] = {}
    for side, data in ((0, before), (1, after)):
        frame = data.nvtx_busy
        if not frame.height:
            continue
        by = frame.group_by("range").agg(
            pl.col("total_ns").sum(), pl.col("gpu_busy_ns").sum()
        )
        for name, total, gpu in by.iter_rows():
            busy.setdefault(str(name), [None, None])[side] = (
                100.0 * float(gpu) / float(total) if total else None)
    joined = _joined(
        _rows(before.nvtx_busy, "range", "total_ns", "instances"),
        _rows(after.nvtx_busy, "range", "total_ns", "instances"),
    )
    return tuple(
        RangeChange(r.name, r.before_ns, r.after_ns, r.before_count, r.after_count,
                    before_busy_pct=busy.get(r.name, [None, None])[0],
                    after_busy_pct=busy.get(r.name, [None, None])[1])
        for r in joined
    )


def _findings(before: list[Finding], after: list[Finding]) -> tuple[FindingChange, ...]:
    old = {f.id: f for f in before}
    new = {f.id: f for f in after}
    out = []
    for fid in dict.fromkeys([*old, *new]):
        b, a = old.get(fid), new.get(fid)
        title = (a or b).title  # type: ignore[union-attr]
        out.append(FindingChange(
            fid, title,
            b.severity.value if b else None, a.severity.value if a else None,
            len(b.rows) if b else 0, len(a.rows) if a else 0,
        ))
    return tuple(out)


def _busy(data: TimelineData) -> GpuBusy:
    util = data.utilization
    if not util.height:
        return GpuBusy(0, 0)
    return GpuBusy(int(util["busy_ns"].sum()), int(util["span_ns"].sum()))


def diff_timelines(
    before: TimelineData, after: TimelineData, pattern: str | None = None
) -> TimelineDiff:
    """Compare two timelines (the kernel rows only of the names ``pattern`` matches)."""
    regex = kernel_filter(pattern)
    families = _joined(_kernels(before, regex), _kernels(after, regex))
    if pattern and not families:
        raise ReportError(
            f"No kernel of {safe_text(before.path.name)} or {safe_text(after.path.name)} "
            f"matches {pattern!r}, so there is nothing to compare."
        )
    return TimelineDiff(
        before=before,
        after=after,
        families=families,
        busy=BusyChange(_busy(before), _busy(after)),
        gaps=_joined(_gaps(before), _gaps(after)),
        nvtx=_nvtx(before, after),
        copies=_joined(
            _rows(before.mem_time, "Operation", "Total Time (ns)", "Count"),
            _rows(after.mem_time, "Operation", "Total Time (ns)", "Count"),
        ),
        findings=_findings(before.findings, after.findings),
        api=_joined(
            _rows(before.api, "Name", "Total Time (ns)", "Num Calls"),
            _rows(after.api, "Name", "Total Time (ns)", "Num Calls"),
        ),
        pattern=pattern,
    )
