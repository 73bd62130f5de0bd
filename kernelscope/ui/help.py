"""The help modal: ``help.md`` followed by tables of every key, generated from the bindings."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from importlib import resources
from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Static

from kernelscope.ui.widgets.footer import Footer

KEYS_MARKER = "<!-- keys -->"


def help_text() -> str:
    """The hand-written part of the help (``kernelscope/tui/help.md``)."""
    return resources.files("kernelscope.tui").joinpath("help.md").read_text(encoding="utf-8")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def bindings_table(app: App[Any], bindings: Iterable[BindingType]) -> str:
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


def keys_markdown(app: App[Any], sections: Sequence[tuple[str, Iterable[BindingType]]],
                  level: int = 3) -> str:
    """One heading (of ``level``) and key table per (title, bindings) section."""
    parts = []
    for title, bindings in sections:
        table = bindings_table(app, bindings)
        if table.count("\n") > 1:
            parts.append(f"{'#' * level} {title}\n\n{table}")
    return "\n\n".join(parts)


Sections = list[tuple[str, list[BindingType]]]


def palette_binding(app: App[Any]) -> Binding:
    return Binding(app.COMMAND_PALETTE_BINDING, "command_palette", "Commands",
                   tooltip="Jump to a kernel by ID or name, switch panes or views, sort…")


def everywhere(app: App[Any]) -> Sections:
    """The app's own keys and the command palette, shown on every screen."""
    return [("Everywhere", [*app.BINDINGS, palette_binding(app)])]


def bindings_of(sections: Iterable[tuple[str, Iterable[type[DOMNode]]]]) -> Sections:
    """Each (title, classes) section with the bindings of its classes."""
    return [(title, [b for cls in classes for b in cls.BINDINGS]) for title, classes in sections]


def screen_help(app: App[Any], text: str,
                sections: Iterable[tuple[str, Iterable[type[DOMNode]]]],
                palette_tooltip: str | None = None) -> str:
    """A screen's own help: ``text`` with, where it says ``<!-- keys -->``, the key tables of
    ``sections``, the app's own keys and (given ``palette_tooltip``) the command palette's."""
    listed = [*bindings_of(sections), ("Everywhere", list(app.BINDINGS))]
    if palette_tooltip is not None:
        listed.append(("Command palette", [Binding(
            app.COMMAND_PALETTE_BINDING, "command_palette", "Commands", tooltip=palette_tooltip)]))
    return text.replace(KEYS_MARKER, keys_markdown(app, listed))


def help_markdown(app: App[Any], sections: Sequence[tuple[str, Iterable[BindingType]]]) -> str:
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
        # Textual's Markdown brings markdown-it (~35 ms of CPU): imported when help opens,
        # not while a report's first screen is waited for.
        from textual.widgets import Markdown

        with Vertical(id="help-box"):
            yield Static("kernelscope help — escape to close", id="help-title")
            with VerticalScroll(id="help-scroll"):
                yield Markdown(self.markdown, id="help-markdown")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()
