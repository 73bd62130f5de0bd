"""The help modal: ``help.md`` followed by tables of every key, generated from the bindings."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from importlib import resources

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Markdown, Static

KEYS_MARKER = "<!-- keys -->"


def help_text() -> str:
    """The hand-written part of the help (``kernelscope/tui/help.md``)."""
    return resources.files("kernelscope.tui").joinpath("help.md").read_text(encoding="utf-8")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def bindings_table(app: App[object], bindings: Iterable[BindingType]) -> str:
    """A Markdown table of ``bindings``: keys sharing an action are listed together."""
    grouped: dict[tuple[str, str], tuple[list[str], str]] = {}
    for binding in Binding.make_bindings(bindings):
        if binding.system:
            continue
        entry = grouped.setdefault((binding.action, binding.description), ([], binding.tooltip))
        shown = app.get_key_display(binding)
        if shown not in entry[0]:
            entry[0].append(shown)
    rows = ["| Key | Action | What it does |", "| --- | --- | --- |"]
    for (action, description), (keys, tooltip) in grouped.items():
        label = description or action.replace("_", " ")
        keys_md = " / ".join(f"`{_cell(k)}`" for k in keys)
        rows.append(f"| {keys_md} | {_cell(label)} | {_cell(tooltip)} |")
    return "\n".join(rows)


def keys_markdown(app: App[object], sections: Sequence[tuple[str, Iterable[BindingType]]]) -> str:
    """One ``###`` heading and key table per (title, bindings) section."""
    parts = []
    for title, bindings in sections:
        table = bindings_table(app, bindings)
        if table.count("\n") > 1:
            parts.append(f"### {title}\n\n{table}")
    return "\n\n".join(parts)


def help_markdown(app: App[object], sections: Sequence[tuple[str, Iterable[BindingType]]]) -> str:
    """``help.md`` with the key tables put where it says ``<!-- keys -->`` (or at its end)."""
    text = help_text()
    keys = keys_markdown(app, sections)
    if KEYS_MARKER in text:
        return text.replace(KEYS_MARKER, keys)
    return f"{text}\n\n{keys}\n"


class HelpScreen(ModalScreen[None]):
    """Scrollable help; escape, ? or F1 close it."""

    HELP_TITLE = "Help"
    BINDINGS = [
        Binding("escape,question_mark,f1", "dismiss", "Close", id="help.close",
                tooltip="Close the help."),
        Binding("q", "app.quit", "Quit", id="help.quit", tooltip="Quit kernelscope."),
    ]

    def __init__(self, markdown: str) -> None:
        super().__init__(id="help-screen")
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static("kernelscope help — escape to close", id="help-title")
            with VerticalScroll(id="help-scroll"):
                yield Markdown(self.markdown, id="help-markdown")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()
