"""A timeline joined with kernel reports of the same program: which kernel (or which idle
time) is worth fixing first, and what fixing it could save.

``open_join(paths)`` reads the inputs (one timeline, kernel reports; told apart by content),
``build_join(inputs.timeline, inputs.reports)`` makes the :class:`JoinReport` that the exports
and the TUI show. Plain objects and polars frames only (no Textual, no rich).
"""

from kernelscope.kinds.join.analysis.model import SCHEMA, JoinReport, RankedItem, build_join
from kernelscope.kinds.join.analysis.opener import (
    JoinInputs,
    analyse_join,
    is_join,
    open_join,
    split_inputs,
)

__all__ = [
    "SCHEMA",
    "JoinInputs",
    "JoinReport",
    "RankedItem",
    "analyse_join",
    "build_join",
    "is_join",
    "open_join",
    "split_inputs",
]
