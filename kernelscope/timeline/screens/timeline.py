"""The timeline screen for Nsight Systems reports (``.nsys-rep``, or its SQLite export).

It opens the report in a thread worker — exporting an ``.nsys-rep`` with ``nsys`` can take
minutes — showing the progress the model reports; ``c`` or ``escape`` cancels. Then it shows
seven views (number keys, ``tab``): overview, timeline, kernels, CPU calls, NVTX, gaps, copies.
Any failure ends on the app's error screen with one sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import polars as pl
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static, TabbedContent, TabPane

from kernelscope.core.durations import fmt_ns
from kernelscope.core.hooks import CancelHook, OpenCancelled, ProgressHook
from kernelscope.core.words import plural
from kernelscope.timeline.analysis.nvtx import nvtx_ranges
from kernelscope.timeline.analysis.timeline_data import TimelineData, build
from kernelscope.timeline.analysis.timeline_view import Gap
from kernelscope.timeline.model.model import TimelineReport
from kernelscope.timeline.model.profilers import KINETO
from kernelscope.timeline.screens.timeline_views import VIEWS, TimelinePane
from kernelscope.timeline.screens.timeline_views.commands import TimelineCommands
from kernelscope.timeline.screens.timeline_views.gaps import gap_of
from kernelscope.timeline.screens.timeline_views.help_text import TIMELINE_HELP
from kernelscope.timeline.screens.timeline_views.tables import TableView
from kernelscope.timeline.screens.widgets.timeline_table import FrameTable, FrameView
from kernelscope.ui.help import screen_help
from kernelscope.ui.session import ExportJob, HelpSections, report_stem
from kernelscope.ui.tabbed import OpeningScreen, view_bindings, views_help_binding

VIEW_IDS = tuple(spec.id for spec in VIEWS)


NSYS_SOURCE = re.compile(r" \(nsys stats [^)]*\)")
"""A table title's note of the nsys report it reproduces."""

class ReportOpener(Protocol):
    """Reads a report into the timeline's model, reporting progress and honouring cancel
    (the kind's opener: Nsight Systems' ``open_report``)."""

    def __call__(self, path: Path, *, cache_dir: Path | None = None,
                 progress: ProgressHook | None = None,
                 cancel: CancelHook | None = None) -> TimelineReport: ...


class TimelineLoaded(Message):
    """The report is open and every view's data computed."""

    def __init__(self, data: TimelineData) -> None:
        super().__init__()
        self.data = data


class ViewTabs(Vertical):
    """The views as tabs (mounted once the report is open)."""

    def compose(self) -> ComposeResult:
        with TabbedContent(id="tl-views", initial=VIEW_IDS[0]):
            for number, spec in enumerate(VIEWS, start=1):
                with TabPane(f"{number} {spec.title}", id=spec.id):
                    yield spec.widget()


