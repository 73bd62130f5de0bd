"""The ranks screen: many per-rank traces of one run, compared.

It reduces the traces in a thread worker (which hands them to worker processes or a Dask
cluster), showing how many are done; ``c`` or ``escape`` cancels. Then four views (number
keys, ``tab``): the ranks side by side, the straggler and the others' waits, the kernel
families across ranks, and the rank × time heatmap, from which ``enter`` opens one rank's own
timeline (``escape`` comes back).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Footer, Static, TabbedContent, TabPane
from textual.worker import Worker, WorkerState, get_current_worker

from kernelscope.parsers.ranks.model import RunAnalysis
from kernelscope.render.format import fmt_duration
from kernelscope.render.ranks import duration, gap_summary, pct
from kernelscope.screens.error import ErrorScreen, error_sentence
from kernelscope.screens.help import HelpScreen, keys_markdown
from kernelscope.screens.ranks_heatmap import Heatmap
from kernelscope.screens.session import ExportJob, HelpSections, ReportScreen, worker_failed
from kernelscope.screens.timeline import TimelineLoaded, TimelineScreen
from kernelscope.tui.widgets.opening import ProgressThrottle, opening_panel, show_progress
from kernelscope.tui.widgets.timeline_table import Column, FrameTable, FrameView

VIEWS = (("ranks", "Ranks"), ("straggler", "Straggler"), ("families", "Families"),
         ("heatmap", "Heatmap"))
MAX_WAIT_COLUMNS = 16

RANKS_HELP = """\
# kernelscope — ranks of one run

One Nsight Systems trace per rank (or one trace holding every rank's process), read side by
side. Ranks are numbered from the launcher's environment in each trace (`RANK`,
`OMPI_COMM_WORLD_RANK`, …), NVTX, or the file names; clocks are aligned on each trace's
session start time (the title says when that is unsafe, e.g. ranks on different hosts).

1. **Ranks** — per rank: steps (NVTX step ranges or the repeating kernel pattern) and the
   median step time, GPU busy %, time in communication (NCCL kernels, MPI calls or the
   collective's NVTX range) and how much of it overlapped compute kernels, the median wait and
   lateness per step at the collectives, and its GPU idle gaps by cause. `enter` opens the
   rank's own timeline.
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


class RunProgress(Message):
    def __init__(self, text: str, fraction: float | None) -> None:
        super().__init__()
        self.text = text
        self.fraction = fraction

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, RunProgress)


class RunLoaded(Message):
    def __init__(self, run: RunAnalysis, doc: dict[str, Any]) -> None:
        super().__init__()
        self.run = run
        self.doc = doc


def _ns(value: Any) -> str:
    return duration(value)


def rank_frame(doc: dict[str, Any]) -> pl.DataFrame:
    rows = [{
        "rank": r["rank"], "file": r["file"], "pid": r["pid"], "host": r["host"],
        "devices": ", ".join(r["devices"]), "steps": r["steps"],
        "step_time_ns": r["step_time_ns"], "gpu_busy_pct": r["gpu_busy_pct"],
        "comm_ns": r["comm_ns"], "overlap_pct": r["overlap_pct"],
        "wait_ns_per_step": r["wait_ns_per_step"], "late_ns_per_step": r["late_ns_per_step"],
        "last": f"{r['last_count']}/{r['collectives']}", "gaps": gap_summary(r["gaps"], 2),
    } for r in doc["ranks"]]
    return pl.DataFrame(rows, infer_schema_length=None)


RANK_COLUMNS = (
    Column("rank", "Rank", str), Column("steps", "Steps", str, priority=4),
    Column("step_time_ns", "Step time", _ns),
    Column("gpu_busy_pct", "GPU busy", pct), Column("comm_ns", "Comm", _ns),
    Column("overlap_pct", "Overlap", pct, priority=3),
    Column("wait_ns_per_step", "Wait/step", _ns),
    Column("late_ns_per_step", "Late/step", _ns, priority=1),
    Column("last", "Last at", str, priority=2),
    Column("gaps", "Idle gaps by cause", str, numeric=False, flex=True),
)


def describe_rank(row: dict[str, Any]) -> str:
    """The status line under the ranks table: where the highlighted rank came from."""
    parts = [f"rank {row['rank']}: {Path(row['file']).name}"]
    if row.get("pid"):
        parts.append(f"pid {row['pid']}")
    if row.get("host"):
        parts.append(f"host {row['host']}")
    if row.get("devices"):
        parts.append(str(row["devices"]))
    return " · ".join(parts)


