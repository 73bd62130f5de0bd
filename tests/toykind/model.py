"""The toy model: rows of (name, value), and a diff of two reports as the same rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kernelscope.core.errors import ReportError
from kernelscope.kinds import OpenOptions


@dataclass(frozen=True)
class ToyReport:
    path: Path
    rows: tuple[tuple[str, float], ...]

    @property
    def total(self) -> float:
        return sum(value for _, value in self.rows)


def read_toy(path: Path) -> ToyReport:
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or lines[0] != "TOYREPORT":
        raise ReportError(f"{path} is not a toy report.")
    rows = []
    for line in lines[1:]:
        name, _, value = line.partition(",")
        rows.append((name, float(value)))
    return ToyReport(path, tuple(rows))


def open_toy(paths: Sequence[Path], options: OpenOptions) -> ToyReport:
    return read_toy(paths[0])


def open_toy_pair(paths: Sequence[Path], options: OpenOptions) -> ToyReport:
    """The second report's values minus the first's, per name."""
    before, after = (read_toy(p) for p in paths)
    old = dict(before.rows)
    return ToyReport(after.path, tuple((n, v - old.get(n, 0.0)) for n, v in after.rows))


def analyse_toy(report: ToyReport, options: OpenOptions) -> ToyReport:
    return report


analyse_pair = analyse_toy
