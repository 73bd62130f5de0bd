"""The toy report's summary and exports."""

from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table

from kernelscope.export.markdown import table
from kernelscope.export.writer import ExportOptions
from tests.toykind.model import ToyReport


def toy_markdown(report: ToyReport) -> str:
    rows = [(name, f"{value:g}") for name, value in report.rows]
    return f"# Toy report: {report.path.name}\n\n{table(('Name', 'Value'), rows, 'lr')}\n"


def render_toy_json(report: ToyReport, options: ExportOptions) -> str:
    return json.dumps({"schema": "toy/1", "rows": [list(r) for r in report.rows]}) + "\n"


def render_toy_csv(report: ToyReport, options: ExportOptions) -> str:
    return "name,value\n" + "".join(f"{n},{v:g}\n" for n, v in report.rows)


def render_toy_md(report: ToyReport, options: ExportOptions) -> str:
    return toy_markdown(report)


def print_toy_summary(report: ToyReport, console: Console) -> None:
    console.print(f"{report.path.name}: {len(report.rows)} rows, total {report.total:g}")
    t = Table("Name", "Value")
    for name, value in report.rows:
        t.add_row(name, f"{value:g}")
    console.print(t)
