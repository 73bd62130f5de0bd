"""The kinds kernelscope ships, in the order they are tried.

Each kind registers itself in its own package (``kinds/<kind>/kind.py``: ``KIND = KindSpec(
...)``); adding a kind is that package plus its line here (docs/architecture.md, "How to add
a report kind"). A format made from another for every kind (HTML from the Markdown) is a line
in ``DERIVED``.
"""

from __future__ import annotations

from kernelscope.kinds.diff import kind as diff
from kernelscope.kinds.join import kind as join
from kernelscope.kinds.kineto import kind as kineto
from kernelscope.kinds.ncu import kind as ncu
from kernelscope.kinds.nsys import kind as nsys
from kernelscope.kinds.ranks import kind as ranks
from kernelscope.kinds.registry import DerivedFormat, KindSpec

BUILTIN: tuple[KindSpec, ...] = (
    ncu.KIND,
    nsys.KIND,
    kineto.KIND,
    join.KIND,
    ranks.KIND,
    ranks.COMMAND,
    join.COMMAND,
    diff.KIND,
)
"""In the order they are tried: a trace with kernel reports is a join before it is a run."""

DERIVED: tuple[DerivedFormat, ...] = (
    DerivedFormat("html", "md", "kernelscope.export.html:html_of"),
)
"""Formats every kind exports, made from another of its formats."""
