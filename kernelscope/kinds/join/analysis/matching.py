"""Which timeline family each profiled kernel is a launch of.

A profiled kernel (one launch in an ncu report) is matched to a timeline family by, in order:

1. its name: the mangled name where both reports have it, else the demangled name in the
   spelling both share (``names.match_name``), else its function and template arguments as two
   demanglers agree on them (``names.template_key``: a PyTorch profiler trace has no mangled
   name and spells the demangled one as GNU does), where that key names one kernel of the
   timeline and one of the kernel reports; a kernel with none of these is unmatched, with the
   reason (``UnmatchedLaunch``);
2. its launch shape (grid × block): among the families of that name, the one of the same
   shape; where none has it the match is by name alone and says so (``shape_differs``);
3. its NVTX range, where both reports carry it (ncu ``--nvtx``): the instances launched in
   the same innermost range;
4. launch order, as the tie-breaker: the launches of one family in the kernel report, in
   order, are laid against the family's instances on the timeline (those of the same range
   where known) at the offset where their durations agree best, the earliest among equals;
   each launch so gets the instance it most likely was, and with it that instance's range.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from kernelscope.kinds.join.analysis.names import is_mangled, match_name, template_key
from kernelscope.kinds.join.analysis.timeline_families import TimelineFamily, TimelineKernels

MAX_ALIGN_WORK = 2_000_000
"""Duration comparisons one alignment may make; beyond, offsets are tried at a stride."""


@dataclass(frozen=True)
class ProfiledLaunch:
    """What matching needs of one launch in a kernel report."""

    report: int
    """Index of its kernel report among the join's inputs."""
    kernel_id: int
    name: str
    demangled: str
    mangled: str
    grid: str
    block: str
    duration_ns: float | None
    nvtx: str | None = None
    """Its innermost NVTX range, when the report was taken with ``--nvtx``."""


@dataclass(frozen=True)
class LaunchMatch:
    launch: ProfiledLaunch
    family: int
    """Index of the timeline family."""
    by: str
    """What decided it: ``mangled name``, ``name``, plus ``grid × block``, ``NVTX range``."""
    shape_differs: bool
    instance: int | None
    """Index into the family's instances of the instance the launch is laid against."""


@dataclass(frozen=True)
class UnmatchedLaunch:
    launch: ProfiledLaunch
    reason: str
    """Why no timeline kernel is its (``NOT_ON_TIMELINE``, or a key several kernels share)."""


NOT_ON_TIMELINE = "no kernel of this name on the timeline"
BY_TEMPLATE = "function and template arguments"


@dataclass(frozen=True)
class Matches:
    matched: tuple[LaunchMatch, ...]
    unmatched: tuple[UnmatchedLaunch, ...]

    def of_family(self, index: int) -> list[LaunchMatch]:
        return [m for m in self.matched if m.family == index]


class _NameIndex:
    """The timeline's families by each name a launch is looked up by, and which kernels of
    the kernel reports share a ``template_key``."""

    def __init__(self, launches: Sequence[ProfiledLaunch], kernels: TimelineKernels) -> None:
        self.by_mangled = kernels.by_mangled()
        self.by_name = kernels.by_key()
        self._launches = launches
        self._kernels = kernels

    @cached_property
    def by_template(self) -> dict[str, list[TimelineFamily]]:
        """The families by ``template_key`` (built when a launch first needs it)."""
        return self._kernels.by_template()

    @cached_property
    def profiled(self) -> dict[str, set[str]]:
        """Per ``template_key``, the kernels of the kernel reports that have it."""
        out: dict[str, set[str]] = {}
        for launch in self._launches:
            kernel = launch.mangled if is_mangled(launch.mangled) else launch.demangled
            out.setdefault(template_key(launch.demangled), set()).add(kernel)
        return out

    def candidates(self, launch: ProfiledLaunch) -> tuple[list[TimelineFamily], str]:
        """The families ``launch`` may be of and what decided it, else ([], the reason)."""
        if is_mangled(launch.mangled) and launch.mangled in self.by_mangled:
            return self.by_mangled[launch.mangled], "mangled name"
        found = self.by_name.get(match_name(launch.demangled))
        if found:
            return found, "name"
        key = template_key(launch.demangled)
        found = self.by_template.get(key, [])
        names = {f.name for f in found}
        if len(names) > 1:
            return [], (f"its function and template arguments fit {len(names)} kernels of the "
                        "timeline (they differ in their parameters)")
        if found and len(self.profiled[key]) > 1:
            return [], (f"{len(self.profiled[key])} profiled kernels share its function and "
                        "template arguments")
        return found, BY_TEMPLATE if found else NOT_ON_TIMELINE


