"""Pane 6 — Source: the kernel's whole source and SASS with per-line and per-instruction
metrics (executed instructions, warp-state samples and the top stall reasons, L2 sectors and
their excess, shared-memory bank conflicts, where collected), the hot lines marked, and a
jump between a source line and its instructions.

The listing is virtualised (``tui.widgets.source_listing``); the counters are read in the
detail screen's worker (``NcuReport.kernel_source``), since a big kernel's SASS takes a
second to disassemble.
"""

from __future__ import annotations

import os

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Static

from kernelscope.core.units import fmt_number
from kernelscope.kinds.ncu.model import KernelDetail
from kernelscope.kinds.ncu.model.panes import SOURCE
from kernelscope.kinds.ncu.model.sass import NO_DISASSEMBLER
from kernelscope.kinds.ncu.model.source import KernelSource, ListingRow
from kernelscope.kinds.ncu.screens.panes.base import FullHeightPane
from kernelscope.kinds.ncu.screens.widgets.source_listing import SourceListing

LINEINFO_HINT = (
    "Collect it with --import-source yes so the code text is stored, and build with "
    "-lineinfo (nvcc) so samples map to source lines:\n"
    "  ncu --set full --import-source yes -o report ./app"
)
NO_LINE_INFO = (
    "No line information: the kernel's cubin has no line table, so no instruction maps to a "
    "source line and the source lines' metric columns are empty. Build with -lineinfo (nvcc) "
    "and profile with --import-source yes to see the source lines."
)
NOT_FROM_FILE = (
    "No instruction of this kernel comes from this file's lines, so its metric columns are "
    "empty (f: next file)."
)
KEYS = "enter: jump source ↔ SASS · ] [: hot lines · s: source/SASS · f: next file"


def location(file: str, line: int) -> str:
    return f"{os.path.basename(file)}:{line}" if file else "?"


def shows_sass(source: KernelSource, view: str) -> bool:
    """Whether the listing shows the SASS: asked for, or no source file to show."""
    return view == "sass" or not source.files


def why_empty(source: KernelSource, view: str, file_index: int) -> str:
    """Why a column of the listing shown (``view`` of ``source``, its file ``file_index``)
    is empty, when one is."""
    if shows_sass(source, view):
        return "" if source.disassembled else NO_DISASSEMBLER
    if not source.has_line_info:
        return NO_LINE_INFO
    if not any(row.values for row in source.files[file_index].rows):
        return NOT_FROM_FILE
    return ""


def listing_summary(source: KernelSource, view: str, file_index: int) -> Text:
    """The lines above the listing: the kernel's totals, what is listed, why a column is
    empty (when one is) and the keys."""
    text = Text()
    samples = source.totals.get("samples")
    executed = source.totals.get("executed")
    facts = []
    if samples is not None:
        facts.append(f"{fmt_number(samples)} warp state samples")
    if executed is not None:
        facts.append(f"{fmt_number(executed)} instructions executed")
    text.append(", ".join(facts) + ". " if facts else "")
    if shows_sass(source, view):
        text.append(f"SASS: {len(source.sass):,} instructions", style="bold")
        if source.truncated:
            text.append(" (listing cut: the kernel is very large)", style="yellow")
    else:
        current = source.files[file_index]
        text.append(f"Source: {current.name}", style="bold")
        if len(source.files) > 1:
            text.append(f" ({file_index + 1} of {len(source.files)} files)")
    why = why_empty(source, view, file_index)
    if why:
        text.append("\n" + why, style="yellow")
    text.append(f"\n{KEYS}", style="dim")
    return text


class SourceNeeded(Message):
    """The source pane needs the listing of ``kernel_id`` (read it in a worker)."""

    def __init__(self, kernel_id: int) -> None:
        super().__init__()
        self.kernel_id = kernel_id


