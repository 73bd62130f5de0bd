"""Shown while a report is detected and opened, once that takes a moment (decompressing a large
one; ``tui.app.LOADING_DELAY_S``)."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import Static

from kernelscope.core.bundled import is_bundled_sample
from kernelscope.ui.widgets.footer import Footer


class LoadingScreen(Screen[None]):
    HELP_TITLE = "Opening"
    BINDINGS = [Binding("q", "app.quit", "Quit", id="loading.quit", tooltip="Quit kernelscope.")]

    def __init__(self, path: Path) -> None:
        super().__init__(id="loading-screen")
        self.path = path
        self.message = f"Opening {path.name}…"

    def compose(self) -> ComposeResult:
        with Center(), Vertical(id="loading-box"):
            yield Static(self.message, id="loading-message", markup=False)
            where = ("the sample bundled with kernelscope" if is_bundled_sample(self.path)
                     else str(self.path.parent))
            yield Static(where, id="loading-path", markup=False)
        yield Footer()

    def show_step(self, text: str) -> None:
        """Say which step opening is on, instead of ``Opening REPORT…`` (also before the
        screen is composed: a step can push it and speak at once)."""
        self.message = f"{text}…"
        for shown in self.query("#loading-message").results(Static):
            shown.update(self.message)
