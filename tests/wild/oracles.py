"""NVIDIA's CLI output for the third-party reports: ``oracle/ncu/NAME.raw_base.csv.xz`` and
``oracle/nsys/STEM_REPORT.csv.xz`` with ``STEM.analyze.log.xz``."""

from __future__ import annotations

import csv
import io
import lzma
import re
from pathlib import Path

from tests.ncu.oracle import RawOracle
from tests.nsys.oracle import read_csv
from tests.wild.conftest import require_wild


def ncu_raw(name: str) -> RawOracle | None:
    """The raw page of ``NAME`` (the report's name without ``.xz``); None where ncu crashed
    on the report (two pre-2020 files) and left none."""
    path = require_wild() / "oracle" / "ncu" / f"{name}.raw_base.csv.xz"
    if not path.exists():
        return None
    text = lzma.decompress(path.read_bytes()).decode("utf-8", errors="replace")
    table = list(csv.reader(io.StringIO(text[text.find('"') :])))
    header, units_row, *rows = table
    by_id = {int(r[0]): dict(zip(header, r, strict=False)) for r in rows if r and r[0].isdigit()}
    return RawOracle(units=dict(zip(header, units_row, strict=False)), rows=by_id)


def nsys_csv(stem: str, report: str) -> list[dict[str, str]] | None:
    """The rows nsys printed for ``report`` (a stats report or an analyze rule); None when it
    wrote no file."""
    path = require_wild() / "oracle" / "nsys" / f"{stem}_{report}.csv.xz"
    return read_csv(path) if path.exists() else None


_RULE = re.compile(r"rules/(\w+)\.py\] to \[[^\]]*\]\.\.\. (PROCESSED(?: \(EMPTY RESULTS\))?)")


def analyze_status(stem: str) -> dict[str, str]:
    """Per ``nsys analyze`` rule: "rows", "empty" (ran, found nothing), or "skipped: WHY"
    (the export lacks a table or the data the rule needs), from ``STEM.analyze.log``."""
    path: Path = require_wild() / "oracle" / "nsys" / f"{stem}.analyze.log.xz"
    text = lzma.decompress(path.read_bytes()).decode("utf-8", errors="replace")
    out: dict[str, str] = {}
    parts = re.split(r"(?=Processing \[)", text)
    for part in parts:
        match = _RULE.search(part)
        if match is None:
            continue
        rule, status = match.groups()
        skipped = re.search(r"SKIPPED: (.*)", part)
        if skipped:
            out[rule] = f"skipped: {skipped.group(1).strip()}"
        else:
            out[rule] = "rows" if status == "PROCESSED" else "empty"
    return out
