"""The diagnosis of one kernel as a widget (the kernel detail's Diagnosis pane shows it).

The pane shows the bottleneck label with its evidence, the flags (severity, checklist level,
evidence, remedy, NCU's estimated speedup), the guard rails applied, what could not be checked,
and a small roofline with every kernel of the report and this one highlighted.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from kernelscope.core.kernel_names import short_name
from kernelscope.kinds.ncu.analysis.diagnosis import Diagnosis, Evidence, Flag
from kernelscope.kinds.ncu.analysis.roofline import Roofline, main_precision
from kernelscope.kinds.ncu.model import KernelDetail
from kernelscope.kinds.ncu.render.flag_cells import top_choice_text
from kernelscope.kinds.ncu.render.roofline import ChartKernel
from kernelscope.kinds.ncu.screens.diagnosis_view import DiagnosisPaneView
from kernelscope.kinds.ncu.screens.widgets.roofline_plot import RooflinePlot, RooflineView
from kernelscope.render.findings import evidence_text
from kernelscope.render.severity import badge_style
from kernelscope.ui.widgets.kept_visual import KeptRichVisual

LABEL_STYLE = "bold magenta"


def blank() -> Text:
    return Text("")


def evidence_line(e: Evidence) -> Text:
    mark = {True: ("✓ ", "green"), False: ("· ", "dim"), None: ("  ", "")}[e.holds]
    line = Text(mark[0], style=mark[1])
    line.append(f"[{e.step}] ", style="dim")
    line.append(evidence_text(e))
    return line


def evidence_lines(held: Sequence[Evidence], not_held: Sequence[Evidence]) -> list[Text]:
    """What held, then, apart and labelled so, the checks that did not hold."""
    lines = [evidence_line(e) for e in held]
    if not_held:
        lines.append(Text("Checked, did not hold:", style="dim italic"))
        lines.extend(evidence_line(e) for e in not_held)
    return lines


def flag_block(flag: Flag) -> list[RenderableType]:
    head = Table.grid(expand=True, padding=(0, 1))
    head.add_column(no_wrap=True)
    head.add_column(ratio=1)
    head.add_column(justify="right", no_wrap=True)
    title = Text(f"L{flag.level} ", style="dim")
    title.append(flag.title, style="bold")
    title.append(f"  ({flag.id})", style="dim")
    speed = ""
    if flag.speedup is not None:
        speed = f"NCU est. speedup {flag.speedup:,.1f}%"
    head.add_row(
        Text(f" {flag.severity.upper()} ", style=badge_style(flag.severity)),
        title,
        Text(speed, style="bold green"),
    )
    out: list[RenderableType] = [head]
    body: list[RenderableType] = []
    if flag.detail:
        body.append(Text(flag.detail))
    if flag.guard:
        body.append(Text(f"Not a problem here: {flag.guard}", style="italic cyan"))
    body.extend(evidence_lines(flag.held, flag.not_held))
    body.append(Text("→ " + flag.advice, style="green"))
    if flag.rule:
        body.append(Text(f"NCU rule: {flag.rule}", style="dim"))
    out.extend(Padding(item, (0, 0, 0, 4)) for item in body)
    return out


def render_diagnosis(d: Diagnosis) -> list[RenderableType]:
    """The pane's text: label and evidence, flags, guard rails, notes."""
    head = Text("Bottleneck: ", style="bold")
    head.append(d.label, style=LABEL_STYLE)
    out: list[RenderableType] = [head, Text(d.bottleneck.summary)]
    b = d.bottleneck
    out.extend(Padding(line, (0, 0, 0, 2)) for line in evidence_lines(b.held, b.not_held))
    out.append(blank())
    if d.flags:
        top = top_choice_text(d)
        if top is not None:
            line = Text("Top flag: ", style="bold")
            line.append(top)
            out.append(line)
        out.append(Text(f"Flags ({len(d.flags)}), by checklist level", style="bold"))
        for flag in d.flags:
            out.extend(flag_block(flag))
    else:
        out.append(Text("No flags raised.", style="bold green"))
    if d.guard_rails:
        out.extend([blank(), Text("Guard rails (misreadings avoided)", style="bold")])
        for g in d.guard_rails:
            line = Text(f"• {g.id}: ", style="cyan")
            line.append(g.text)
            out.append(Padding(line, (0, 0, 0, 2)))
    if d.notes:
        out.extend([blank(), Text("Not checked", style="bold")])
        out.extend(Padding(Text(f"• {n}", style="dim"), (0, 0, 0, 2)) for n in d.notes)
    return out


def best_precision(roofline: Roofline | None) -> str:
    """The precision this kernel does most of its work in (FP32 when it does none)."""
    return main_precision(roofline)


def chart_name(demangled: str, width: int = 28) -> str:
    """A kernel's name for a chart label: its compact name, fitted to ``width``."""
    return short_name(demangled, width)


class DiagnosisView(Vertical):
    """The diagnosis of one kernel, above a small roofline of the whole report. It shows
    what the report's analysis holds (``DiagnosisPaneView``); a kernel whose diagnosis is
    not made yet says so while a worker makes it."""

    DEFAULT_CSS = """
    DiagnosisView {
        height: auto;
    }
    DiagnosisView > .diagnosis-body {
        height: auto;
    }
    DiagnosisView > RooflinePlot {
        height: 22;
        margin-top: 1;
    }
    """

    diagnosis: Diagnosis | None = None
    """The diagnosis shown (None while it is being made)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._wanted: tuple[DiagnosisPaneView, KernelDetail] | None = None

    def compose(self) -> ComposeResult:
        yield Static("", classes="diagnosis-body", id="diagnosis-body")
        yield RooflinePlot(id="diagnosis-roofline")

    def show(self, detail: KernelDetail, view: DiagnosisPaneView) -> None:
        """Show ``detail``'s diagnosis as the report's analysis holds it (``view``); when it
        is not made yet (a kernel not read by the detail screen's workers, or read before
        more kernels arrived), say so and make it in a worker."""
        self._wanted = (view, detail)
        reading = view.held(detail.id)
        if reading is not None:
            self._draw(detail, reading.diagnosis, view)
            return
        self.diagnosis = None
        body = self.query_one("#diagnosis-body", Static)
        body.update(Text(f"Diagnosing kernel {detail.id}…", style="yellow"))
        self._diagnose(view, detail)

    @work(thread=True, exclusive=True, exit_on_error=False, group="diagnosis")
    def _diagnose(self, view: DiagnosisPaneView, detail: KernelDetail) -> None:
        reading = view.read(detail)
        self.app.call_from_thread(self._diagnosed, view, detail, reading.diagnosis)

    def _diagnosed(self, view: DiagnosisPaneView, detail: KernelDetail, d: Diagnosis) -> None:
        wanted = self._wanted  # (still shown: not closed, nor moved on to another kernel)
        if self.is_mounted and wanted is not None and wanted[0] is view and wanted[1] is detail:
            self._draw(detail, d, view)

    def _draw(self, detail: KernelDetail, d: Diagnosis, view: DiagnosisPaneView) -> None:
        self.diagnosis = d
        body = self.query_one("#diagnosis-body", Static)
        body.update(KeptRichVisual(body, Group(*render_diagnosis(d))))
        kernels = view.chart_kernels()
        if not any(k.id == detail.id for k in kernels):
            kernels = (
                *kernels,
                ChartKernel(detail.id, chart_name(detail.demangled), d.roofline),
            )
        self.query_one(RooflinePlot).show(
            RooflineView(kernels, selected=detail.id, precision=best_precision(d.roofline))
        )
