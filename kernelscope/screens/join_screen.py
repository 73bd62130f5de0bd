"""The join of a timeline with kernel reports: the ranking of what to fix first.

A table ranks kernel families and non-kernel time by what fixing them could save, then lists
the families nobody profiled (gain unknown, by time, numbered apart: ``?1``, ``?2``…); the panel
below shows the highlighted row's evidence, its weak-estimate note and, for a family nobody
profiled, the ``ncu`` command to profile it. ``enter`` opens a profiled kernel's panes, or the
family (or the gap) on the timeline.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from kernelscope.parsers.join import JoinReport, RankedItem
from kernelscope.render.format import fmt_ns
from kernelscope.render.join_text import (
    headroom_text,
    item_name,
    kind_text,
    saving_text,
    share_text,
    unprofiled_rank,
    what_text,
)

COLUMNS = ("#", "What", "Kind", "Kernel time", "Total", "Headroom", "Could save",
           "Bottleneck · top flag / cause")


def detail_text(item: RankedItem) -> str:
    """The panel's lines for ``item`` (plain text)."""
    lines = [item.family if item.kind == "kernel" else item.title]
    if item.kind == "kernel":
        where = f" · mostly in NVTX range {item.nvtx}" if item.nvtx else ""
        lines.append(f"grid {item.grid} · block {item.block} · {item.instances:,} instances"
                     f" · {fmt_ns(item.total_ns)}{where}")
        if item.profiled:
            lines.append(f"profiled: {len(item.ncu_ids)} launch(es), matched by "
                         f"{item.matched_by}; headroom {headroom_text(item)} "
                         f"({item.headroom_source}); flags: "
                         + (", ".join(item.top_flags) or "none"))
    lines.extend(f"· {e}" for e in item.evidence)
    if item.weak:
        lines.append(f"{'weak estimate' if item.profiled or item.kind != 'kernel' else 'gain'}: "
                     f"{item.weak}")
    if item.remedy:
        lines.append(f"next: {item.remedy}")
    if item.ncu_command:
        lines.append(f"$ {item.ncu_command}")
    return "\n".join(lines)


class JoinScreen(Screen[None]):
    """The ranking of a join; the session opens the kernel detail or the timeline."""

    HELP_TITLE = "What to fix first (join)"
    BINDINGS = [
        Binding("enter", "open_item", "Open", id="join.open",
                tooltip="Open the row: a profiled kernel's panes, or the family or gap on the "
                "timeline."),
        Binding("t", "timeline", "Timeline", id="join.timeline",
                tooltip="Show the row's family (or gap) on the timeline."),
    ]
    DEFAULT_CSS = """
    JoinScreen #join-ranking {
        height: 1fr;
    }
    JoinScreen #join-detail {
        height: 11;
        padding: 0 1;
        border-top: hkey $primary;
        overflow-y: auto;
    }
    """

    def __init__(self, join: JoinReport) -> None:
        super().__init__(id="join-screen")
        self.join = join
        self.rows: tuple[RankedItem, ...] = join.ranking + join.unprofiled
        """The table's rows: the ranking, then the families nobody profiled."""

    def title_line(self) -> str:
        join = self.join
        reports = ", ".join(r.path.name for r in join.kernel_reports)
        matched = sum(r.matched for r in join.kernel_reports)
        total = sum(r.kernels for r in join.kernel_reports)
        unprofiled = (f" · {len(join.unprofiled)} families not profiled (gain unknown), "
                      "listed last by time" if join.unprofiled else "")
        return (f"kernelscope · what to fix first · {join.timeline_path.name} + {reports} · "
                f"{matched}/{total} profiled kernels matched{unprofiled}")

    def compose(self) -> ComposeResult:
        yield Static(self.title_line(), id="join-title", classes="screen-title", markup=False)
        yield DataTable(id="join-ranking", cursor_type="row", zebra_stripes=True)
        yield Static("", id="join-detail", markup=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        table = self.query_one("#join-ranking", DataTable)
        table.add_columns(*COLUMNS)
        ranked = len(self.join.ranking)
        for row, item in enumerate(self.rows):
            rank = str(row + 1) if row < ranked else unprofiled_rank(row - ranked + 1)
            table.add_row(rank, item_name(item, 44), kind_text(item),
                          share_text(item.time_share), fmt_ns(item.total_ns),
                          headroom_text(item), saving_text(item), what_text(item),
                          key=str(row))
        table.focus()
        self._show_detail(0)

    @property
    def selected(self) -> RankedItem | None:
        table = self.query_one("#join-ranking", DataTable)
        row = table.cursor_row
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def _show_detail(self, row: int) -> None:
        if 0 <= row < len(self.rows):
            self.query_one("#join-detail", Static).update(detail_text(self.rows[row]))

    @on(DataTable.RowHighlighted, "#join-ranking")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    @on(DataTable.RowSelected, "#join-ranking")
    def _selected(self, event: DataTable.RowSelected) -> None:
        self.action_open_item()

    def action_open_item(self) -> None:
        item = self.selected
        opener = getattr(self.app, "session", None)
        if item is not None and opener is not None:
            opener.open_item(item)

    def action_timeline(self) -> None:
        item = self.selected
        opener = getattr(self.app, "session", None)
        if item is not None and opener is not None:
            opener.show_on_timeline(item)
