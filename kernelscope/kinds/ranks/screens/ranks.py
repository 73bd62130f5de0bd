"""The ranks screen: many per-rank traces of one run, compared.

It reduces the traces in a thread worker (which hands them to worker processes or a Dask
cluster), showing how many are done; ``c`` or ``escape`` cancels. Then four views (number
keys, ``tab``): the ranks side by side, the straggler and the others' waits, the kernel
families across ranks, and the rank × time heatmap, from which ``enter`` opens one rank's own
timeline (``escape`` comes back).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Static, TabbedContent, TabPane

from kernelscope.core.durations import fmt_duration
from kernelscope.kinds.kineto.screens.kineto_session import KinetoTimelineScreen
from kernelscope.kinds.nsys.model.opener import open_report
from kernelscope.kinds.ranks.analysis.model import RunAnalysis
from kernelscope.kinds.ranks.render.ranks import straggler_note, straggler_verdict
from kernelscope.kinds.ranks.screens.ranks_heatmap import Heatmap
from kernelscope.kinds.ranks.screens.ranks_tables import (
    CPU_COLUMNS,
    FAMILY_COLUMNS,
    INSTEAD_COLUMNS,
    RANK_COLUMNS,
    cpu_frame,
    describe_rank,
    families_frame,
    instead_frame,
    rank_frame,
    steps_frame,
)
from kernelscope.timeline.screens.timeline import TimelineLoaded, TimelineScreen
from kernelscope.timeline.screens.widgets.timeline_table import FrameTable, FrameView
from kernelscope.ui.help import screen_help
from kernelscope.ui.session import ExportJob, HelpSections
from kernelscope.ui.tabbed import OpeningScreen, view_bindings, views_help_binding

VIEWS = (("ranks", "Ranks"), ("straggler", "Straggler"), ("families", "Families"),
         ("heatmap", "Heatmap"))

RANKS_HELP = """\
# kernelscope — ranks of one run

