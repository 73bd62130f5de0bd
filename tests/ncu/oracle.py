"""Read the committed `ncu --import R --page raw|details --csv --print-units base` output."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import NCU_ORACLE, read_csv_xz


@dataclass
class RawOracle:
    units: dict[str, str]
    rows: dict[int, dict[str, str]]


def load_raw(stem: str) -> RawOracle:
    table = read_csv_xz(NCU_ORACLE / f"{stem}.raw.csv.xz")
    header, units_row, *rows = table
    units = dict(zip(header, units_row, strict=False))
    by_id = {int(r[0]): dict(zip(header, r, strict=False)) for r in rows if r and r[0].isdigit()}
    return RawOracle(units=units, rows=by_id)


def load_details(stem: str) -> list[dict[str, str]]:
    table = read_csv_xz(NCU_ORACLE / f"{stem}.details.csv.xz")
    header, *rows = table
    return [dict(zip(header, r, strict=False)) for r in rows if r and r[0].isdigit()]


def parse_number(text: str) -> float | None:
    """A number as ncu prints it ("65,536", "3,307,810,725,552.05", "nan"), else None."""
    t = text.replace(",", "").strip()
    if t == "":
        return None
    try:
        return float(t)
    except ValueError:
        return None


def matches_print(value: float, text: str) -> bool:
    """True when ``value`` prints as ``text`` within ncu's rounding."""
    printed = parse_number(text)
    if printed is None:
        return False
    if math.isnan(printed) or math.isnan(value):
        return math.isnan(printed) and math.isnan(value)
    t = text.replace(",", "")
    if "e" in t.lower():
        return math.isclose(value, printed, rel_tol=5e-3, abs_tol=1e-12)
    decimals = len(t.split(".")[1]) if "." in t else 0
    tol = 0.5 * 10 ** (-decimals) + 1e-9 * abs(printed)
    return abs(value - printed) <= tol


def stem_of(path: Path) -> str:
    return path.name.removesuffix(".ncu-rep.xz")
