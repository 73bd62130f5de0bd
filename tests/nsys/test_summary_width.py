"""``kernelscope summary`` of a timeline on a narrow terminal: the number columns keep every
digit and unit, the kernel names give up their width first (cut with an ellipsis)."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from rich.console import Console

from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.export.timeline_summary import print_timeline_summary
from kernelscope.timeline.model.model import TimelineReport


def _summary(report: TimelineReport, width: int) -> list[str]:
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=True, color_system=None)
    print_timeline_summary(TimelineData(report, report.path), console)
    return out.getvalue().splitlines()


@pytest.mark.parametrize("width", [80, 100])
def test_numbers_keep_their_digits_before_names(
    sample_report: Callable[[str], TimelineReport], width: int
) -> None:
    lines = _summary(sample_report("timeline_torch"), width)
    assert all(len(line) <= width for line in lines)
    head = next(i for i, line in enumerate(lines) if line.startswith("Time %"))
    assert lines[head].split()[:5] == ["Time", "%", "Total", "Instances", "Avg"]
    top = lines[head + 2]
    assert top.split()[:6] == ["78.18", "8.045", "ms", "21", "383.1", "us"]
    assert "cutlass_80_simt" in top