class TimelineScreen(OpeningScreen[None]):
    """An Nsight Systems report: progress while it opens, then its views; ``e`` exports its
    analysis, wherever the screen is shown (alone, over a join, over the ranks)."""

    HELP_TITLE = "Timeline screen"
    TABS = "tl-views"
    TAB_IDS = VIEW_IDS
    PREFIX = "tl"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    COMMANDS = {TimelineCommands}
    BINDINGS = [
        *view_bindings("timeline", ((spec.id, spec.title, spec.tooltip) for spec in VIEWS)),
        Binding("c", "cancel", "Cancel", id="timeline.cancel",
                tooltip="Stop opening the report (kills a running nsys export)."),
        Binding("escape", "back", "Back", id="timeline.back",
                tooltip="Cancel opening; or close the gap panel; or go back to the previous "
                "view."),
        Binding("e", "app.export", "Export", id="timeline.export",
                tooltip="Export this report's analysis (when this build of kernelscope can)."),
        views_help_binding("timeline"),
    ]

    DEFAULT_CSS = """
    TimelineScreen #tl-loading {
        width: 76;
        max-width: 100%;
        height: auto;
        margin-top: 4;
        padding: 1 2;
        border: round $primary;
    }
    TimelineScreen #tl-progress-text, TimelineScreen #tl-cancel-hint {
        color: $text-muted;
        margin-top: 1;
    }
    TimelineScreen #tl-views-box, TimelineScreen #tl-views {
        height: 1fr;
    }
    TimelineScreen #tl-views > ContentSwitcher {
        height: 1fr;
    }
    TimelineScreen TabPane {
        padding: 0;
        height: 1fr;
    }
    TimelineScreen.-narrow TimelinePane {
        layout: vertical;
    }
    TimelineScreen.-narrow TimelinePane #tl-gap-panel {
        width: 1fr;
        height: 9;
        border-left: none;
        border-top: hkey $primary;
    }
    """

    def __init__(
        self,
        path: Path,
        *,
        opener: ReportOpener | None = None,
        cache_dir: Path | None = None,
        data: TimelineData | None = None,
        then: Callable[[TimelineScreen], None] | None = None,
        over_another: bool = False,
    ) -> None:
        """``opener``: how the kind reads ``path`` (the session hands it over);
        ``data``: the report already analysed (another view, e.g. a join, opened it);
        ``then(screen)`` runs once the views show. A screen given ``data`` is pushed over
        that view: ``escape`` with nowhere left to go back to closes it. ``over_another``: pushed
        over another screen (see ``OpeningScreen``)."""
        super().__init__(id="timeline-screen", over_another=over_another or data is not None)
        self.path = Path(path)
        self.opener = opener
        self.cache_dir = cache_dir
        self._given = data
        self._then = then
        self.closable = data is not None
        self.data: TimelineData | None = None
        self._filled: set[str] = set()
        self._history: list[str] = []

    # -- layout ----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield from self.compose_opening(f"kernelscope · {self.path.name}",
                                        f"Opening {self.path.name}…")

    def on_mount(self) -> None:
        if self._given is not None:
            self.post_message(TimelineLoaded(self._given))
        else:
            self._open()

    # -- opening ---------------------------------------------------------------------------
    @work(thread=True, exclusive=True, exit_on_error=False, group="timeline-open")
    def _open(self) -> None:
        if self.opener is None:
            raise RuntimeError("a timeline screen needs an opener or the analysed data")
        cancelled = self.cancel_check()
        report = self.opener(self.path, cache_dir=self.cache_dir, progress=self.progress,
                             cancel=cancelled)
        data = build(self.path, report, step=self.step, cancelled=cancelled)
        if cancelled():
            raise OpenCancelled(f"Opening {self.path.name} was cancelled.")
        self.post_message(TimelineLoaded(data))

    @on(TimelineLoaded)
    async def _loaded(self, event: TimelineLoaded) -> None:
        self.data = event.data
        await self.show_views(ViewTabs(id="tl-views-box"))
        self.query_one("#tl-title", Static).update(self.title_line())
        self._fill(self.active_view)
        self._focus_view(self.active_view)
        self.refresh_bindings()
        if self._then is not None:
            self.call_after_refresh(self._then, self)

    def title_line(self) -> str:
        data = self.data
        if data is None:
            return f"kernelscope · {self.path.name}"
        report = data.report
        devices = ", ".join(sorted({d.name for d in report.devices})) or "no GPU"
        parts = ["kernelscope", self.path.name, devices,
                 plural(report.kernels.height, "kernel"), fmt_ns(report.duration_ns)]
        return " · ".join(parts)

    # -- views -----------------------------------------------------------------------------
    @property
    def active_view(self) -> str:
        return self.active_tab

    def view_widget(self, view_id: str) -> Widget:
        return self.query_one(f"#{view_id}", TabPane).children[0]

    @property
    def timeline(self) -> TimelinePane:
        return self.query_one(TimelinePane)

    def _fill(self, view_id: str) -> None:
        if self.data is None or view_id in self._filled:
            return
        self._filled.add(view_id)
        widget = self.view_widget(view_id)
        show = getattr(widget, "show", None)
        if callable(show):
            show(self.data)
        if self.data.report.profiler == KINETO:  # its tables are not nsys stats reports
            for view in widget.query(FrameView):
                for title in view.query(".frame-title").results(Static):
                    title.update(NSYS_SOURCE.sub("", view.title_text))

    def _focus_view(self, view_id: str) -> None:
        widget = self.view_widget(view_id)
        if isinstance(widget, TableView):
            widget.first_table.focus()
        else:
            widget.focus()

    @on(TabbedContent.TabActivated, "#tl-views")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        view_id = event.pane.id or VIEW_IDS[0]
        self.refresh_bindings()
        self._fill(view_id)
        if self.data is not None:
            self._focus_view(view_id)

    def action_show_view(self, view_id: str, remember: bool = True) -> None:
        if self.opening or view_id not in VIEW_IDS:
            return
        current = self.active_view
        if view_id != current and remember:
            self._history.append(current)
        self.show_tab(view_id)
        self._fill(view_id)
        self._focus_view(view_id)

    def action_step_view(self, step: int) -> None:
        self.action_show_view(self.neighbour_tab(step))

    def action_back(self) -> None:
        if self.opening:
            self.action_cancel()
            return
        if self.active_view == "timeline" and self.timeline.clear_selection():
            return
        if self._history:
            self.action_show_view(self._history.pop(), remember=False)
        elif self.active_view != VIEW_IDS[0]:
            self.action_show_view(VIEW_IDS[0], remember=False)
        elif self.closable:
            self.dismiss()

    def _can_go_back(self) -> bool:
        if self.data is None:
            return False
        timeline = self.timeline
        if self.active_view == "timeline" and (
            timeline.selected is not None or timeline.chosen_kernel is not None
        ):
            return True
        return bool(self._history) or self.active_view != VIEW_IDS[0]

    @on(TimelinePane.GapSelected)
    def _gap_selected(self, event: TimelinePane.GapSelected) -> None:
        self.refresh_bindings()

    # -- jumping to the timeline -----------------------------------------------------------
    def show_gap(self, gap: Gap) -> None:
        """Open the timeline on ``gap`` with its explanation."""
        self.action_show_view("timeline")
        timeline = self.timeline
        timeline.call_after_refresh(timeline.select_gap, gap)

    def show_kernel(self, name: str) -> None:
        """Show every instance of kernel ``name`` on the timeline."""
        if self.data is None:
            return
        kernels = self.data.report.kernels
        hits = kernels.filter(pl.col("name").cast(pl.String) == name).select(
            pl.len(), pl.col("start").min(), pl.col("end").max()
        )
        count, first, last = hits.row(0)
        if not count:
            return
        note = f"{self.data.short_name(name)}: {plural(int(count), 'instance')}"
        self._show_range(int(first), int(last), note)
        timeline = self.timeline
        timeline.call_after_refresh(timeline.choose_kernel, name)

    def show_nvtx(self, range_name: str) -> None:
        """Show every instance of NVTX range ``range_name`` on the timeline."""
        if self.data is None:
            return
        ranges = nvtx_ranges(self.data.report).filter(pl.col("range") == range_name)
        if not ranges.height:
            return
        first = int(ranges["start"].min())  # type: ignore[arg-type]
        last = int(ranges["end"].max())  # type: ignore[arg-type]
        self._show_range(first, last, f"NVTX {range_name}: {plural(ranges.height, 'instance')}")

    def _show_range(self, first: int, last: int, note: str) -> None:
        self.action_show_view("timeline")
        timeline = self.timeline
        timeline.call_after_refresh(timeline.show_range, first, max(last, first + 1), note)

    @on(FrameTable.Chosen)
    def _row_chosen(self, event: FrameTable.Chosen) -> None:
        table_id = event.table.id
        if table_id == "gaps-table":
            self.show_gap(gap_of(event.row))
        elif table_id == "kernels-table":
            self.show_kernel(str(event.row["Name"]))
        elif table_id == "nvtx-table":
            self.show_nvtx(str(event.row["Range"]))

    def timeline_reset(self) -> None:
        self.action_show_view("timeline")
        self.timeline.action_reset()

    def timeline_gap(self, direction: int) -> None:
        self.action_show_view("timeline")
        self.timeline.action_gap(direction)

    # -- export and help -------------------------------------------------------------------
    def can_export(self) -> bool:
        return self.data is not None

    def export_job(self, directory: Path) -> ExportJob:
        return ExportJob("timeline", directory / f"{report_stem(self.path)}.timeline.md")

    def render_export(self, job: ExportJob) -> str:
        from kernelscope.export.writer import ExportOptions
        from kernelscope.timeline.export.timeline_export import render_timeline_md

        if self.data is None:
            raise RuntimeError("the timeline is still opening")
        return render_timeline_md(self.data, ExportOptions(fmt="md"))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.opening
        if action == "back":
            return self.opening or self._can_go_back() or self.closable
        if action in ("show_view", "step_view"):
            return self.data is not None
        return True

    @classmethod
    def help_sections(cls) -> HelpSections:
        """The timeline's key tables (``?`` and the README's are made from these)."""
        return (("Timeline screen", (cls,)), ("Timeline view (2)", (TimelinePane,)),
                ("Tables (3–7)", (FrameTable,)))

    def help_page(self) -> str:
        return screen_help(self.app, TIMELINE_HELP, self.help_sections(), palette_tooltip=(
            "Switch views, jump to a gap or a kernel on the timeline."))
