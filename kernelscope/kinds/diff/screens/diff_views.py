"""The diff's screens: matched kernels (with the unmatched ones, to pair by hand), one pair
side by side, and two timelines compared. They show the text ``render.diff`` makes of the
model's ``KernelDiff``/``TimelineDiff``, the same the exports write."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Static

from kernelscope.core.durations import fmt_duration
from kernelscope.core.kernel_names import fit_name
from kernelscope.core.words import plural
from kernelscope.kinds.diff.analysis.kernels import KernelDiff, KernelPair, with_pair
from kernelscope.kinds.diff.analysis.timelines import TimelineDiff, appeared, vanished
from kernelscope.kinds.diff.render.diff import (
    FAMILY_HEADERS,
    PAIR_HEADERS,
    busy_text,
    family_row,
    kernel_names,
    label_text,
    moved_text,
    pair_roofline,
    pair_row,
    speedup_text,
    summed_text,
    time_row,
)
from kernelscope.kinds.diff.screens.diff_screen import DiffScreen
from kernelscope.kinds.ncu.analysis.metric_changes import TimeChange
from kernelscope.kinds.ncu.render.changes import fmt_change, metric_row
from kernelscope.kinds.ncu.screens.widgets.metric_table import grid_table
from kernelscope.ui.widgets.sized_table import SizedTable, TableColumn, TableRow

SORTS = ("order", "change", "speedup")
"""What the pairs table sorts by, in turn (``s``): report order, the duration's change (the
biggest gain first), the speedup."""


def summed_line(diff: KernelDiff | TimelineDiff) -> Text:
    before, after = diff.paths
    line = Text()
    line.append(f"{before.name} → {after.name}", style="bold")
    scope = f" (kernels matching /{diff.pattern}/)" if diff.pattern else ""
    line.append(f" · summed kernel time{scope} {summed_text(diff.summed, diff.devices)}")
    return line


NAME_COLUMNS = (0, 1)
TIME_COLUMNS = (2, 3)
MATCHED_BY = 7
UNMATCHED_HEADERS = ("Side", "ID", "Kernel", "Duration", "Bottleneck")
NAME_MINIMUM = 12


def pair_widths(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int
                ) -> dict[int, int]:
    """Column index → width for the pairs table ``width`` columns wide: every column whole
    but the two kernel names, which share what is left (at least 12 each); "Matched by"
    only where the names can stay whole beside it, the two times only where the names get
    their least (the speedup and the change say it too)."""
    natural = [max([len(h), *(len(r[n]) for r in rows)]) for n, h in enumerate(headers)]
    dropped = {MATCHED_BY}
    room = width - 2 - 2 * (len(headers) - len(dropped))
    fixed = sum(w for n, w in enumerate(natural) if n not in (*NAME_COLUMNS, *dropped))
    if fixed + natural[0] + natural[1] + natural[MATCHED_BY] + 2 <= room:
        dropped = set()
        room -= 2
        fixed += natural[MATCHED_BY]
    elif fixed + 2 * NAME_MINIMUM > room:
        dropped |= set(TIME_COLUMNS)
        room += 2 * len(TIME_COLUMNS)
        fixed -= sum(natural[n] for n in TIME_COLUMNS)
    share = max(NAME_MINIMUM, min(max(natural[0], natural[1]), (room - fixed) // 2))
    widths = {n: w for n, w in enumerate(natural) if n not in dropped}
    widths[0] = widths[1] = share
    return widths


class KernelDiffScreen(DiffScreen):
    """Two kernel reports: the matched pairs, the unmatched kernels and the families."""

    HELP_TITLE = "Diff of two kernel reports"
    BINDINGS = [
        Binding("enter", "open_pair", "Open pair", show=False, id="diff.open",
                tooltip="Show the highlighted pair side by side, pane by pane."),
        Binding("s", "sort_next", "Sort", id="diff.sort",
                tooltip="Sort the pairs by report order, by change (biggest gain first) or "
                "by speedup."),
        Binding("m", "mark", "Pair by hand", id="diff.mark",
                tooltip="On an unmatched kernel: mark a before kernel, then press m on an "
                "after kernel to pair the two."),
    ]

    def __init__(self, diff: KernelDiff, export_name: str) -> None:
        super().__init__(diff, export_name, id="kernel-diff")
        self.diff = diff
        self.sort = SORTS[0]
        self.marked: int | None = None
        """The unmatched before kernel marked to be paired by hand."""
        self.shown: list[KernelPair] = []
        self.unmatched: list[tuple[str, int]] = []

    def compose(self) -> ComposeResult:
        yield Static("", id="diff-title")
        yield Static(Text("Matched kernels", style="bold"), classes="diff-heading",
                     id="diff-pairs-heading")
        yield SizedTable(id="diff-pairs", cursor_type="row", zebra_stripes=True)
        yield Static(Text("Unmatched kernels (m: pair by hand)", style="bold"),
                     classes="diff-heading")
        yield SizedTable(id="diff-unmatched", cursor_type="row", zebra_stripes=True)
        yield Static("", id="diff-families")
        yield Static("", id="diff-info")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_tables()
        self.focus_what_can_act()

    def focus_what_can_act(self) -> None:
        """Focus the matched pairs, or where there are none the unmatched kernels (the only
        rows ``↓`` and ``m`` can act on)."""
        table = "#diff-pairs" if self.diff.pairs or not self.unmatched else "#diff-unmatched"
        self.query_one(table, SizedTable).focus()

    def set_diff(self, diff: KernelDiff) -> None:
        self.diff = self.shown_diff = diff
        self.refresh_tables()

    def sorted_pairs(self) -> list[KernelPair]:
        pairs = list(self.diff.pairs)
        if self.sort == "change":
            pairs.sort(key=lambda p: (p.change_pct is None, p.change_pct or 0.0))
        elif self.sort == "speedup":
            pairs.sort(key=lambda p: (p.speedup is None, -(p.speedup or 0.0)))
        return pairs

    def refresh_tables(self) -> None:
        diff = self.diff
        self.query_one("#diff-title", Static).update(summed_line(diff))
        table = self.query_one("#diff-pairs", SizedTable)
        keep_pair = table.cursor_row
        self.query_one("#diff-pairs-heading", Static).update(Text(
            "Matched kernels" if diff.pairs else "Matched kernels: none — m on a before "
            "kernel, then on an after one, pairs them",
            style="bold"))
        self.shown = self.sorted_pairs()
        self._fill_pairs(table)
        unmatched = self.query_one("#diff-unmatched", SizedTable)
        keep_unmatched = unmatched.cursor_row
        self.unmatched = []
        rows: list[TableRow] = []
        for side, kernels in (("before", diff.unmatched_before), ("after", diff.unmatched_after)):
            for k in kernels:
                mark = " ◀ marked" if side == "before" and k.id == self.marked else ""
                texts = (side + mark, str(k.id), fit_name(diff.short_name(k), 40),
                         fmt_duration(k.duration_ns), k.diagnosis.label)
                rows.append((None, [Text(t) for t in texts]))
                self.unmatched.append((side, k.id))
        unmatched.fill([TableColumn(title.lower(), Text(title)) for title in UNMATCHED_HEADERS],
                       rows)
        unmatched.display = bool(self.unmatched)
        table.move_cursor(row=min(keep_pair, max(0, len(self.shown) - 1)), animate=False)
        unmatched.move_cursor(row=min(keep_unmatched, max(0, len(self.unmatched) - 1)),
                              animate=False)
        names = kernel_names(diff.families)
        families = grid_table(FAMILY_HEADERS,
                              (family_row(f, 40, names) for f in diff.families),
                              title="Kernel families")
        self.query_one("#diff-families", Static).update(families)
        tables = " · tab: the other table" if diff.pairs and self.unmatched else ""
        self.query_one("#diff-info", Static).update(
            f"{plural(len(diff.pairs), 'pair')} · {len(diff.unmatched_before):,} only before · "
            f"{len(diff.unmatched_after):,} only after · sorted by {self.sort} · enter opens a "
            f"pair · m pairs by hand{tables} · e exports"
        )

    def _fill_pairs(self, table: SizedTable) -> None:
        """The pairs in columns that fit the screen: the bottleneck change whole, the names
        sharing what the other columns leave, "Matched by" where there is room."""
        headers = (*PAIR_HEADERS, "Matched by")
        whole = [[*pair_row(self.diff, pair, None), pair.matched_by] for pair in self.shown]
        widths = pair_widths(headers, whole, self.app.size.width)
        ids = max((len(f"{k.id} ") for p in self.shown for k in (p.before, p.after)), default=0)
        rows: list[TableRow] = []
        for i, pair in enumerate(self.shown):
            cells = [*pair_row(self.diff, pair, max(4, widths[0] - ids)), pair.matched_by]
            rows.append((str(i), [Text(cells[n]) for n in widths]))
        table.fill([TableColumn(headers[n], Text(headers[n]), widths[n]) for n in widths], rows)

    def on_resize(self) -> None:
        self.refresh_tables()

    def highlighted_pair(self) -> KernelPair | None:
        row = self.query_one("#diff-pairs", SizedTable).cursor_row
        return self.shown[row] if 0 <= row < len(self.shown) else None

    def action_open_pair(self) -> None:
        pair = self.highlighted_pair()
        if pair is not None:
            self.app.push_screen(PairScreen(self.diff, pair, self.export_name))

    @on(SizedTable.RowSelected, "#diff-pairs")
    def _pair_selected(self, event: SizedTable.RowSelected) -> None:
        self.action_open_pair()

    def action_sort_next(self) -> None:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        self.refresh_tables()

    def action_mark(self) -> None:
        table = self.query_one("#diff-unmatched", SizedTable)
        row = table.cursor_row
        if not table.has_focus or not 0 <= row < len(self.unmatched):
            self.notify("Highlight an unmatched kernel (tab to its table), then press m.",
                        timeout=4)
            return
        side, kernel_id = self.unmatched[row]
        if side == "before":
            self.marked = kernel_id
            self.notify(f"Before kernel {kernel_id} marked: press m on an after kernel to "
                        "pair them.", timeout=4)
            self.refresh_tables()
            return
        if self.marked is None:
            self.notify("Mark a before kernel first (m on it).", timeout=4)
            return
        before_id, self.marked = self.marked, None
        self.set_diff(with_pair(self.diff, before_id, kernel_id))
        self.notify(f"Paired before kernel {before_id} with after kernel {kernel_id}.",
                    timeout=3)


def pair_renderables(diff: KernelDiff, pair: KernelPair, width: int = 100) -> list[RenderableType]:
    """What the pair screen shows, top to bottom."""
    old, new = pair.before, pair.after
    head = Text()
    head.append(f"before {old.id} ", style="bold")
    head.append(old.summary.name, style="cyan")
    head.append(f"\nafter  {new.id} ", style="bold")
    head.append(new.summary.name, style="cyan")
    lines = Text()
    lines.append(f"{fmt_duration(pair.before_ns)} → {fmt_duration(pair.after_ns)}: ")
    lines.append(f"{speedup_text(pair.speedup, diff.devices)} ({fmt_change(pair.change_pct)})",
                 style="bold")
    lines.append(f" · matched by {pair.matched_by}\n")
    lines.append("Bottleneck: ")
    lines.append(label_text(pair), style="bold")
    lines.append(f"\nFlags resolved: {', '.join(pair.flags_resolved) or 'none'}", style="green")
    lines.append(f"\nFlags new: {', '.join(pair.flags_new) or 'none'}", style="yellow")
    kept = [f"{f} ({a} → {b})" if a != b else f for f, a, b in pair.flags_kept]
    lines.append(f"\nFlags still raised: {', '.join(kept) or 'none'}")
    out: list[RenderableType] = [
        head, Text(""), lines, Text(""),
        grid_table(("Pane", "Metric", "Before", "After", "Change"),
                   (metric_row(m) for m in pair.metrics), title="Metrics by pane", left=2),
        Text(""),
    ]
    chart = pair_roofline(pair, width=max(40, min(width - 4, 100)), height=20, color=False)
    if chart is not None:
        out += [Text("Roofline (DRAM)", style="bold"), Text(chart.text)]
    out.append(Text(f"Moved: {moved_text(pair)}"))
    return out


class PairScreen(DiffScreen):
    """One pair side by side: times, label, flags, every pane's key metrics, the roofline."""

    HELP_TITLE = "Diff: one pair"
    BINDINGS = [
        Binding("escape,backspace", "app.pop_screen", "Back", id="pair.back",
                tooltip="Back to the matched kernels."),
        Binding("n", "step(1)", "Next pair", id="pair.next", tooltip="Show the next pair."),
        Binding("p", "step(-1)", "Prev pair", id="pair.prev", tooltip="Show the previous pair."),
    ]

    def __init__(self, diff: KernelDiff, pair: KernelPair, export_name: str) -> None:
        super().__init__(diff, export_name, id="diff-pair")
        self.diff = diff
        self.pair = pair

    def can_copy(self) -> bool:
        return True

    def copy_text(self) -> tuple[str, str]:
        """The after kernel's case record, its outcome filled in from the pair."""
        from kernelscope.kinds.diff.export.diff_markdown import pair_record

        text = pair_record(self.diff, self.pair)
        return text, f"Copied the record of after kernel {self.pair.after.id}."

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="pair-scroll"):
            yield Static("", id="pair-body")
        yield Footer()

    def on_mount(self) -> None:
        self.show_pair(self.pair)
        self.query_one("#pair-scroll").focus()

    def show_pair(self, pair: KernelPair) -> None:
        self.pair = pair
        body = pair_renderables(self.diff, pair, self.app.size.width)
        self.query_one("#pair-body", Static).update(Group(*body))

    def action_step(self, step: int) -> None:
        pairs = list(self.diff.pairs)
        i = pairs.index(self.pair) if self.pair in pairs else 0
        j = i + step
        if not 0 <= j < len(pairs):
            self.app.bell()
            return
        self.show_pair(pairs[j])


