"""Prints the corpus tally at the end of the test session (also in CI's log)."""

from __future__ import annotations

from typing import Any

TALLY: list[str] = []


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if TALLY:
        terminalreporter.section("corruption corpus")
        for line in TALLY:
            terminalreporter.write_line(line)
