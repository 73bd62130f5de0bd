"""CSV as every export writes it: one header, ``\\n`` line ends, empty cells for missing values
and integers as integers (``16384``, never ``16384.0``)."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Sequence

LARGEST_EXACT = 2**53
"""Beyond this a float no longer holds every integer: it is written as it is."""


def csv_cell(value: object) -> object:
    """A value as its CSV cell: None empty, a float that holds an integer as that integer."""
    if value is None:
        return ""
    if (
        isinstance(value, float) and math.isfinite(value) and value.is_integer()
        and abs(value) < LARGEST_EXACT
    ):
        return int(value)
    return value


def csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([csv_cell(v) for v in row] for row in rows)
    return out.getvalue()