def _table(title: str, headers: Sequence[str], rows: Sequence[TimeChange], limit: int = 0,
           width: int = 48) -> RenderableType:
    if not rows:
        return Text(f"{title}: none in either report", style="dim")
    shown = rows[:limit] if limit else rows
    notes = [f"{len(shown)} of {len(rows):,} shown"] if len(shown) < len(rows) else []
    return grid_table(headers, (time_row(r, width) for r in shown), title=title, notes=notes)


def timeline_renderables(diff: TimelineDiff) -> list[RenderableType]:
    """What the timeline diff screen shows, top to bottom."""
    head = Text()
    head.append("GPU busy ", style="bold")
    head.append(busy_text(diff.busy))
    api_appeared = ", ".join(a.name for a in appeared(diff.api)) or "none"
    api_vanished = ", ".join(a.name for a in vanished(diff.api)) or "none"
    nvtx = sorted(diff.nvtx, key=lambda r: -abs((r.after_ns or 0.0) - (r.before_ns or 0.0)))
    findings = grid_table(
        ("Finding", "Before", "After", "Change", "Title"),
        ((f.id, f"{f.before_severity or '—'} ({f.before_items})",
          f"{f.after_severity or '—'} ({f.after_items})", f.status, f.title)
         for f in diff.findings),
        title="Findings",
    )
    return [
        head, Text(""),
        grid_table(FAMILY_HEADERS,
                   (family_row(f, 48, kernel_names(diff.families)) for f in diff.families),
                   title="Kernel families"),
        Text(""),
        _table("Launches", ("API call", "Calls", "Before", "After", "Change"),
               diff.launch_calls),
        Text(f"API calls appeared: {api_appeared}\nAPI calls vanished: {api_vanished}",
             style="dim"),
        Text(""),
        _table("GPU idle gaps by cause", ("Cause", "Gaps", "Before", "After", "Change"),
               diff.gaps),
        Text(""),
        _table("NVTX ranges (largest change first)", ("Range", "Instances", "Before", "After",
                                                      "Change"), nvtx, limit=20),
        Text(""),
        _table("Copies", ("Operation", "Count", "Before", "After", "Change"), diff.copies),
        Text(""),
        findings,
    ]


class TimelineDiffScreen(DiffScreen):
    """Two timelines compared, one scrolling page of tables."""

    HELP_TITLE = "Diff of two timelines"

    def __init__(self, diff: TimelineDiff, export_name: str) -> None:
        super().__init__(diff, export_name, id="timeline-diff")
        self.diff = diff

    def compose(self) -> ComposeResult:
        yield Static(summed_line(self.diff), id="diff-title")
        with VerticalScroll(id="timeline-diff-scroll"):
            yield Static(Group(*timeline_renderables(self.diff)), id="timeline-diff-body")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#timeline-diff-scroll").focus()


