"""The base of every kernel-detail pane: a scrollable view of one concern of one kernel.

A pane shows, for the kernel it is given, either its values or — when the report lacks the ncu
sections the pane needs — which ``ncu --section`` collects them. Subclasses compose their
content and fill it in ``update_content``; the base handles the missing-section hint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from kernelscope.kinds.ncu.model import KernelDetail
from kernelscope.kinds.ncu.model.panes import PaneSpec
from kernelscope.kinds.ncu.screens.panes.baseline import baseline_view

if TYPE_CHECKING:
    from kernelscope.kinds.ncu.screens.kernel_state import KernelState


def collect_hint(spec: PaneSpec, missing: tuple[str, ...], extra: str = "") -> Text:
    """Which ncu sections are missing and the ncu options that collect them."""
    partial = spec._replace(sections=missing)
    names = ", ".join(missing)
    text = Text()
    text.append("Not collected: ", style="bold yellow")
    text.append(f"this report has no {names} section for this kernel.\n")
    text.append("Collect it with: ", style="bold")
    text.append(partial.collect_hint, style="cyan")
    if extra:
        text.append("\n" + extra)
    return text


def missing_hint(spec: PaneSpec, detail: KernelDetail, extra: str = "") -> tuple[Text | None, bool]:
    """What a pane of ``spec`` says about the sections ``detail`` lacks: the hint that collects
    them (``None`` when none is missing), and whether every section it needs is missing (then
    the hint is all it shows)."""
    missing = detail.missing_sections(spec)
    every = bool(spec.sections) and len(missing) == len(spec.sections)
    return (collect_hint(spec, missing, extra) if missing else None), every


class Pane(VerticalScroll):
    """A kernel-detail pane. ``spec`` says which ncu sections and metrics it shows."""

    spec: ClassVar[PaneSpec]
    tab_label: ClassVar[str] = ""
    hint_extra: ClassVar[str] = ""
    """Extra advice printed under the collect hint (e.g. ``-lineinfo`` for source)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(id=f"{self.spec.id}-pane", classes="pane", **kwargs)  # type: ignore[arg-type]
        self.detail: KernelDetail | None = None
        self.report_state: KernelState | None = None
        """The report of the kernel shown (its summaries, its baseline)."""

    def compose(self) -> ComposeResult:
        yield Static("", classes="pane-baseline", id=f"{self.spec.id}-baseline")
        yield Static("", classes="pane-hint", id=f"{self.spec.id}-hint")
        with Vertical(classes="pane-content", id=f"{self.spec.id}-content"):
            yield from self.compose_content()

    def compose_content(self) -> ComposeResult:
        """The pane's widgets; by default one Static, the body."""
        yield Static("", classes="pane-body", id=f"{self.spec.id}-body")

    @property
    def body(self) -> Static:
        return self.query_one(f"#{self.spec.id}-body", Static)

    def show(self, detail: KernelDetail, state: KernelState) -> None:
        """Show ``detail`` of the report ``state``: its values (against the report's baseline,
        if one is marked), or the ncu options that collect the missing sections."""
        self.detail = detail
        self.report_state = state
        strip = self.query_one(".pane-baseline", Static)
        against = baseline_view(state.baseline, detail, self.spec.id)
        strip.display = against is not None
        strip.update(against if against is not None else "")
        said, all_missing = missing_hint(self.spec, detail, self.hint_extra)
        hint = self.query_one(".pane-hint", Static)
        content = self.query_one(".pane-content")
        hint.display = said is not None
        hint.update(said if said is not None else "")
        content.display = not all_missing
        if not all_missing:
            self.update_content(detail)

    def update_content(self, detail: KernelDetail) -> None:
        """Fill the pane's widgets for ``detail`` (by default the body, from ``render_body``)."""
        self.body.update(Group(*self.render_body(detail)))

    @staticmethod
    def render_body(detail: KernelDetail) -> list[RenderableType]:
        """The body's renderables, top to bottom (a function of the kernel's detail alone, so
        tests read a pane's text without an app)."""
        return []


class FullHeightPane(Pane):
    """A pane whose content (a table, a listing) takes its whole height and scrolls by itself,
    while the pane does not scroll."""

    DEFAULT_CSS = """
    FullHeightPane {
        overflow-y: hidden;
    }
    FullHeightPane > .pane-content {
        height: 1fr;
    }
    """


def blank() -> Text:
    """An empty line between blocks of a pane."""
    return Text("")
