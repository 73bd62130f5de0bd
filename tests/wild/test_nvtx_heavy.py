"""NVTX-heavy timelines stay readable: one row per operation (per-call ids folded, the raw
names still counted), ``--top N`` bounds every long table of the Markdown, and the findings
come in the first screenful."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from kernelscope.export.writer import ExportOptions, render
from kernelscope.timeline.analysis.nvtx import operation
from tests.exports import export_text

HEAVY = ["NVIDIA__Fuser__report1_2025-03.sqlite.xz", "bobschreiner__NuKEXC__report3.sqlite.xz"]
"""13,513 and 6,977 NVTX ranges (nvFuser's scopes; Kokkos' profiling hooks)."""
SCREEN_LINES = 24


def test_per_call_ids_fold_into_the_operation() -> None:
    """Names as PyTorch's emit_nvtx writes them (torch/csrc/profiler/standalone/
    nvtx_observer.cpp: getNvtxStr) and a Python object's address."""
    names = pl.Series([
        ":aten::linear, seq = 12, op_id = 34, sizes = [[8, 512], [512, 512], [512]], "
        "input_op_ids = [(33, 0), (2, 0)]",
        ":aten::linear, seq = 13, op_id = 61, sizes = [[8, 512], [512, 512], [512]]",
        ":aten::mm, op_id = 9, sizes = [[], [3]]",
        ":<built-in method to of Tensor object at 0x7f3a12345678>",
        ":ProfilerStep#3",
    ])
    assert pl.select(operation(pl.lit(names))).to_series().to_list() == [
        ":aten::linear", ":aten::linear", ":aten::mm",
        ":<built-in method to of Tensor object at 0x…>", ":ProfilerStep#3",
    ]


def _tables(markdown: str) -> list[list[str]]:
    """Each Markdown table's body rows."""
    tables: list[list[str]] = []
    current: list[str] | None = None
    for line in markdown.splitlines():
        if line.startswith("|"):
            if current is None:
                current = []
                tables.append(current)
            current.append(line)
        else:
            current = None
    return [t[2:] for t in tables]


@pytest.mark.parametrize("name", HEAVY)
def test_markdown_is_bounded_and_opens_on_the_findings(
    name: str, wild_plain: Callable[[str, str], Path]
) -> None:
    path = wild_plain("nsys", name)
    full = export_text(path, "md")  # (test_nsys_exports reads it too)
    assert len(full.encode()) < 150_000
    head = full.splitlines()[:SCREEN_LINES]
    assert "## Findings at a glance" in head
    short = render(path, ExportOptions(fmt="md", top=3))
    assert "Top 3 of " in short and "range names by total time." in short
    # Every table of a top-3 record: three rows, or a fixed table (a graph's 7 rows).
    assert max(len(rows) for rows in _tables(short)) <= 7


@pytest.mark.parametrize("name", HEAVY)
def test_json_keeps_every_range_countable(
    name: str, wild_plain: Callable[[str, str], Path]
) -> None:
    path = wild_plain("nsys", name)
    doc = json.loads(export_text(path, "json"))
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        ranges = db.execute("SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60, 70, "
                            "71)").fetchone()[0]
        names = db.execute("SELECT COUNT(DISTINCT COALESCE(text, textId)) FROM NVTX_EVENTS "
                           "WHERE eventType IN (59, 60, 70, 71)").fetchone()[0]
    assert sum(r["instances"] for r in doc["nvtx"]) == ranges
    assert sum(r["raw_names"] for r in doc["nvtx"]) >= names
