"""A yes/no question in a small modal (used before overwriting an export)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class ConfirmScreen(ModalScreen[bool]):
    """Asks ``question``; dismissed with True for ``y`` and False for ``n`` or ``escape``."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical {
        width: auto; max-width: 90%; height: auto; padding: 1 2;
        border: thick $warning; background: $surface;
    }
    """
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes", tooltip="Yes."),
        Binding("n,escape", "answer(False)", "No", id="confirm.no", tooltip="No."),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question, id="confirm-question", markup=False)
            yield Static("y  yes     n  no", id="confirm-keys")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
