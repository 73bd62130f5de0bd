"""Kernel families: a report's launches grouped into the kernels they are launches of.

A real PyTorch report is mostly many launches of a few kernels, and the method's step 0 ("is it
worth optimising?") weighs a kernel by all of its launches together, as ``ncu --print-summary
per-kernel`` does. A **family** is every launch with the same demangled name and, where the
launches of that name differ in launch configuration, the same grid × block: the name is the
key when all its launches are shaped alike, (name, grid, block) when they are not.

``kernel_families(summaries)`` builds the families of a report (any objects with ``id`` and a
``row`` holding ``name``, ``demangled``, ``grid``, ``block`` and ``duration_ns``, such as
``KernelSummary``) ranked by total duration; ``ReportFamilies.family_of(kernel_id)`` finds a
launch's family. Plain objects and the standard library only: no polars, no UI, so worker
processes, the exports, the TUI and the cross-report joins (diff, timeline join) share it.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol


class Launch(Protocol):
    """What grouping needs of a launch (``KernelSummary`` has it)."""

    @property
    def id(self) -> int: ...

    @property
    def row(self) -> Mapping[str, object]: ...


def launch_duration(launch: Launch) -> float | None:
    """The launch's measured duration in ns: None when absent, not finite, or the launch
    carries no measurement (``measured`` False, for kernels whose profiling failed)."""
    if not getattr(launch, "measured", True):
        return None
    value = launch.row.get("duration_ns")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) and value >= 0 else None


@dataclass(frozen=True)
class KernelFamily:
    """The launches of one kernel (and launch configuration), with their time."""

    index: int
    """Rank in the report: 0 is the family with the largest total duration."""
    name: str
    """The function name (``ncu``'s short kernel name)."""
    demangled: str
    grid: str
    """The launches' grid as the kernel list prints it (``64``, ``128×4``)."""
    block: str
    split: bool
    """True when launches of this name differ in grid × block, so the key includes them."""
    ids: tuple[int, ...]
    """The launches' kernel IDs, in report order."""
    durations_ns: tuple[float | None, ...]
    """Each launch's measured duration (ns), aligned with ``ids``; None when not measured."""
    total_duration_ns: float
    time_share: float | None
    """The family's share (0-1) of the summed duration of every kernel in the report."""
    shape: str = ""
    """What tells this family from the others of its name (``256×1×1``, ``grid 64``,
    ``grid 64, block 256×1×1``: ``shape_tag``); empty when the name is not ``split``."""

    @property
    def key(self) -> tuple[str, str | None, str | None]:
        """(demangled name, grid, block); grid and block are None when not ``split``."""
        if self.split:
            return (self.demangled, self.grid, self.block)
        return (self.demangled, None, None)

    @property
    def count(self) -> int:
        return len(self.ids)

    def label(self, short: str) -> str:
        """The family's name: its kernel's ``short`` name, with its launch shape where the
        name alone is shared by several families (``reduce [256×1×1]``)."""
        return with_shape(short, self.shape)

    @property
    def measured(self) -> tuple[float, ...]:
        """The durations that were measured."""
        return tuple(d for d in self.durations_ns if d is not None)

    @property
    def min_duration_ns(self) -> float | None:
        return min(self.measured, default=None)

    @property
    def median_duration_ns(self) -> float | None:
        timed = self.measured
        return float(statistics.median(timed)) if timed else None

    @property
    def max_duration_ns(self) -> float | None:
        return max(self.measured, default=None)

    @property
    def representative(self) -> int:
        """The launch whose duration is the family's (lower) median, the earliest among
        equals: the one a record shows for the whole family. The first launch when no
        duration is known."""
        pairs = zip(self.ids, self.durations_ns, strict=True)
        timed = sorted((d, i) for i, d in pairs if d is not None)
        if not timed:
            return self.ids[0]
        return timed[(len(timed) - 1) // 2][1]

    def to_dict(self) -> dict[str, Any]:
        """The JSON export's entry (``families`` in ``kernelscope/ncu/1``)."""
        return {
            "index": self.index,
            "name": self.name,
            "demangled": self.demangled,
            "grid": self.grid,
            "block": self.block,
            "split_by_launch_config": self.split,
            "shape": self.shape,
            "count": self.count,
            "ids": list(self.ids),
            "representative": self.representative,
            "total_duration_ns": self.total_duration_ns,
            "min_duration_ns": self.min_duration_ns,
            "median_duration_ns": self.median_duration_ns,
            "max_duration_ns": self.max_duration_ns,
            "time_share": self.time_share,
        }


@dataclass(frozen=True)
class ReportFamilies:
    """Every family of a report, ranked by total duration, and which family each launch is in."""

    families: tuple[KernelFamily, ...]
    total_ns: float
    """The summed duration of every measured launch (the denominator of the shares)."""
    index_of: Mapping[int, int]
    """Kernel ID → index of its family in ``families``."""
    durations: Mapping[int, float | None]
    """Kernel ID → measured duration (ns), None when not measured."""

    def family_of(self, kernel_id: int) -> KernelFamily | None:
        i = self.index_of.get(kernel_id)
        return None if i is None else self.families[i]

    def kernel_share(self, kernel_id: int) -> float | None:
        """One launch's share (0-1) of the report's summed kernel time."""
        duration = self.durations.get(kernel_id)
        if duration is None or self.total_ns <= 0:
            return None
        return duration / self.total_ns

    def __iter__(self) -> Iterator[KernelFamily]:
        return iter(self.families)

    def __len__(self) -> int:
        return len(self.families)


def _config(row: Mapping[str, object]) -> tuple[str, str]:
    return str(row.get("grid", "")), str(row.get("block", ""))


def _three(dims: str) -> str:
    """``256`` → ``256×1×1`` (the list drops trailing ones; a name tag spells all three)."""
    parts = [p for p in dims.split("×") if p] or ["?"]
    return "×".join(parts + ["1"] * (3 - len(parts)))


def shape_tag(config: tuple[str, str], configs: Iterable[tuple[str, str]]) -> str:
    """What tells launch configuration ``config`` (grid, block) apart from the other
    ``configs`` of one kernel name: its block (``256×1×1``) when the blocks differ, its grid
    (``grid 64×1×1``) when only grids do, else both; empty when the name has one shape."""
    shapes = set(configs) | {config}
    if len(shapes) < 2:
        return ""
    grid, block = config
    if len({b for _, b in shapes}) == len(shapes):
        return _three(block)
    if len({g for g, _ in shapes}) == len(shapes):
        return f"grid {_three(grid)}"
    return f"grid {_three(grid)}, block {_three(block)}"


def with_shape(short: str, shape: str) -> str:
    """``short [shape]``, or ``short`` alone without a shape."""
    return f"{short} [{shape}]" if shape else short


LaunchKey = tuple[int, str, str, str, str, float | None]
"""What grouping reads of a launch: (id, name, demangled name or else name, grid, block,
measured duration or None): a launch kept in ~100 bytes (``launch_key``)."""


def launch_key(launch: Launch) -> LaunchKey:
    """The launch as grouping reads it."""
    row = launch.row
    name = str(row.get("name", ""))
    grid, block = _config(row)
    demangled = str(row.get("demangled") or name)
    return launch.id, name, demangled, grid, block, launch_duration(launch)


def kernel_families(launches: Iterable[Launch]) -> ReportFamilies:
    """Group ``launches`` into families (see the module docstring), largest total first
    (ties: earliest first launch)."""
    return families_of(launch_key(launch) for launch in launches)


def families_of(keys: Iterable[LaunchKey]) -> ReportFamilies:
    """:func:`kernel_families` of launches given by their keys (``launch_key``)."""
    by_name: dict[str, list[LaunchKey]] = {}
    for key in sorted(keys, key=lambda k: k[0]):
        by_name.setdefault(key[2], []).append(key)
    groups: list[tuple[str, list[LaunchKey]]] = []
    for members in by_name.values():
        configs: dict[tuple[str, str], list[LaunchKey]] = {}
        for key in members:
            configs.setdefault((key[3], key[4]), []).append(key)
        groups.extend((shape_tag(config, configs), group) for config, group in configs.items())
    durations = {m[0]: m[5] for _, members in groups for m in members}
    total = float(sum(d for d in durations.values() if d is not None))
    built = [_family(shape, members, total) for shape, members in groups]
    built.sort(key=lambda f: (-f.total_duration_ns, f.ids[0]))
    ranked = tuple(replace(f, index=i) for i, f in enumerate(built))
    index_of = {kernel_id: f.index for f in ranked for kernel_id in f.ids}
    return ReportFamilies(
        families=ranked, total_ns=total, index_of=index_of, durations=durations
    )


def _family(shape: str, members: list[LaunchKey], total: float) -> KernelFamily:
    timed = tuple(m[5] for m in members)
    family_total = float(sum(d for d in timed if d is not None))
    _, name, demangled, grid, block, _ = members[0]
    return KernelFamily(
        index=0,
        name=name,
        demangled=demangled,
        grid=grid,
        block=block,
        split=bool(shape),
        shape=shape,
        ids=tuple(m[0] for m in members),
        durations_ns=timed,
        total_duration_ns=family_total,
        time_share=family_total / total if total > 0 else None,
    )


def ids_text(ids: Iterable[int], limit: int = 8) -> str:
    """Kernel IDs compactly: ``1–150``, ``0, 3, 5–7``, ``3–999 step 4`` for launches of one
    kernel interleaved with others; beyond ``limit`` pieces, the first ones and the count."""
    ordered = sorted(set(ids))
    if len(ordered) >= 3:
        step = ordered[1] - ordered[0]
        if step > 1 and all(b - a == step for a, b in itertools.pairwise(ordered)):
            return f"{ordered[0]}–{ordered[-1]} step {step}"
    parts: list[str] = []
    run: list[int] = []
    for i in ordered:
        if run and i == run[-1] + 1:
            run.append(i)
            continue
        if run:
            parts.extend(_run_text(run))
        run = [i]
    if run:
        parts.extend(_run_text(run))
    if limit and len(parts) > limit:
        return ", ".join(parts[:limit]) + f", … ({len(ordered):,} in all)"
    return ", ".join(parts)


def _run_text(run: list[int]) -> list[str]:
    if len(run) <= 2:
        return [str(i) for i in run]
    return [f"{run[0]}–{run[-1]}"]