One Nsight Systems or PyTorch profiler trace per rank (or one Nsight Systems trace holding
every rank's process), read side by side. Ranks are numbered from the launcher's environment
in each trace (`RANK`, `OMPI_COMM_WORLD_RANK`, …, PyTorch's `distributedInfo`), NVTX, or the
file names; collectives are matched across ranks by what identifies them (group, name, size,
dtype); clocks are aligned on each trace's session start (or base) time and shifted only where
the matched collectives show a consistent offset (the clock line says which; the title says
when the alignment is unsafe).

1. **Ranks** — per rank: steps (profiler steps, NVTX step ranges or the repeating kernel
   pattern) and the median step time, GPU busy %, time in communication (NCCL kernels, MPI
   calls, the backend's or the collective's NVTX ranges) and how much of it overlapped
   compute kernels, the median wait and lateness per step at the collectives, and its GPU
   idle gaps by cause. `enter` opens the rank's own timeline.
2. **Straggler** — who arrives last at the collectives and by how much per step, every rank's
   wait, what the straggler did before arriving compared with the others (NVTX ranges, GPU
   work), and its thread's CPU calls in those lead-ins.
3. **Families** — per kernel name min / median / max across ranks; `SLOWER` flags a kernel
   whose median on one rank is 10 % or more above the others' (a slower GPU).
4. **Heatmap** — GPU utilisation of each rank over time (` ` idle … `@` busy); `*` marks the
   straggler. Zoom with `+`/`-`, move with the arrows, `enter` opens the selected rank's
   timeline on the window shown.

## Keys

<!-- keys -->
"""


class RunLoaded(Message):
    def __init__(self, run: RunAnalysis, doc: dict[str, Any]) -> None:
        super().__init__()
        self.run = run
        self.doc = doc


class RankTimelineScreen(TimelineScreen):
    """One rank's own timeline, opened on a window of it; ``escape`` goes back to the ranks."""

    HELP_TITLE = "Rank timeline"

    def __init__(self, path: Path, *, window: tuple[int, int] | None, note: str,
                 cache_dir: Path | None = None) -> None:
        super().__init__(path, opener=open_report, cache_dir=cache_dir, over_another=True)
        self.window = window
        self.note = note

    @on(TimelineLoaded)
    async def _loaded_on_window(self, event: TimelineLoaded) -> None:
        event.prevent_default()
        await TimelineScreen._loaded(self, event)
        if self.window is not None:
            self._show_range(self.window[0], self.window[1], self.note)

    def _can_go_back(self) -> bool:
        return True

    def action_back(self) -> None:
        """Cancel opening, or close the gap panel, or go back to the ranks."""
        if self.opening:
            super().action_back()
            return
        if self.active_view == "timeline" and self.timeline.clear_selection():
            return
        self.dismiss()



class KinetoRankTimelineScreen(RankTimelineScreen):
    """One rank's own timeline when the ranks are PyTorch profiler traces."""

    _open = KinetoTimelineScreen._open

class RanksScreen(OpeningScreen[None]):
    """The ranks of one run, compared; ``e`` writes the run to ``export_name``."""

    HELP_TITLE = "Ranks screen"
    TABS = "rk-views"
    TAB_IDS = tuple(view_id for view_id, _ in VIEWS)
    PREFIX = "rk"
    BINDINGS = [
        *view_bindings("ranks", ((view_id, title, f"{title}.") for view_id, title in VIEWS)),
        Binding("c,escape", "cancel", "Cancel", id="ranks.cancel",
                tooltip="Stop reading the traces (kills the worker processes)."),
        views_help_binding("ranks"),
    ]
    DEFAULT_CSS = """
    RanksScreen #rk-loading {
        width: 76; max-width: 100%; height: auto; margin-top: 4; padding: 1 2;
        border: round $primary;
    }
    RanksScreen #rk-progress-text { color: $text-muted; margin-top: 1; }
    RanksScreen #rk-views, RanksScreen #rk-views > ContentSwitcher { height: 1fr; }
    RanksScreen TabPane { padding: 0; height: 1fr; }
    RanksScreen .rk-verdict { height: auto; max-height: 8; padding: 0 1; }
    """

    def __init__(self, paths: Sequence[Path], *, cache_dir: Path | None = None,
                 workers: int | None = None, scheduler: str | None = None,
                 export_name: str = "run.ranks.md") -> None:
        super().__init__(id="ranks-screen")
        self.export_name = export_name
        self.paths = [Path(p) for p in paths]
        self.cache_dir = cache_dir
        self.processes = workers  # ("workers" is Textual's own attribute)
        self.scheduler = scheduler
        self.run: RunAnalysis | None = None
        self.doc: dict[str, Any] | None = None

    # -- layout ----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield from self.compose_opening(f"kernelscope · {len(self.paths)} traces",
                                        f"Reading {len(self.paths)} traces…")

    def on_mount(self) -> None:
        self._analyse()

    # -- reading ---------------------------------------------------------------------------
    @work(thread=True, exclusive=True, exit_on_error=False, group="ranks-open")
    def _analyse(self) -> None:
        from kernelscope.kinds.ranks.analysis.reduce import ReduceOptions
        from kernelscope.kinds.ranks.analysis.run import analyse_run
        from kernelscope.kinds.ranks.export.ranks_json import to_export_dict

        cache = self.cache_dir
        run = analyse_run(
            self.paths, options=ReduceOptions(cache_dir=str(cache) if cache else None),
            workers=self.processes, scheduler=self.scheduler,
            progress=self.progress, cancel=self.cancel_check())
        self.post_message(RunLoaded(run, to_export_dict(run)))

    @on(RunLoaded)
    async def _loaded(self, event: RunLoaded) -> None:
        self.run, self.doc = event.run, event.doc
        await self.show_views(self._views(event.run, event.doc))
        self.query_one("#rk-title", Static).update(self.title_line())
        self.query_one("#rk-ranks-view", FrameView).table.focus()
        self.refresh_bindings()

    def _views(self, run: RunAnalysis, doc: dict[str, Any]) -> TabbedContent:
        verdict = (straggler_verdict(run.straggler) if run.straggler
                   else straggler_note(run.verdict))
        clock = ("Clock: " + run.clock.note + ("" if run.clock.safe else " (unsafe)"))
        ranks_view = FrameView("Ranks side by side", RANK_COLUMNS, sort="rank",
                               descending=False, noun="ranks", choosable=True,
                               describe=describe_rank,
                               id="rk-ranks-view", table_id="rk-ranks-table")
        steps, step_columns = steps_frame(doc)
        families = FrameView("Kernel families across ranks", FAMILY_COLUMNS, sort="total_ns",
                             noun="kernel names", describe=lambda row: str(row["name"]),
                             id="rk-families-view",
                             table_id="rk-families-table")
        tabs = TabbedContent(id="rk-views", initial="ranks")
        ranks_pane = TabPane("1 Ranks", Static(verdict, classes="rk-verdict", markup=False),
                             Static(clock, classes="rk-verdict", markup=False), ranks_view,
                             id="ranks")
        step_view = FrameView("Per step: lateness of the last rank, every rank's wait",
                              step_columns, sort="step", descending=False, noun="steps",
                              id="rk-steps-view", table_id="rk-steps-table")
        instead = FrameView("What the straggler did before arriving (median per collective)",
                            INSTEAD_COLUMNS, sort="extra_ns", noun="items",
                            id="rk-instead-view", table_id="rk-instead-table")
        cpu = FrameView("Its thread's CPU calls in those lead-ins", CPU_COLUMNS, sort="ns",
                        noun="calls", id="rk-cpu-view", table_id="rk-cpu-table")
        straggler_pane = TabPane("2 Straggler", Static(verdict, classes="rk-verdict",
                                                       markup=False),
                                 step_view, instead, cpu, id="straggler")
        family_pane = TabPane("3 Families", families, id="families")
        heat_pane = TabPane("4 Heatmap", Heatmap(run, id="rk-heatmap"), id="heatmap")
        tabs.compose_add_child(ranks_pane)
        tabs.compose_add_child(straggler_pane)
        tabs.compose_add_child(family_pane)
        tabs.compose_add_child(heat_pane)
        self.call_after_refresh(self._fill, doc, steps)
        return tabs

    def _fill(self, doc: dict[str, Any], steps: pl.DataFrame) -> None:
        self.query_one("#rk-ranks-view", FrameView).table.set_frame(rank_frame(doc))
        self.query_one("#rk-steps-view", FrameView).table.set_frame(steps)
        self.query_one("#rk-instead-view", FrameView).table.set_frame(instead_frame(doc))
        self.query_one("#rk-cpu-view", FrameView).table.set_frame(cpu_frame(doc))
        families = families_frame(doc)
        if families.height:
            self.query_one("#rk-families-view", FrameView).table.set_frame(families)

    def title_line(self) -> str:
        run = self.run
        if run is None:
            return f"kernelscope · {len(self.paths)} traces"
        parts = ["kernelscope", f"{len(run.ranks)} ranks",
                 f"communication: {run.comm_source or 'none found'}"]
        if run.straggler:
            parts.append(f"straggler: rank {run.straggler.rank} "
                         f"(+{fmt_duration(run.straggler.late_ns_per_step)}/step)")
        else:
            parts.append("no straggler")
        if not run.clock.safe:
            parts.append("clock alignment unsafe")
        return " · ".join(parts)

    # -- views -----------------------------------------------------------------------------
    def action_show_view(self, view_id: str) -> None:
        if self.opening:
            return
        self.show_tab(view_id)
        self._focus(view_id)

    def _focus(self, view_id: str) -> None:
        target = {"ranks": "#rk-ranks-table", "straggler": "#rk-steps-table",
                  "families": "#rk-families-table", "heatmap": "#rk-heatmap"}[view_id]
        self.query_one(target).focus()

    def action_step_view(self, step: int) -> None:
        self.action_show_view(self.neighbour_tab(step))

    @on(TabbedContent.TabActivated, "#rk-views")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self._focus(event.pane.id or "ranks")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.opening
        if action in ("show_view", "step_view"):
            return not self.opening
        return True

    # -- drilling down ---------------------------------------------------------------------
    def open_rank(self, rank: int, t0: int | None = None, t1: int | None = None) -> None:
        """Open ``rank``'s own timeline (on [t0, t1) of the common clock when given)."""
        if self.run is None or rank not in self.run.ranks:
            return
        summary = self.run.ranks[rank]
        offset = self.run.clock.offsets_ns.get(rank, 0)
        window = None if t0 is None or t1 is None else (t0 - offset, t1 - offset)
        note = f"rank {rank}" + (f" (process {summary.pid})" if summary.pid else "")
        screen = (KinetoRankTimelineScreen if self.run.extra.get("trace_kind") == "kineto"
                  else RankTimelineScreen)
        self.app.push_screen(screen(Path(summary.file), window=window, note=note,
                                    cache_dir=self.cache_dir))

    @on(Heatmap.RankChosen)
    def _heatmap_chosen(self, event: Heatmap.RankChosen) -> None:
        self.open_rank(event.rank, event.t0, event.t1)

    @on(FrameTable.Chosen, "#rk-ranks-table")
    def _rank_chosen(self, event: FrameTable.Chosen) -> None:
        self.open_rank(int(event.row["rank"]))

    # -- export (e) ------------------------------------------------------------------------
    def can_export(self) -> bool:
        return self.doc is not None

    def export_job(self, directory: Path) -> ExportJob:
        return ExportJob("ranks", directory / self.export_name)

    def render_export(self, job: ExportJob) -> str:
        from kernelscope.kinds.ranks.export.ranks_markdown import render_ranks_markdown

        if self.doc is None:
            raise RuntimeError("the ranks are still being read")
        return render_ranks_markdown(self.doc)

    # -- help ----------------------------------------------------------------------------
    @classmethod
    def help_sections(cls) -> HelpSections:
        """The ranks screen's key tables (``?`` and the README's are made from these)."""
        return (("Ranks screen", (cls,)), ("Heatmap (4)", (Heatmap,)), ("Tables", (FrameTable,)))

    def help_page(self) -> str:
        return screen_help(self.app, RANKS_HELP, self.help_sections())
