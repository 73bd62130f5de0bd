"""Kernel families: a report's launches grouped into the kernels they are launches of.

A real PyTorch report is mostly many launches of a few kernels, and the method's step 0 ("is it
worth optimising?") weighs a kernel by all of its launches together, as ``ncu --print-summary
per-kernel`` does. A **family** is every launch with the same demangled name and, where the
launches of that name differ in launch configuration, the same grid × block: the name is the
key when all its launches are shaped alike, (name, grid, block) when they are not.

``kernel_families(summaries)`` builds the families of a report (any objects with ``id``,
an ``identity`` and a ``duration_ns``, such as ``KernelSummary``) by the one family rule
(``core.families``), ranked by total duration; ``ReportFamilies.family_of(kernel_id)`` finds a
launch's family. Plain objects and the standard library only: no polars, no UI, so worker
processes, the exports, the TUI and the cross-report joins (diff, timeline join) share it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from kernelscope.core.families import family_groups, with_shape
from kernelscope.core.jsonsafe import attributes
from kernelscope.core.kernel_identity import KernelIdentity
from kernelscope.kinds.ncu.model.summary_reader import shape_columns


class Launch(Protocol):
    """What grouping needs of a launch (``KernelSummary`` has it)."""

    @property
    def id(self) -> int: ...

    @property
    def identity(self) -> KernelIdentity: ...

    @property
    def duration_ns(self) -> float | None:
        """The measured duration in ns; None when absent or the launch was not measured."""


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
        timed = sorted(self.measured)
        if not timed:
            return None
        half = len(timed) // 2  # as statistics.median, whose import (fractions, decimal)
        if len(timed) % 2:  # would be the only one on an export's path
            return float(timed[half])
        return float((timed[half - 1] + timed[half]) / 2)

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
            **attributes(self, "index", "name", "demangled", "grid", "block"),
            "split_by_launch_config": self.split,
            **attributes(self, "shape", "count"),
            "ids": list(self.ids),
            **attributes(self, "representative", "total_duration_ns", "min_duration_ns",
                         "median_duration_ns", "max_duration_ns", "time_share"),
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


LaunchKey = tuple[int, str, str, str, str, float | None]
"""What grouping reads of a launch: (id, function name, name by the one name rule, grid,
block as printed, measured duration or None): a launch kept in ~100 bytes (``launch_key``)."""


def launch_key(launch: Launch) -> LaunchKey:
    """The launch as grouping reads it (its grid and block as printed, ``identity.shape``,
    worked out once for each pair of dims objects: ``summary_reader.shape_columns``)."""
    identity = launch.identity
    columns = shape_columns(identity)
    return (launch.id, identity.function, identity.name, columns[0], columns[1],
            launch.duration_ns)


def kernel_families(launches: Iterable[Launch]) -> ReportFamilies:
    """Group ``launches`` into families (see the module docstring), largest total first
    (ties: earliest first launch)."""
    return families_of(launch_key(launch) for launch in launches)


def families_of(keys: Iterable[LaunchKey]) -> ReportFamilies:
    """:func:`kernel_families` of launches given by their keys (``launch_key``), grouped by
    the one family rule (``core.families``)."""
    groups = family_groups(
        sorted(keys, key=lambda k: k[0]), name=lambda k: k[2], shape=lambda k: (k[3], k[4])
    )
    durations = {m[0]: m[5] for group in groups for m in group.members}
    total = float(sum(d for d in durations.values() if d is not None))
    built = [_family(group.tag, list(group.members), total) for group in groups]
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
        # A family none of whose launches was measured has no share (as they have none).
        time_share=(family_total / total
                    if total > 0 and any(d is not None for d in timed) else None),
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
