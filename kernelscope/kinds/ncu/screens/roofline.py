"""The roofline screen: every kernel of the report on one log-log roofline.

Keys switch the precision (FP32, FP64, FP16/BF16, tensor) and the memory level of the x axis
(DRAM, L2, L1), walk the selection through the plotted kernels, and open the selected one.
Kernels that have no point are listed under the chart with the reason.
"""

from __future__ import annotations

from functools import partial

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.widgets import Static

from kernelscope.core.units import NOT_AVAILABLE
from kernelscope.kinds.ncu.analysis.roofline import PRECISION_KEYS, PRECISIONS
from kernelscope.kinds.ncu.analysis.roofline.collect import NOT_COLLECTED
from kernelscope.kinds.ncu.render.roofline import ChartKernel
from kernelscope.kinds.ncu.screens.kernel_commands import KernelReportScreen
from kernelscope.kinds.ncu.screens.kernel_state import KernelState
from kernelscope.kinds.ncu.screens.widgets.diagnosis_pane import best_precision
from kernelscope.kinds.ncu.screens.widgets.roofline_plot import RooflinePlot, RooflineView
from kernelscope.ui.widgets.footer import Footer

LEVELS = ("dram", "l2", "l1")
LEVEL_TITLES = {"dram": "DRAM", "l2": "L2", "l1": "L1"}
TITLES = {p.key: p.title for p in PRECISIONS}
MISSING_LINES = 6


def _si(value: float | None, unit: str) -> str:
    if value is None:
        return NOT_AVAILABLE
    for div, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= div:
            return f"{value / div:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


class RooflineCommands(Provider):
    """Precision and memory-level switches of the roofline screen."""

    def _commands(self) -> list[tuple[str, object, str]]:
        screen = self.screen
        if not isinstance(screen, RooflineScreen):
            return []
        out: list[tuple[str, object, str]] = [
            (f"Roofline: {TITLES[key]}", partial(screen.set_precision, key), "Switch precision.")
            for key in PRECISION_KEYS
        ]
        out += [
            (
                f"Roofline: x axis per {LEVEL_TITLES[lv]} byte",
                partial(screen.set_level, lv),
                "Arithmetic intensity against this memory level.",
            )
            for lv in LEVELS
        ]
        return out

    async def discover(self) -> Hits:
        for text, run, help_text in self._commands():
            yield DiscoveryHit(text, run, help=help_text)  # type: ignore[arg-type]

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, run, help_text in self._commands():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), run, text=text, help=help_text)  # type: ignore[arg-type]