def steps_frame(doc: dict[str, Any]) -> tuple[pl.DataFrame, list[Column]]:
    ranks = [r["rank"] for r in doc["ranks"]][:MAX_WAIT_COLUMNS]
    rows = []
    for s in doc["steps"]:
        row = {"step": s["step"], "last_rank": s["last_rank"], "late_ns": s["late_ns"]}
        row.update({f"w{r}": s["wait_ns"].get(str(r)) for r in ranks})
        rows.append(row)
    columns = [Column("step", "Step", str), Column("last_rank", "Last", str),
               Column("late_ns", "Late by", _ns),
               *(Column(f"w{r}", f"Wait r{r}", _ns) for r in ranks)]
    schema = {"step": pl.Int64, "last_rank": pl.Int64, "late_ns": pl.Float64,
              **{f"w{r}": pl.Int64 for r in ranks}}
    return pl.DataFrame(rows, schema=schema), columns


def _what(row: dict[str, Any]) -> str:
    return {"window": "lead-in", "gpu": "GPU busy"}.get(row["what"], f"NVTX {row['name']}")


INSTEAD_COLUMNS = (Column("item", "Before arriving", str, numeric=False, flex=True),
                   Column("ns", "Straggler", _ns), Column("others_ns", "Others", _ns),
                   Column("extra_ns", "Extra", _ns))
CPU_COLUMNS = (Column("source", "Source", str, numeric=False),
               Column("name", "Call", str, numeric=False, flex=True),
               Column("calls", "Calls", str), Column("ns", "Time", _ns),
               Column("others_ns", "Compared rank", _ns))
FAMILY_COLUMNS = (
    Column("name", "Kernel", str, numeric=False, flex=True, kernel_names=True),
    Column("ranks", "Ranks", str, priority=4),
    Column("instances", "Instances", lambda v: f"{v:,}", priority=3),
    Column("total_ns", "Total", _ns),
    Column("min_ns", "Min", _ns, priority=2), Column("med_ns", "Median", _ns),
    Column("max_ns", "Max", _ns, priority=1),
    Column("slowest_rank", "Slowest", str),
    Column("ratio", "Ratio", lambda v: f"{v:.2f}x"),
    Column("flag", "Flag", str, numeric=False),
)


class RankTimelineScreen(TimelineScreen):
    """One rank's own timeline, opened on a window of it; ``escape`` goes back to the ranks."""

    HELP_TITLE = "Rank timeline"

    def __init__(self, path: Path, *, window: tuple[int, int] | None, note: str,
                 cache_dir: Path | None = None) -> None:
        super().__init__(path, cache_dir=cache_dir)
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


