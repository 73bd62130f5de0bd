"""The join of a timeline with kernel reports: the ranking of what to fix first.

A table ranks kernel families and non-kernel time by what fixing them could save, then lists
the families nobody profiled (gain unknown, by time, numbered apart: ``?1``, ``?2``…); the panel
below shows the highlighted row's evidence, its weak-estimate note and, for a family nobody
profiled, the ``ncu`` command to profile it. ``enter`` opens a profiled kernel's panes, or the
family (or the gap) on the timeline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Resize
from textual.widgets import Footer, Static

from kernelscope.core.durations import fmt_ns
from kernelscope.kinds.join.analysis import JoinReport, RankedItem
from kernelscope.kinds.join.render.join_evidence import evidence_lines
from kernelscope.kinds.join.render.join_text import (
    Label,
    bottleneck_text,
    flag_text,
    headroom_text,
    item_notes,
    kind_text,
    ranking_labels,
    saving_text,
    share_text,
    top_flag_line,
    top_flags_words,
    unprofiled_rank,
)
from kernelscope.render.table_fit import ColumnFit, fit_columns, fit_words
from kernelscope.ui.session import ExportJob, ReportScreen
from kernelscope.ui.widgets.sized_table import SizedTable, TableColumn

COLUMNS = (
    ColumnFit("rank", len("#")), ColumnFit("what", 0, minimum=16, grows=True),
    ColumnFit("kind", 0, priority=3), ColumnFit("share", 0, priority=2),
    ColumnFit("total", 0), ColumnFit("headroom", 0), ColumnFit("saving", 0),
    ColumnFit("bottleneck", 0), ColumnFit("flag", 0, minimum=8, priority=1),
)
"""The ranking's columns: what, total, headroom, could save and the bottleneck always show
(the bottleneck whole); the top flag, the kernel-time share and the kind go first when the
screen is narrow, in that order."""
TITLES = {"rank": "#", "what": "What", "kind": "Kind", "share": "Kernel time",
          "total": "Total", "headroom": "Headroom", "saving": "Could save",
          "bottleneck": "Bottleneck / cause", "flag": "Top flag"}
NUMERIC = {"rank", "share", "total", "headroom", "saving"}
SCROLLBAR = 2


def ranking_cells(join: JoinReport) -> list[dict[str, str]]:
    """Each row's cells, whole, by column key: the ranked items (``1``, ``2``…), then the
    families nobody profiled (``?1``, ``?2``…)."""
    rows = join.ranking + join.unprofiled
    ranks = [str(n) for n in range(1, len(join.ranking) + 1)]
    ranks += [unprofiled_rank(n) for n in range(1, len(join.unprofiled) + 1)]
    labels = ranking_labels(rows)
    return [
        {"rank": rank, "what": label.fit(), "kind": kind_text(item),
         "share": share_text(item.time_share), "total": fmt_ns(item.total_ns),
         "headroom": headroom_text(item), "saving": saving_text(item),
         "bottleneck": bottleneck_text(item), "flag": flag_text(item)}
        for rank, label, item in zip(ranks, labels, rows, strict=True)
    ]


def plan_columns(cells: list[dict[str, str]], width: int) -> dict[str, int]:
    """The columns that fit ``width`` and their widths (``render.table_fit``)."""
    fits = [c._replace(natural=max([len(TITLES[c.key]), *(len(row[c.key]) for row in cells)]))
            for c in COLUMNS]
    return fit_columns(fits, width - SCROLLBAR, gap=2)


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
                         + (", ".join(top_flags_words(item)) or "none"))
            if item.top_flag is not None:
                lines.append(f"top flag: {top_flag_line(item.top_flag)}")
    lines.extend(f"· {e}" for e in evidence_lines(item.evidence))
    lines.extend(f"{label}: {text}" for label, text in item_notes(item))
    if item.ncu_command:
        lines.append(f"$ {item.ncu_command}")
    return "\n".join(lines)


class RowOpener(Protocol):
    """What opens a row (the join's session): a kernel's panes, or the row on the timeline."""

    def open_item(self, item: RankedItem) -> None: ...

    def show_on_timeline(self, item: RankedItem) -> None: ...


class JoinScreen(ReportScreen[None]):
    """The ranking of a join; ``opener`` opens the kernel detail or the timeline. ``e`` writes
    the ranking to ``export_name``; ``y`` copies the row's ncu command (else its details)."""

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

    def __init__(self, join: JoinReport, opener: RowOpener, export_name: str) -> None:
        super().__init__(id="join-screen")
        self.join = join
        self.opener = opener
        self.export_name = export_name
        self.rows: tuple[RankedItem, ...] = join.ranking + join.unprofiled
        """The table's rows: the ranking, then the families nobody profiled."""
        self.cells: list[dict[str, str]] = []
        self.labels: list[Label] = []
        self.widths: dict[str, int] = {}

    def title_line(self) -> str:
        join = self.join
        reports = ", ".join(r.path.name for r in join.kernel_reports)
        matched = sum(r.matched for r in join.kernel_reports)
        total = sum(r.kernels for r in join.kernel_reports)
        unprofiled = (f" · {len(join.unprofiled)} families not profiled (gain unknown), "
                      "listed last by time" if join.unprofiled else "")
        if join.nothing_matched:
            return (f"kernelscope · no kernel matched: no kernel of {reports} runs on "
                    f"{join.timeline_path.name}{unprofiled}")
        return (f"kernelscope · what to fix first · {join.timeline_path.name} + {reports} · "
                f"{matched}/{total} profiled kernels matched{unprofiled}")

    def compose(self) -> ComposeResult:
        yield Static(self.title_line(), id="join-title", classes="screen-title", markup=False)
        yield SizedTable(id="join-ranking", cursor_type="row", zebra_stripes=True)
        yield Static("", id="join-detail", markup=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.cells = ranking_cells(self.join)
        self.labels = ranking_labels(self.rows)
        self._fill(self.app.size.width)
        self.query_one("#join-ranking", SizedTable).focus()
        self._show_detail(0)

    def on_resize(self, event: Resize) -> None:
        if plan_columns(self.cells, event.size.width) != self.widths:
            self._fill(event.size.width)

    def _fill(self, width: int) -> None:
        """The ranking's rows in the columns that fit ``width``, cut only where they must."""
        self.widths = widths = plan_columns(self.cells, width)
        table = self.query_one("#join-ranking", SizedTable)
        keep = table.cursor_row
        table.fill(
            [TableColumn(key, Text(TITLES[key], justify="right" if key in NUMERIC else "left"),
                         size) for key, size in widths.items()],
            ((str(n), [self._cell(n, key, row[key], size) for key, size in widths.items()])
             for n, row in enumerate(self.cells)),
        )
        if 0 < keep < len(self.cells):
            table.move_cursor(row=keep, animate=False)

    def _cell(self, n: int, key: str, text: str, width: int) -> Text:
        if key == "what":
            text = self.labels[n].fit(width)
        elif len(text) > width:
            text = fit_words(text, width)
        return Text(text, justify="right" if key in NUMERIC else "left", no_wrap=True)

    @property
    def selected(self) -> RankedItem | None:
        table = self.query_one("#join-ranking", SizedTable)
        row = table.cursor_row
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def _show_detail(self, row: int) -> None:
        if 0 <= row < len(self.rows):
            self.query_one("#join-detail", Static).update(detail_text(self.rows[row]))

    @on(SizedTable.RowHighlighted, "#join-ranking")
    def _highlighted(self, event: SizedTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    @on(SizedTable.RowSelected, "#join-ranking")
    def _selected(self, event: SizedTable.RowSelected) -> None:
        self.action_open_item()

    def action_open_item(self) -> None:
        item = self.selected
        if item is not None:
            self.opener.open_item(item)

    def action_timeline(self) -> None:
        item = self.selected
        if item is not None:
            self.opener.show_on_timeline(item)

    # -- export (e) and copy (y) -----------------------------------------------------------
    def can_export(self) -> bool:
        return True

    def export_job(self, directory: Path) -> ExportJob:
        return ExportJob("join", directory / self.export_name)

    def render_export(self, job: ExportJob) -> str:
        from kernelscope.kinds.join.export.join_export import join_markdown

        return join_markdown(self.join)

    def can_copy(self) -> bool:
        return self.is_mounted and self.selected is not None

    def copy_text(self) -> tuple[str, str]:
        """The highlighted row's ncu command when it has one, else its details."""
        item = self.selected
        if item is None:
            raise RuntimeError("no row is highlighted")
        if item.ncu_command:
            return item.ncu_command, "Copied the ncu command."
        return detail_text(item), "Copied the row's details."
