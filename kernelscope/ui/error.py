"""A screen that says, in one sentence, why kernelscope cannot go on (the traceback only when
KERNELSCOPE_DEBUG asks for it)."""

from __future__ import annotations

import os
import traceback

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import Static

from kernelscope.core.errors import DEBUG_ENV, ReportError, error_sentence
from kernelscope.ui.widgets.footer import Footer


def error_text(error: BaseException) -> str:
    """What the TUI says of ``error``: its one sentence (``core.errors.error_sentence``), and,
    for an error kernelscope did not foresee while ``KERNELSCOPE_DEBUG`` is set (as the
    sentence asks), the traceback below it."""
    sentence = error_sentence(error)
    if isinstance(error, ReportError) or not os.environ.get(DEBUG_ENV):
        return sentence
    return sentence + "\n\n" + "".join(traceback.format_exception(error))


class ErrorScreen(Screen[None]):
    """Shows ``message``. ``fatal``: nothing to go back to, so only quitting is offered."""

    HELP_TITLE = "Error"
    BINDINGS = [
        Binding("q", "app.quit", "Quit", id="error.quit", tooltip="Quit kernelscope."),
        Binding(
            "escape", "back", "Back", id="error.back",
            tooltip="Close this message and go back to what was shown before.",
        ),
    ]

    def __init__(self, message: str, *, fatal: bool = True, title: str | None = None) -> None:
        super().__init__(id="error-screen")
        self.message = message
        self.fatal = fatal
        self.title_text = title or (
            "kernelscope cannot show this report" if fatal else "Something went wrong"
        )

    def compose(self) -> ComposeResult:
        with Center(), Vertical(id="error-box"):
            yield Static(self.title_text, id="error-title")
            yield Static(self.message, id="error-message", markup=False)
            hint = "Press q to quit." if self.fatal else "Press escape to go back, q to quit."
            yield Static(hint, id="error-hint")
        yield Footer()

    def on_mount(self) -> None:
        if self.fatal:
            # The command line exits with status 2 and repeats the sentence once the
            # terminal is restored (see ``tui.cli.run_tui``).
            self.app.fatal_error = self.message  # type: ignore[attr-defined]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back":
            return not self.fatal
        return True

    def action_back(self) -> None:
        self.dismiss()