def match_launches(launches: Sequence[ProfiledLaunch], kernels: TimelineKernels) -> Matches:
    """Match every launch (see the module docstring)."""
    index = _NameIndex(launches, kernels)
    chosen: list[tuple[ProfiledLaunch, TimelineFamily, str, bool]] = []
    unmatched: list[UnmatchedLaunch] = []
    for launch in launches:
        candidates, by = index.candidates(launch)
        if not candidates:
            unmatched.append(UnmatchedLaunch(launch, by))
            continue
        same_shape = [f for f in candidates if (f.grid, f.block) == (launch.grid, launch.block)]
        shape_differs = not same_shape
        pool = same_shape or candidates
        if len(pool) > 1 and launch.nvtx is not None:
            in_range = [f for f in pool if launch.nvtx in f.nvtx]
            pool = in_range or pool
        # Several families left (a shape none of them has): the one with the most instances
        # in the launch's range, else the one with the most time.
        family = max(pool, key=lambda f: (f.nvtx.count(launch.nvtx) if launch.nvtx else 0,
                                          f.total_ns))
        how = by if shape_differs else f"{by}, grid × block"
        chosen.append((launch, family, how, shape_differs))
    instances = _align(chosen)
    matched = tuple(
        LaunchMatch(launch, family.index,
                    f"{how}, NVTX range" if launch.nvtx is not None and
                    instances.get(_id(launch)) is not None else how,
                    differs, instances.get(_id(launch)))
        for launch, family, how, differs in chosen
    )
    return Matches(matched, tuple(unmatched))


def _id(launch: ProfiledLaunch) -> tuple[int, int]:
    return (launch.report, launch.kernel_id)


def _align(
    chosen: list[tuple[ProfiledLaunch, TimelineFamily, str, bool]],
) -> dict[tuple[int, int], int | None]:
    """Per launch, the instance of its family it is laid against (launch order)."""
    groups: dict[tuple[int, int, str | None], list[ProfiledLaunch]] = {}
    families: dict[int, TimelineFamily] = {}
    for launch, family, _, _ in chosen:
        families[family.index] = family
        groups.setdefault((family.index, launch.report, launch.nvtx), []).append(launch)
    out: dict[tuple[int, int], int | None] = {}
    for (index, _, nvtx), members in groups.items():
        family = families[index]
        pool = [i for i, r in enumerate(family.nvtx) if nvtx is None or r == nvtx]
        if nvtx is not None and not pool:
            out.update({_id(m): None for m in members})
            continue
        members.sort(key=lambda m: m.kernel_id)
        offset = best_offset([m.duration_ns for m in members],
                             [family.durations[i] for i in pool])
        for k, m in enumerate(members):
            out[_id(m)] = pool[offset + k] if offset + k < len(pool) else None
    return out


def best_offset(profiled: Sequence[float | None], timeline: Sequence[int]) -> int:
    """The offset into ``timeline`` at which ``profiled`` (in order) agrees best in duration
    (the summed absolute log ratio), the earliest among equals; 0 when it does not fit."""
    m, n = len(profiled), len(timeline)
    if m == 0 or m > n:
        return 0
    logs_p = [math.log(p) if p and p > 0 else None for p in profiled]
    logs_t = [math.log(t) if t > 0 else 0.0 for t in timeline]
    best, best_score = 0, math.inf
    stride = max(1, math.ceil((n - m + 1) * m / MAX_ALIGN_WORK))
    for offset in range(0, n - m + 1, stride):
        score = 0.0
        for k, lp in enumerate(logs_p):
            if lp is not None:
                score += abs(lp - logs_t[offset + k])
            if score >= best_score:
                break
        if score < best_score - 1e-9:
            best, best_score = offset, score
    return best
