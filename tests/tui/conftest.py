"""Fixtures for the TUI tests: the bundled report, its model (for expected values), apps."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import textual.constants

from kernelscope.parsers.ncu import NcuReport, open_ncu_report
from kernelscope.tui.app import default_report_path


@pytest.fixture(autouse=True)
def _no_animations(monkeypatch: pytest.MonkeyPatch) -> None:
    """No animations (tab underline, scrolling): faster tests and stable snapshots."""
    monkeypatch.setattr(textual.constants, "TEXTUAL_ANIMATIONS", "none")


@pytest.fixture(scope="session")
def zoo_path() -> Path:
    return default_report_path()


@pytest.fixture(scope="session")
def zoo(zoo_path: Path) -> Iterator[NcuReport]:
    """The bundled report, opened by the model: tests read their expectations from it."""
    report = open_ncu_report(zoo_path)
    yield report
    report.close()


@pytest.fixture(scope="session")
def zoo_rows(zoo: NcuReport) -> list[dict[str, object]]:
    return [s.row for batch in zoo.iter_summaries() for s in batch]
