"""Golden files of the Markdown and CSV exports for every sample report.

Regenerate deliberately with ``KERNELSCOPE_UPDATE_GOLDEN=1 pytest tests/export`` and review the
diff before committing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kernelscope.export.writer import ExportOptions, render
from kernelscope.kinds.ncu.model import sass
from tests.conftest import ROOT, SAMPLES, ncu_sample_paths

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("KERNELSCOPE_UPDATE_GOLDEN") == "1"


def timeline_samples() -> list[Path]:
    return sorted((SAMPLES / "nsys").glob("*.sqlite.xz"))


def all_samples() -> list[Path]:
    return [*ncu_sample_paths(), *timeline_samples()]


def _stem(path: Path) -> str:
    return path.name.split(".")[0] + ("_ncu" if ".ncu-rep" in path.name else "_nsys")


CASES = [(p, fmt) for p in all_samples() for fmt in ("md", "csv")]


@pytest.fixture
def no_disassembler(monkeypatch: pytest.MonkeyPatch) -> None:
    """The goldens are what kernelscope writes without a SASS disassembler (no ncu-report,
    no nvdisasm), so they hold wherever the tests run: with one, the hot spots also carry
    each instruction's text and source line (tests/tui/test_source_text.py)."""
    monkeypatch.setattr(sass, "binding_available", lambda: False)
    monkeypatch.setattr(sass.shutil, "which", lambda _name: None)


@pytest.mark.parametrize(("path", "fmt"), CASES, ids=[f"{_stem(p)}.{fmt}" for p, fmt in CASES])
@pytest.mark.usefixtures("no_disassembler")
def test_export_matches_golden(path, fmt, monkeypatch):
    monkeypatch.chdir(ROOT)
    rel = path.relative_to(ROOT)
    # many_launches: 1,000 launches of four kernels. The Markdown has one record per family
    # (four); the CSV lists the launches of the top family (250 rows, not 1,000).
    top = 1 if "many" in path.name and fmt == "csv" else None
    text = render(rel, ExportOptions(fmt=fmt, top=top))
    golden = GOLDEN / f"{_stem(path)}.{fmt}"
    if UPDATE or not golden.exists():
        if not UPDATE:
            pytest.fail(f"no golden file {golden.name}; run with KERNELSCOPE_UPDATE_GOLDEN=1")
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")
