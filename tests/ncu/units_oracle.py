"""Compare `units.unit_for` with the unit row of a raw page (`--print-units base`)."""

from __future__ import annotations

from pathlib import Path

from kernelscope.kinds.ncu.model.units import unit_for
from tests.conftest import read_csv_xz
from tests.ncu.oracle import parse_number

# The raw page's columns before the metrics: the result's ID, process, names and launch.
LEADING_COLUMNS = 11
MISSING_VALUES = ("", "no data", "n/a")


def decoded_value(text: str) -> object:
    """What a reader decodes for a cell NCU printed: a number, a string, or None (no value)."""
    number = parse_number(text)
    if number is not None:
        return number
    return None if text.strip() in MISSING_VALUES else text


def unit_mismatches(path: Path, ncu_version: tuple[int, ...] | None) -> tuple[int, list[str]]:
    """(metric columns checked, one line per column whose unit `unit_for` gets wrong)."""
    header, units_row, *rows = read_csv_xz(path)
    names = header[LEADING_COLUMNS:]
    present = frozenset(names)
    wrong = []
    for index, name in enumerate(names, start=LEADING_COLUMNS):
        expected = units_row[index]
        kinds = {type(decoded_value(row[index])): row[index] for row in rows if len(row) > index}
        for text in kinds.values() or ("",):
            got = unit_for(
                name, decoded_value(text), ncu_version=ncu_version, names_in_result=present
            )
            if got != expected:
                wrong.append(f"{path.name}: {name} ({text!r}): raw page {expected!r}, got {got!r}")
                break
    return len(names), wrong
