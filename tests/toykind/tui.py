"""The toy report in the TUI: one screen with a table, exported by ``e``, copied by ``y``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Footer, Static

from kernelscope.kinds import OpenOptions
from kernelscope.ui.session import (
    ExportJob,
    HelpSections,
    ReportScreen,
    SessionHost,
    SessionOptions,
)
from tests.toykind.model import ToyReport, open_toy_pair, read_toy
from tests.toykind.render import toy_markdown


class ToyScreen(ReportScreen[None]):
    """The toy report's rows; ``e`` writes them to ``export_name``, ``y`` copies them."""

    HELP_TITLE = "Toy report"

    def __init__(self, report: ToyReport, export_name: str) -> None:
        super().__init__(id="toy")
        self.report = report
        self.export_name = export_name

    def can_export(self) -> bool:
        return True

    def export_job(self, directory: Path) -> ExportJob:
        return ExportJob("toy", directory / self.export_name)

    def render_export(self, job: ExportJob) -> str:
        return toy_markdown(self.report)

    def can_copy(self) -> bool:
        return True

    def copy_text(self) -> tuple[str, str]:
        return toy_markdown(self.report), "the toy report"

    def compose(self) -> ComposeResult:
        yield Static(f"toy · {self.report.path.name} · total {self.report.total:g}", id="toy-title")
        yield DataTable(id="toy-rows")
        yield Footer()

    def on_mount(self) -> None:
        rows = self.query_one(DataTable)
        rows.add_columns("Name", "Value")
        for name, value in self.report.rows:
            rows.add_row(name, f"{value:g}")


class ToySession:
    help_sections: HelpSections = (("Toy report", (ToyScreen,)),)

    def __init__(self, app: App[Any], paths: Sequence[Path], options: SessionOptions) -> None:
        self.host = cast(SessionHost, app)
        self.paths = tuple(paths)
        self.report: ToyReport | None = None

    def start(self) -> None:
        paths = self.paths
        self.report = (open_toy_pair(paths, OpenOptions()) if len(paths) == 2
                       else read_toy(paths[0]))
        self.host.show_main_screen(ToyScreen(self.report, f"{paths[-1].stem}.toy.md"))

    def close(self) -> None:
        """Nothing to release."""
