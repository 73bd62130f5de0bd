"""Kernel families of a timeline: every launch of one kernel (and launch shape).

By the one family rule (``core.families``, as for kernel reports), a family is every kernel
with the same demangled name and, where the kernels of that name differ in grid × block, the
same launch shape. A family's ``time_share`` is its share of the timeline's summed kernel
time, which for a family of one shape is ``nsys stats`` ``cuda_gpu_kern_sum``'s Time (%) / 100.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from functools import cached_property

import polars as pl

from kernelscope.core.families import Shape, family_groups
from kernelscope.core.kernel_identity import dims_text
from kernelscope.kinds.join.analysis.evidence import InstanceSpread
from kernelscope.kinds.join.analysis.names import is_mangled, match_name, template_key
from kernelscope.kinds.join.analysis.nvtx_of import kernel_ranges
from kernelscope.timeline.model.model import TimelineReport, pid_of


@dataclass(frozen=True)
class TimelineFamily:
    """The instances of one kernel (and launch shape) on the timeline, in time order."""

    index: int
    """Rank by total time (0: the most)."""
    name: str
    """The demangled name as ``nsys stats`` prints it."""
    short_name: str
    mangled: str | None
    grid: str
    block: str
    split: bool
    """True when kernels of this name ran with other shapes too (a family each)."""
    starts: tuple[int, ...]
    durations: tuple[int, ...]
    nvtx: tuple[str | None, ...]
    """Each instance's innermost NVTX push/pop range (of the launching thread)."""
    nvtx_paths: tuple[str | None, ...]
    pids: tuple[int, ...]
    total_ns: int
    time_share: float
    """Share (0-1) of the timeline's summed kernel time."""

    @property
    def instances(self) -> int:
        return len(self.durations)

    @cached_property
    def spread(self) -> InstanceSpread:
        """The instances and the median, shortest and longest of their durations."""
        durations = self.durations
        median = float(statistics.median(durations)) if durations else 0.0
        return InstanceSpread(len(durations), median, min(durations, default=0),
                              max(durations, default=0))

    @cached_property
    def main_range(self) -> str | None:
        """The NVTX range most of the family's time ran in (None: in none)."""
        return next(iter(self.ranges()), None)

    def ranges(self) -> dict[str | None, tuple[int, int]]:
        """Per innermost NVTX range: (instances, total ns), largest total first."""
        out: dict[str | None, list[int]] = {}
        for name, d in zip(self.nvtx, self.durations, strict=True):
            entry = out.setdefault(name, [0, 0])
            entry[0] += 1
            entry[1] += d
        return {k: (v[0], v[1]) for k, v in sorted(out.items(), key=lambda kv: -kv[1][1])}


@dataclass(frozen=True)
class TimelineKernels:
    """Every kernel family of a timeline, ranked by total time."""

    families: tuple[TimelineFamily, ...]
    total_ns: int
    """The summed duration of every kernel (the denominator of ``time_share``)."""
    shortest_ns: int
    """The shortest kernel on the timeline (what a launch costs the GPU at least)."""

    def by_key(self) -> dict[str, list[TimelineFamily]]:
        """The families by their name as both reports spell it (``match_name``)."""
        out: dict[str, list[TimelineFamily]] = {}
        for f in self.families:
            out.setdefault(match_name(f.name), []).append(f)
        return out

    def by_template(self) -> dict[str, list[TimelineFamily]]:
        """The families by their function and template arguments (``template_key``)."""
        out: dict[str, list[TimelineFamily]] = {}
        for f in self.families:
            out.setdefault(template_key(f.name), []).append(f)
        return out

    def by_mangled(self) -> dict[str, list[TimelineFamily]]:
        out: dict[str, list[TimelineFamily]] = {}
        for f in self.families:
            if f.mangled:
                out.setdefault(f.mangled, []).append(f)
        return out


def timeline_families(report: TimelineReport) -> TimelineKernels:
    """The families of ``report``'s kernels (see the module docstring)."""
    k = report.kernels
    if not k.height:
        return TimelineKernels((), 0, 0)
    dims = ["grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z"]
    have = [c for c in dims if c in k.columns]
    frame = pl.concat(
        [
            k.select(
                "start", (pl.col("end") - pl.col("start")).alias("dur"),
                pl.col("name").cast(pl.String), pl.col("short_name").cast(pl.String),
                pl.col("mangled_name").cast(pl.String) if "mangled_name" in k.columns
                else pl.lit(None, pl.String).alias("mangled_name"),
                pid_of(pl.col("global_pid")).alias("pid"),
                *[pl.col(c) for c in have],
                *[pl.lit(None, pl.Int32).alias(c) for c in dims if c not in have],
            ),
            kernel_ranges(report),
        ],
        how="horizontal",
    ).filter(pl.col("name").is_not_null() & pl.col("dur").is_not_null())
    total = int(frame["dur"].sum() or 0)
    shortest = int(frame["dur"].min() or 0)  # type: ignore[arg-type]
    parts = [
        (str(name), (dims_text(gx, gy, gz), dims_text(bx, by, bz)), part)
        for (name, gx, gy, gz, bx, by, bz), part
        in frame.sort("start").group_by(["name", *dims], maintain_order=True)
    ]
    groups = family_groups(parts, name=lambda p: p[0], shape=lambda p: p[1])
    built = [
        _family(group.name, group.shape, group.split,
                pl.concat([part for _, _, part in group.members]).sort("start"), total)
        for group in groups
    ]
    built.sort(key=lambda f: (-f.total_ns, f.instances, f.name, f.starts[0]))
    ranked = tuple(replace(f, index=i) for i, f in enumerate(built))
    return TimelineKernels(ranked, total, shortest)


def _family(name: str, shape: Shape, split: bool, part: pl.DataFrame, total: int
            ) -> TimelineFamily:
    """The family of the kernels ``part`` (one name and shape), its share of ``total``."""
    mangled = part["mangled_name"][0]
    durations = tuple(int(d) for d in part["dur"].to_list())
    family_total = sum(durations)
    return TimelineFamily(
        index=0,
        name=name,
        short_name=str(part["short_name"][0] or name),
        mangled=mangled if isinstance(mangled, str) and is_mangled(mangled) else None,
        grid=shape[0],
        block=shape[1],
        split=split,
        starts=tuple(int(s) for s in part["start"].to_list()),
        durations=durations,
        nvtx=tuple(part["nvtx"].to_list()),
        nvtx_paths=tuple(part["nvtx_path"].to_list()),
        pids=tuple(int(p) for p in part["pid"].to_list()),
        total_ns=family_total,
        time_share=family_total / total if total else 0.0,
    )
