"""One kernel-name filter: ``-k`` in every export and the TUI's ``/`` filter share one rule,
case-insensitive unless the expression has a capital letter (``core.table.compile_filter``)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from kernelscope.core.errors import ReportError, kernel_filter
from kernelscope.core.table import compile_filter
from kernelscope.export.writer import ExportOptions, render
from tests.conftest import NCU_SAMPLES, SAMPLES

KERNELS = NCU_SAMPLES / "gemm_torch_default.ncu-rep.xz"
TIMELINE = SAMPLES / "nsys" / "graph_eager.sqlite.xz"


def _first_capitalized(names: list[str]) -> str:
    return next(n for n in names if any(ch.isupper() for ch in n) and n != n.upper())


@pytest.mark.parametrize("text", ["gemm", "Gemm", "cutlass.*Kernel", "^at::", "[A-Z]"])
def test_cli_and_tui_compile_one_rule(text: str) -> None:
    cli, tui = kernel_filter(text), compile_filter(text)
    assert cli is not None and tui is not None
    assert (cli.pattern, cli.flags) == (tui.pattern, tui.flags)
    assert bool(cli.flags & re.IGNORECASE) == (text == text.lower())


def test_a_bad_expression_is_one_sentence() -> None:
    with pytest.raises(ReportError, match=r"^The kernel filter '\(' is not a valid regular"):
        kernel_filter("(")


def _ncu_names(pattern: str | None) -> list[str]:
    text = render(KERNELS, ExportOptions(fmt="csv", pattern=pattern))
    return [row["demangled"] for row in csv.DictReader(io.StringIO(text))]


def test_kernel_report_filter_is_smart_case() -> None:
    name = _first_capitalized(_ncu_names(None))
    assert name in _ncu_names(re.escape(name.lower()))  # lower case: any case matches
    assert name in _ncu_names(re.escape(name))
    with pytest.raises(ReportError, match="matches"):  # a capital: case matters
        _ncu_names(re.escape(name.swapcase()))


def _timeline_names(pattern: str | None, tmp: Path) -> list[str]:
    doc = json.loads(render(TIMELINE, ExportOptions(fmt="json", pattern=pattern,
                                                    cache_dir=tmp)))
    return [k["name"] for k in doc["kernels"]]


def test_timeline_filter_is_smart_case(tmp_path: Path) -> None:
    name = _first_capitalized(_timeline_names(None, tmp_path))
    assert name in _timeline_names(re.escape(name.lower()), tmp_path)
    with pytest.raises(ReportError, match="matches"):
        _timeline_names(re.escape(name.swapcase()), tmp_path)
