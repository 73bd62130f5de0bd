"""``kernelscope summary`` in an 80-column terminal and piped: the columns that matter always
show, names are short names fitted without losing what tells them apart, and nothing is cut
when the output is a pipe or a file."""

from __future__ import annotations

import io
import re
from pathlib import Path

from kernelscope.export.summary import print_summary
from tests.sample_names import TORCH_OPS

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "ncu"
TORCH = SAMPLES / "torch_ops.ncu-rep.xz"

ANSI = re.compile(r"\x1b\[[0-9;]*m")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


# Each kernel's short name by ID, as the piped summary prints it whole.
TORCH_NAMES = TORCH_OPS


def _table(text: str) -> tuple[str, list[str]]:
    lines = [ANSI.sub("", line) for line in text.splitlines()]
    head = next(i for i, line in enumerate(lines) if line.lstrip().startswith("IDs"))
    rows = [line for line in lines[head + 2 :] if line.strip()]
    return lines[head], rows


def test_an_80_column_terminal(monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.delenv("NO_COLOR", raising=False)
    out = _Terminal()
    print_summary(TORCH, file=out)
    head, rows = _table(out.getvalue())
    assert max(len(ANSI.sub("", line)) for line in out.getvalue().splitlines()) <= 80
    for title in ("IDs", "Kernel", "Total", "Share %", "Bottleneck", "Top flag"):
        assert title in head
    assert len(rows) == len(TORCH_NAMES)
    shown = []
    for row in rows:
        match = re.match(r"\s*(\d+)\s+(.*?)\s{2,}\d", row)  # ID, name, then the total
        assert match, row
        kernel_id, name = int(match[1]), match[2]
        whole = TORCH_NAMES[kernel_id]
        head_part, _, tail = name.partition("…")
        assert whole.startswith(head_part) and whole.endswith(tail)
        assert len(head_part) >= 5, name  # not "nvjet…" or "compu…"
        shown.append(name)
    assert len(set(shown)) == len(shown)
    # The bottleneck is spelled out (at most without "-bound"), never cut mid-word.
    assert "compute " in rows[0] and "low-occupan" in rows[0]


def test_piped_prints_every_column_and_whole_names() -> None:
    out = io.StringIO()
    print_summary(TORCH, file=out)
    text = out.getvalue()
    assert "\x1b[" not in text and "…" not in text
    head, rows = _table(text)
    assert len(rows) == len(TORCH_NAMES)
    for title in ("Launches", "SM %", "Mem %", "DRAM %", "Occ %"):
        assert title in head
    for name in TORCH_NAMES.values():
        assert f" {name} " in text
    assert "uncoalesced-global-access (critical)" in text