class RooflineScreen(KernelReportScreen[int | None]):
    """All kernels on a roofline; dismissed with the kernel selected last."""

    HELP_TITLE = "Roofline"
    COMMANDS = {RooflineCommands, *KernelReportScreen.COMMANDS}
    BINDINGS = [
        Binding(
            "f",
            "next_precision",
            "Precision",
            id="roofline.precision",
            tooltip="Cycle the precision: FP64, FP32, FP16/BF16, tensor.",
        ),
        Binding(
            "m",
            "next_level",
            "Memory level",
            id="roofline.level",
            tooltip="Arithmetic intensity per DRAM, L2 or L1 byte (hierarchical roofline).",
        ),
        Binding(
            "n,j,down",
            "next_kernel",
            "Next kernel",
            id="roofline.next",
            tooltip="Select the next plotted kernel.",
        ),
        Binding(
            "p,k,up",
            "prev_kernel",
            "Prev kernel",
            id="roofline.prev",
            tooltip="Select the previous plotted kernel.",
        ),
        Binding(
            "enter",
            "open_kernel",
            "Open",
            id="roofline.open",
            tooltip="Open the selected kernel's detail.",
        ),
        Binding(
            "escape,backspace",
            "back",
            "Back",
            id="roofline.back",
            tooltip="Back to the kernel list.",
        ),
    ]
    DEFAULT_CSS = """
    RooflineScreen #roofline-header {
        height: 2;
        padding: 0 1;
        background: $boost;
    }
    RooflineScreen #roofline-plot {
        height: 1fr;
        padding: 0 1;
    }
    RooflineScreen #roofline-missing {
        height: auto;
        max-height: 8;
        padding: 0 1;
        color: $text-muted;
    }
    """

    def __init__(
        self, state: KernelState, selected: int | None = None, precision: str | None = None
    ) -> None:
        super().__init__(state, id="roofline")
        self.selected = selected
        self.precision = precision
        self.level = "dram"
        self.kernels: tuple[ChartKernel, ...] = ()

    def compose(self) -> ComposeResult:
        yield Static("", id="roofline-header")
        yield RooflinePlot(id="roofline-plot")
        yield Static("", id="roofline-missing")
        yield Footer()

    def on_mount(self) -> None:
        self.kernels = self.state.pane_view.chart_kernels()
        if self.precision not in PRECISION_KEYS:
            summary = self.state.summary(self.selected) if self.selected is not None else None
            roof = self.state.diagnosis(summary).roofline if summary is not None else None
            self.precision = best_precision(roof)
        self.redraw()

    # -- drawing ---------------------------------------------------------------------------
    def plotted_ids(self) -> list[int]:
        """The kernels that have a point at the current precision and level, by ID."""
        out = []
        for k in self.kernels:
            point = k.roofline.point(self.precision or "fp32") if k.roofline else None
            if point is None or point.flops_per_s <= 0:
                continue
            intensity = point.intensity_by_level.get(self.level)
            if intensity is not None and intensity > 0:
                out.append(k.id)
        return out

    def redraw(self) -> None:
        precision = self.precision or "fp32"
        plot = self.query_one(RooflinePlot)
        plot.show(RooflineView(self.kernels, self.selected, precision, self.level))
        self._update_header()
        self._update_missing()

    def _update_header(self) -> None:
        precision = self.precision or "fp32"
        first = Text()
        first.append("Roofline ", style="bold")
        first.append(f"{TITLES.get(precision, precision)}", style="bold cyan")
        first.append(f" · x: FLOP per {LEVEL_TITLES[self.level]} byte")
        first.append(
            f" · {len(self.plotted_ids())} of {len(self.kernels)} kernels plotted", style="dim"
        )
        second = Text()
        kernel = next((k for k in self.kernels if k.id == self.selected), None)
        if kernel is None:
            second.append("No kernel selected (n/p to select one).", style="dim")
        else:
            second.append(f"#{kernel.id} {kernel.name}", style="bold")
            point = kernel.roofline.point(precision) if kernel.roofline else None
            if point is None:
                second.append(" · no point at this precision", style="yellow")
            elif point.flops_per_s <= 0:
                second.append(f" · no {TITLES.get(precision, precision)} work", style="yellow")
            else:
                pct = (NOT_AVAILABLE if point.pct_of_peak is None
                       else f"{point.pct_of_peak:.1f}%")
                intensity = point.intensity_by_level.get(self.level)
                second.append(f" · {_si(point.flops_per_s, 'FLOP/s')} ({pct} of peak)")
                second.append(
                    f" · {intensity:.3g} FLOP/B" if intensity else " · no traffic measured"
                )
            summary = self.state.summary(kernel.id)
            if summary is not None:
                second.append(f" · {self.state.diagnosis(summary).label}", style="magenta")
        self.query_one("#roofline-header", Static).update(Text("\n").join([first, second]))

    def _update_missing(self) -> None:
        plotted = set(self.plotted_ids())
        missing = []
        for k in self.kernels:
            if k.id in plotted:
                continue
            reason = NOT_COLLECTED
            if k.roofline is not None:
                point = k.roofline.point(self.precision or "fp32")
                if point is None:
                    reason = k.roofline.missing.get(self.precision or "fp32", reason)
                elif point.flops_per_s <= 0:
                    reason = f"no {TITLES.get(self.precision or 'fp32')} work"
                else:
                    reason = f"no {LEVEL_TITLES[self.level]} traffic measured"
            missing.append(f"#{k.id} {k.name}: {reason}")
        text = Text()
        if missing:
            text.append(f"Not plotted ({len(missing)}): ", style="bold")
            shown = missing[:MISSING_LINES]
            text.append("; ".join(shown))
            if len(missing) > len(shown):
                text.append(f"; … and {len(missing) - len(shown)} more")

        self.query_one("#roofline-missing", Static).update(text)

    # -- actions ---------------------------------------------------------------------------
    def set_precision(self, precision: str) -> None:
        self.precision = precision
        self.redraw()

    def set_level(self, level: str) -> None:
        self.level = level
        self.redraw()

    def action_next_precision(self) -> None:
        keys = list(PRECISION_KEYS)
        current = keys.index(self.precision) if self.precision in keys else -1
        self.set_precision(keys[(current + 1) % len(keys)])

    def action_next_level(self) -> None:
        self.set_level(LEVELS[(LEVELS.index(self.level) + 1) % len(LEVELS)])

    def _step(self, step: int) -> None:
        ids = self.plotted_ids()
        if not ids:
            self.app.bell()
            return
        if self.selected not in ids:
            self.selected = ids[0] if step > 0 else ids[-1]
        else:
            self.selected = ids[(ids.index(self.selected) + step) % len(ids)]
        self.redraw()

    def action_next_kernel(self) -> None:
        self._step(1)

    def action_prev_kernel(self) -> None:
        self._step(-1)

    def action_open_kernel(self) -> None:
        if self.selected is None:
            self.app.bell()
            return
        self.state.open_kernel(self.selected)

    def action_back(self) -> None:
        self.dismiss(self.selected)