class SourcePane(FullHeightPane):
    spec = SOURCE
    tab_label = "Source"
    hint_extra = LINEINFO_HINT

    DEFAULT_CSS = """
    SourcePane #source-listing {
        height: 1fr;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 1;
    }
    SourcePane #source-summary, SourcePane #source-row {
        height: auto;
        max-height: 3;
    }
    SourcePane #source-row {
        background: $boost;
    }
    """

    BINDINGS = [
        Binding("s", "toggle_view", "Source/SASS", id="source.toggle",
                tooltip="Switch between the source lines and the SASS instructions."),
        Binding("f", "next_file", "Next file", id="source.next-file",
                tooltip="Show the next source file of the kernel (headers it inlines)."),
    ]

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.listing_data: KernelSource | None = None
        self.view = "source"
        self.file_index = 0

    def compose_content(self) -> ComposeResult:
        yield Static("", id="source-summary")
        yield SourceListing(id="source-listing")
        yield Static("", id="source-row")

    @property
    def listing(self) -> SourceListing:
        return self.query_one(SourceListing)

    def on_focus(self) -> None:
        if self.listing_data is not None:
            self.listing.focus()

    def update_content(self, detail: KernelDetail) -> None:
        self.listing_data = None
        if detail.listing is not None:
            self.show_listing(detail.id, detail.listing)
            return
        self._message(Text("Reading the source counters and disassembling…", style="dim italic"))
        self.post_message(SourceNeeded(detail.id))

    def _message(self, text: Text) -> None:
        self.query_one("#source-summary", Static).update(text)
        self.listing.display = False
        self.query_one("#source-row", Static).display = False

    def show_listing(self, kernel_id: int, source: KernelSource | None) -> None:
        """Show a listing read by a worker, if it is still the current kernel's."""
        if self.detail is None or self.detail.id != kernel_id:
            return
        if source is None:
            self._message(Text("The report holds no per-instruction counters for this kernel.",
                               style="dim"))
            return
        self.listing_data = source
        self.view = "source" if source.files and source.has_line_info else "sass"
        self.file_index = 0
        self.listing.display = True
        self.query_one("#source-row", Static).display = True
        self._show(cursor=self._hottest())
        if self.has_focus or self.screen.focused is self:
            self.listing.focus()

    def _hottest(self) -> int:
        rows = self._rows()
        ranked = [i for i, r in enumerate(rows) if r.hot == 1]
        return ranked[0] if ranked else 0

    def _rows(self) -> tuple[ListingRow, ...]:
        source = self.listing_data
        if source is None:
            return ()
        if self.view == "sass" or not source.files:
            return source.sass
        return source.files[self.file_index].rows

    def _show(self, cursor: int = 0, linked: tuple[int, ...] = ()) -> None:
        source = self.listing_data
        if source is None:
            return
        self.listing.show_rows(
            self._rows(), source.columns, sass=self.view == "sass", totals=source.totals,
            cursor=cursor, linked=linked,
        )
        self.query_one("#source-summary", Static).update(
            listing_summary(source, self.view, self.file_index))

    @on(SourceListing.Moved)
    def _moved(self, event: SourceListing.Moved) -> None:
        event.stop()
        rows = self._rows()
        source = self.listing_data
        if source is None or not 0 <= event.index < len(rows):
            return
        row = rows[event.index]
        text = Text()
        if self.view == "sass":
            text.append(f"{row.pc:#x} " if row.pc is not None else "", style="dim")
            text.append(row.text.strip(), style="bold")
            if row.file:
                text.append(f"  ← {location(row.file, row.line)}", style="cyan")
        else:
            text.append(f"{location(row.file, row.line)} ", style="cyan")
            text.append(row.text.strip(), style="bold")
            count = len(source.sass_rows_of(row.file, row.line))
            if count:
                text.append(f"  → {count} SASS instruction{'s' if count != 1 else ''}",
                            style="dim")
        values = [f"{c.title} {fmt_number(row.values[c.key])}" for c in source.columns
                  if c.key in row.values]
        if values:
            text.append("\n" + " · ".join(values), style="dim")
        self.query_one("#source-row", Static).update(text)

    @on(SourceListing.Jump)
    def _jump(self, event: SourceListing.Jump) -> None:
        """A source line → its first instruction (all of them marked); an instruction → its
        source line (the line's other instructions marked when going back)."""
        event.stop()
        source = self.listing_data
        rows = self._rows()
        if source is None or not 0 <= event.index < len(rows):
            return
        row = rows[event.index]
        if self.view == "sass":
            index = source.file_index(row.file) if row.file else None
            if index is None:
                self.notify("This instruction has no source line (build with -lineinfo).",
                            timeout=3)
                return
            self.view, self.file_index = "source", index
            self._show(cursor=max(0, row.line - 1))
            return
        targets = source.sass_rows_of(row.file, row.line)
        if not targets:
            self.notify("No SASS instruction comes from this line.", timeout=3)
            return
        self.view = "sass"
        self._show(cursor=targets[0], linked=targets)

    def action_toggle_view(self) -> None:
        source = self.listing_data
        if source is None:
            return
        if not source.files:
            self.notify("No source lines: this kernel has only SASS (build with -lineinfo).",
                        timeout=3)
            return
        self.view = "sass" if self.view == "source" else "source"
        self._show(cursor=self._hottest())

    def action_next_file(self) -> None:
        source = self.listing_data
        if source is None or len(source.files) < 2:
            return
        self.view = "source"
        self.file_index = (self.file_index + 1) % len(source.files)
        self._show(cursor=self._hottest())
