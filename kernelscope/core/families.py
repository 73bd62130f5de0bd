"""The one kernel-family rule, for every kind that groups launches into kernels.

A **family** is every launch with the same name (``KernelIdentity.name``: demangled, else
the function name) and, where the launches of that name differ in launch shape, the same
grid × block. :func:`family_groups` applies the rule to any launches (a kernel report's
summaries, a timeline's kernels grouped by name and shape); :func:`shape_tag` says what
tells one shape of a name from the others, and :func:`with_shape` names a family with it
(``reduce [256×1×1]``). Plain values only: no polars, no Textual, no rich.

Who groups by it: a kernel report's families (the list's family view, ``summary``, the exports,
the kernel diff) and the join's timeline families (``kinds/join/analysis/timeline_families``),
which lay a timeline's launches against a kernel report's. Three tables group a timeline's
kernels by name alone, on purpose: the timeline's kernel table, the ranks' family table and the
timeline diff are (and compare) ``nsys stats``'s ``cuda_gpu_kern_sum``, which NVIDIA groups by
demangled name, so their numbers stay equal to NVIDIA's CLI; a name launched with two shapes is
one row there and two families in a join, which says which shape it means.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")

Shape = tuple[str, str]
"""(grid, block) as the kernel list prints them (``64``, ``128×4``)."""


@dataclass(frozen=True)
class FamilyGroup(Generic[T]):
    """The launches of one family, in the order they were given."""

    name: str
    shape: Shape
    tag: str
    """``shape_tag`` of the family's shape among its name's; empty when the name has one."""
    members: tuple[T, ...]

    @property
    def split(self) -> bool:
        """True when launches of this name differ in grid × block (a family per shape)."""
        return bool(self.tag)


def family_groups(
    launches: Iterable[T], name: Callable[[T], str], shape: Callable[[T], Shape]
) -> list[FamilyGroup[T]]:
    """``launches`` grouped into families: by name, then by shape where a name has several;
    names in first-seen order, and each name's shapes in first-seen order."""
    by_name: dict[str, dict[Shape, list[T]]] = {}
    for launch in launches:
        shapes = by_name.setdefault(name(launch), {})
        shapes.setdefault(shape(launch), []).append(launch)
    return [
        FamilyGroup(family_name, key, shape_tag(key, shapes), tuple(members))
        for family_name, shapes in by_name.items()
        for key, members in shapes.items()
    ]


def family_key(name: str, shape: Shape) -> tuple[str, str, str]:
    """A launch's family across reports: (name, grid, block), the shape always included (a
    name of one shape in one report may have two in the other)."""
    return (name, *shape)


def three(dims: str) -> str:
    """``256`` → ``256×1×1`` (the list drops trailing ones; a name tag spells all three)."""
    parts = [p for p in dims.split("×") if p] or ["?"]
    return "×".join(parts + ["1"] * (3 - len(parts)))


def shape_tag(config: Shape, configs: Iterable[Shape]) -> str:
    """What tells launch configuration ``config`` (grid, block) apart from the other
    ``configs`` of one kernel name: its block (``256×1×1``) when the blocks differ, its grid
    (``grid 64×1×1``) when only grids do, else both; empty when the name has one shape."""
    shapes = set(configs) | {config}
    if len(shapes) < 2:
        return ""
    grid, block = config
    if len({b for _, b in shapes}) == len(shapes):
        return three(block)
    if len({g for g, _ in shapes}) == len(shapes):
        return f"grid {three(grid)}"
    return f"grid {three(grid)}, block {three(block)}"


def with_shape(short: str, shape: str) -> str:
    """``short [shape]``, or ``short`` alone without a shape."""
    return f"{short} [{shape}]" if shape else short
