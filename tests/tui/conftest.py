"""Fixtures for the TUI tests: the bundled report, its model (for expected values), apps."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import textual.constants

from kernelscope.kinds.ncu.model import NcuReport, open_ncu_report
from kernelscope.tui import app as app_module


@pytest.fixture(autouse=True)
def _no_animations(monkeypatch: pytest.MonkeyPatch) -> None:
    """No animations (tab underline, scrolling): faster tests and stable snapshots."""
    monkeypatch.setattr(textual.constants, "TEXTUAL_ANIMATIONS", "none")


ZOO_A = Path(__file__).resolve().parents[2] / "samples" / "ncu" / "zoo_a.ncu-rep.xz"


@pytest.fixture(autouse=True)
def _default_is_zoo_a(monkeypatch: pytest.MonkeyPatch) -> None:
    """The TUI tests read the 6-kernel starter report when no report is given; the package
    ships the project's 12-kernel zoo (tests/cli checks that one opens)."""
    monkeypatch.setattr(app_module, "default_report_path", lambda: ZOO_A)


@pytest.fixture(scope="session")
def zoo_path() -> Path:
    return ZOO_A


@pytest.fixture(scope="session")
def zoo(zoo_path: Path) -> Iterator[NcuReport]:
    """The bundled report, opened by the model: tests read their expectations from it."""
    report = open_ncu_report(zoo_path)
    yield report
    report.close()


@pytest.fixture(scope="session")
def zoo_rows(zoo: NcuReport) -> list[dict[str, object]]:
    return [s.row for batch in zoo.iter_summaries() for s in batch]