class RanksScreen(ReportScreen[None]):
    """The ranks of one run, compared; ``e`` writes the run to ``export_name``."""

    HELP_TITLE = "Ranks screen"
    BINDINGS = [
        *(Binding(str(i), f"show_view('{vid}')", title, show=False, id=f"ranks.view-{vid}",
                  tooltip=f"Show view {i}: {title}.")
          for i, (vid, title) in enumerate(VIEWS, start=1)),
        Binding("tab", "step_view(1)", "Next view", show=False, id="ranks.next-view",
                tooltip="Show the next view."),
        Binding("shift+tab", "step_view(-1)", "Previous view", show=False,
                id="ranks.prev-view", tooltip="Show the previous view."),
        Binding("c,escape", "cancel", "Cancel", id="ranks.cancel",
                tooltip="Stop reading the traces (kills the worker processes)."),
        Binding("question_mark,f1", "help", "Help", id="ranks.help",
                tooltip="Show the help: what each view shows and every key."),
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
        self.opening = True
        self._cancel = threading.Event()
        self._throttle = ProgressThrottle()

    # -- layout ----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(f"kernelscope · {len(self.paths)} traces", id="rk-title",
                     classes="screen-title", markup=False)
        yield from opening_panel("rk", f"Reading {len(self.paths)} traces…")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._analyse()

    def on_unmount(self) -> None:
        self._cancel.set()

    # -- reading ---------------------------------------------------------------------------
    def _progress(self, text: str, fraction: float | None) -> None:
        if self._throttle.due(fraction):
            self.post_message(RunProgress(text, fraction))

    @work(thread=True, exclusive=True, exit_on_error=False, group="ranks-open")
    def _analyse(self) -> None:
        from kernelscope.export.ranks_json import to_export_dict
        from kernelscope.parsers.ranks.reduce import ReduceOptions
        from kernelscope.parsers.ranks.run import analyse_run

        worker = get_current_worker()
        cache = self.cache_dir
        run = analyse_run(
            self.paths, options=ReduceOptions(cache_dir=str(cache) if cache else None),
            workers=self.processes, scheduler=self.scheduler,
            progress=self._progress,
            cancel=lambda: self._cancel.is_set() or worker.is_cancelled)
        self.post_message(RunLoaded(run, to_export_dict(run)))

    @on(RunProgress)
    def _show_progress(self, event: RunProgress) -> None:
        if not self.opening:
            return
        show_progress(self, "rk", event.text, event.fraction)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR and event.worker.error is not None:
            self.opening = False
            if self.run is None:  # nothing of the run is shown: the command line exits 2
                self.log.error(event.worker.error)
                self.app.switch_screen(ErrorScreen(error_sentence(event.worker.error)))
            else:
                worker_failed(self, event)

    @on(RunLoaded)
    async def _loaded(self, event: RunLoaded) -> None:
        self.run, self.doc = event.run, event.doc
        self.opening = False
        await self.query_one("#rk-loading-center").remove()
        await self.mount(self._views(event.run, event.doc), before=self.query_one(Footer))
        self.query_one("#rk-title", Static).update(self.title_line())
        self.query_one("#rk-ranks-view", FrameView).table.focus()
        self.refresh_bindings()

    def _views(self, run: RunAnalysis, doc: dict[str, Any]) -> TabbedContent:
        verdict = run.straggler.verdict if run.straggler else run.straggler_note
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
        s = doc["straggler"]
        instead = pl.DataFrame(
            [{"item": _what(i), "ns": i["ns"], "others_ns": i["others_ns"],
              "extra_ns": i["extra_ns"]} for i in (s["instead"] if s else [])],
            schema={"item": pl.String, "ns": pl.Float64, "others_ns": pl.Float64,
                    "extra_ns": pl.Float64})
        self.query_one("#rk-instead-view", FrameView).table.set_frame(instead)
        cpu = pl.DataFrame(s["cpu_calls"] if s and s["cpu_calls"] else [],
                           schema={"source": pl.String, "name": pl.String, "calls": pl.Int64,
                                   "ns": pl.Int64, "others_ns": pl.Int64})
        self.query_one("#rk-cpu-view", FrameView).table.set_frame(cpu)
        fams = pl.DataFrame([{
            **{k: f[k] for k in ("name", "ranks", "instances", "total_ns", "min_ns", "med_ns",
                                 "max_ns", "slowest_rank", "ratio")},
            "flag": "communication" if f["comm"] else ("SLOWER" if f["flagged"] else ""),
        } for f in doc["families"]], infer_schema_length=None)
        if fams.height:
            self.query_one("#rk-families-view", FrameView).table.set_frame(fams)

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
        self.query_one("#rk-views", TabbedContent).active = view_id
        self._focus(view_id)

    def _focus(self, view_id: str) -> None:
        target = {"ranks": "#rk-ranks-table", "straggler": "#rk-steps-table",
                  "families": "#rk-families-table", "heatmap": "#rk-heatmap"}[view_id]
        self.query_one(target).focus()

    def action_step_view(self, step: int) -> None:
        ids = [v for v, _ in VIEWS]
        current = self.query_one("#rk-views", TabbedContent).active or ids[0]
        self.action_show_view(ids[(ids.index(current) + step) % len(ids)])

    @on(TabbedContent.TabActivated, "#rk-views")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self._focus(event.pane.id or "ranks")

    def action_cancel(self) -> None:
        if self.opening:
            self._cancel.set()
            self.query_one("#rk-progress-text", Static).update("Cancelling…")

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
        self.app.push_screen(RankTimelineScreen(Path(summary.file), window=window, note=note,
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
        from kernelscope.export.ranks import render_document

        if self.doc is None:
            raise RuntimeError("the ranks are still being read")
        return render_document(self.doc, "md")

    # -- help ----------------------------------------------------------------------------
    @classmethod
    def help_sections(cls) -> HelpSections:
        """The ranks screen's key tables (``?`` and the README's are made from these)."""
        return (("Ranks screen", (cls,)), ("Heatmap (4)", (Heatmap,)), ("Tables", (FrameTable,)))

    def action_help(self) -> None:
        if isinstance(self.app.screen, HelpScreen):
            return
        sections = [*((title, [b for cls in classes for b in cls.BINDINGS])
                      for title, classes in self.help_sections()),
                    ("Everywhere", self.app.BINDINGS)]
        keys = keys_markdown(self.app, sections)  # type: ignore[arg-type]
        self.app.push_screen(HelpScreen(RANKS_HELP.replace("<!-- keys -->", keys)))
