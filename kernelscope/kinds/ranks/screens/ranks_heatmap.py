"""The rank × time heatmap of GPU utilisation: pick a rank and a time window, then open that
rank's own timeline there (``enter``)."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widget import Widget

from kernelscope.core.durations import fmt_duration
from kernelscope.kinds.ranks.analysis.heatmap import rank_utilization
from kernelscope.kinds.ranks.analysis.model import RunAnalysis
from kernelscope.kinds.ranks.render.ranks import ramp_legend, shade
from kernelscope.ui.keys import key_table

ZOOM = 2.0
MIN_SPAN_NS = 1_000


class Heatmap(Widget, can_focus=True):
    """One row per rank, one column per time slice of the common clock."""

    DEFAULT_CSS = """
    Heatmap {
        height: 1fr;
        padding: 0 1;
    }
    """
    BINDINGS = key_table("heatmap", (
        ("up,k", "rank(-1)", "Rank up", "up", False, "Select the rank above."),
        ("down,j", "rank(1)", "Rank down", "down", False, "Select the rank below."),
        ("left,h", "column(-1)", "Earlier", "left", False,
         "Move the time cursor one column earlier."),
        ("right,l", "column(1)", "Later", "right", False, "Move the time cursor one column later."),
        ("plus,i", "zoom(1)", "Zoom in", "zoom-in", True, "Zoom in 2x around the time cursor."),
        ("minus,o", "zoom(-1)", "Zoom out", "zoom-out", True,
         "Zoom out 2x around the time cursor."),
        ("0", "reset", "Whole run", "reset", True, "Show the whole run."),
        ("enter", "open", "Open timeline", "open", True,
         "Open the selected rank's own timeline on the window shown."),
    ))

    class RankChosen(Message):
        """``enter``: open ``rank``'s timeline on [t0, t1) of the common clock."""

        def __init__(self, rank: int, t0: int, t1: int) -> None:
            super().__init__()
            self.rank = rank
            self.t0 = t0
            self.t1 = t1

    def __init__(self, run: RunAnalysis, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.run = run
        self.ranks = list(run.ranks)
        self.row = self.ranks.index(run.straggler.rank) if run.straggler else 0
        self.t0, self.t1 = run.t0, max(run.t1, run.t0 + 1)
        self.column = 0

    # -- geometry --------------------------------------------------------------------------
    @property
    def label_width(self) -> int:
        return len(f"rank {max(self.ranks, key=lambda r: len(str(r)))} *|")

    @property
    def columns(self) -> int:
        return max(self.size.width - self.label_width - 1, 10)

    def column_window(self, column: int) -> tuple[int, int]:
        span = self.t1 - self.t0
        n = self.columns
        return self.t0 + span * column // n, self.t0 + span * (column + 1) // n

    @property
    def selected_rank(self) -> int:
        return self.ranks[self.row]

    # -- drawing ---------------------------------------------------------------------------
    def cells(self) -> dict[int, list[float]]:
        offsets = self.run.clock.offsets_ns
        return {r: rank_utilization(self.run.ranks[r], offsets[r], self.t0, self.t1,
                                    self.columns) for r in self.ranks}

    def render(self) -> Text:
        cells = self.cells()
        self.column = min(self.column, self.columns - 1)
        origin = self.run.t0
        straggler = self.run.straggler.rank if self.run.straggler else None
        text = Text(no_wrap=True, overflow="crop")
        text.append(f"{fmt_duration(self.t0 - origin)} … {fmt_duration(self.t1 - origin)} "
                    f"of the run ({fmt_duration(self.t1 - self.t0)} shown)\n", style="bold")
        width = len(str(max(self.ranks, key=lambda r: len(str(r)))))
        for i, rank in enumerate(self.ranks):
            selected = i == self.row
            star = "*" if rank == straggler else " "
            text.append(f"rank {rank:>{width}} {star}|",
                        style="reverse bold" if selected else "bold" if star == "*" else "")
            row = "".join(shade(v) for v in cells[rank])
            before, at, after = row[:self.column], row[self.column:self.column + 1], \
                row[self.column + 1:]
            text.append(before, style="on grey23" if selected else "")
            text.append(at or " ", style="black on yellow")
            text.append(after + "|\n", style="on grey23" if selected else "")
        c0, c1 = self.column_window(self.column)
        busy = cells[self.selected_rank][self.column] if cells[self.selected_rank] else 0.0
        text.append(f"rank {self.selected_rank} at {fmt_duration(c0 - origin)}–"
                    f"{fmt_duration(c1 - origin)}: GPU busy {100 * busy:.0f} %\n")
        text.append(ramp_legend(), style="dim")
        return text

    # -- keys ------------------------------------------------------------------------------
    def action_rank(self, step: int) -> None:
        self.row = (self.row + step) % len(self.ranks)
        self.refresh()

    def action_column(self, step: int) -> None:
        self.column = min(max(self.column + step, 0), self.columns - 1)
        self.refresh()

    def action_zoom(self, direction: int) -> None:
        c0, c1 = self.column_window(self.column)
        centre = (c0 + c1) // 2
        span = self.t1 - self.t0
        new = span / ZOOM if direction > 0 else span * ZOOM
        full0, full1 = self.run.t0, max(self.run.t1, self.run.t0 + 1)
        new = int(min(max(new, MIN_SPAN_NS), full1 - full0))
        t0 = min(max(centre - new // 2, full0), full1 - new)
        self.t0, self.t1 = t0, t0 + new
        self.column = min(max((centre - self.t0) * self.columns // max(new, 1), 0),
                          self.columns - 1)
        self.refresh()

    def action_reset(self) -> None:
        self.t0, self.t1 = self.run.t0, max(self.run.t1, self.run.t0 + 1)
        self.refresh()

    def action_open(self) -> None:
        self.post_message(self.RankChosen(self.selected_rank, self.t0, self.t1))

    def on_resize(self) -> None:
        self.refresh()
