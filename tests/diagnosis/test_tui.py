"""The diagnosis in the TUI: list columns, the Diagnosis pane and the roofline screen. Each test
walks one app through its keys (the list and its filter, then the pane of two kernels and a
diagnosis its worker makes; the roofline's keys and enter)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from kernelscope.kinds.ncu.analysis.report_analysis import ReportAnalysis
from kernelscope.kinds.ncu.screens.diagnosis_view import DiagnosisPaneView
from kernelscope.kinds.ncu.screens.kernel_detail import KernelDetailScreen
from kernelscope.kinds.ncu.screens.kernel_list import KernelListScreen
from kernelscope.kinds.ncu.screens.roofline import RooflineScreen
from kernelscope.kinds.ncu.screens.widgets.diagnosis_pane import DiagnosisView
from kernelscope.kinds.ncu.screens.widgets.roofline_plot import RooflinePlot
from kernelscope.tui.app import create_app
from tests.timeline_tui.helpers import until_drawn
from tests.tui.helpers import screen_text, settle

ZOO_A = Path(__file__).resolve().parents[2] / "samples" / "ncu" / "zoo_a.ncu-rep.xz"


async def test_roofline_screen_keys_and_enter() -> None:
    app = create_app(ZOO_A)
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "down")  # mm_tiled
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RooflineScreen)
        assert screen.selected == 3 and screen.precision == "fp32"
        text = screen_text(app)
        assert "FP32 roofline" in text
        assert "mm_tiled" in text and "◆" in text
        assert "Not plotted (3)" in text and "no FP32 work" in text
        await pilot.press("n")
        assert screen.selected == 0  # wraps around the plotted kernels 0, 2, 3
        await pilot.press("f")
        assert screen.precision == "fp16"
        await pilot.press("m")
        assert screen.level == "l2"
        await settle(pilot)
        assert "FP16/BF16 roofline" in screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, KernelListScreen)
        assert app.screen.highlighted_id() == 0
        # enter on the roofline opens the kernel it selects
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("n", "n")
        selected = app.screen.selected
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, KernelDetailScreen)
        assert app.screen.kernel_id == selected


async def test_a_roofline_with_nothing_to_show_names_the_section_once() -> None:
    """gemm_sets_default has ncu's default sections: no kernel has a roofline point, and the
    chart says once which section would give them one."""
    app = create_app(Path(__file__).resolve().parents[2] / "samples" / "ncu"
                     / "gemm_sets_default.ncu-rep.xz")
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        await until_drawn(pilot)
        assert isinstance(app.screen, RooflineScreen)
        text = screen_text(app)
        assert "Not plotted (4)" in text and "instruction-rate metrics not collected" in text
        assert text.count("to plot them: ncu --section SpeedOfLight_RooflineChart (or --set "
                          "full)") == 1
async def diagnosis_pane_of(pilot, kernel: int) -> list[str]:  # type: ignore[no-untyped-def]
    """Open ``kernel``'s detail, show its Diagnosis pane, and return the screen's lines."""
    app = pilot.app
    app.session.open_kernel(kernel)
    await settle(pilot)
    assert isinstance(app.screen, KernelDetailScreen)
    await pilot.press("0")
    await settle(pilot)
    await until_drawn(pilot)
    return screen_text(app).splitlines()


async def list_columns_and_filter(pilot) -> None:  # type: ignore[no-untyped-def]
    """The list's Bottleneck and Flags columns; its filter matches labels and flag ids."""
    from textual.widgets import DataTable

    app = pilot.app
    assert isinstance(app.screen, KernelListScreen)
    text = screen_text(app)
    assert "Bottleneck" in text and "Flags" in text
    for summary in app.session.summaries:
        assert app.session.diagnosis(summary).label in text
    assert "shared-bank-conflict" in text
    by_label = {s.id: app.session.diagnosis(s) for s in app.session.summaries}
    await pilot.press("slash", *"^dram-bound$", "enter")
    await settle(pilot)
    table = app.screen.query_one(DataTable)
    shown = [int(str(table.get_row_at(i)[0])) for i in range(table.row_count)]
    assert shown == [k for k, d in by_label.items() if d.label == "dram-bound"]
    await pilot.press("escape", "slash", *"bank-conflicts", "enter")
    await settle(pilot)
    shown = [int(str(table.get_row_at(i)[0])) for i in range(table.row_count)]
    flagged = [k for k, d in by_label.items() if d.has_flag("shared-bank-conflicts")]
    named = [s.id for s in app.session.summaries if "bank-conflicts" in str(s.row["demangled"])]
    assert shown == sorted(set(flagged) | set(named)) and flagged


async def test_list_and_the_diagnosis_pane_of_two_kernels() -> None:
    app = create_app(ZOO_A)
    async with app.run_test(size=(160, 60)) as pilot:
        await settle(pilot)
        await list_columns_and_filter(pilot)
        await pilot.press("escape")  # the filter cleared
        await settle(pilot)
        # kernel 4: label, flags, remedy and the roofline's point
        text = "\n".join(await diagnosis_pane_of(pilot, 4))
        view = app.screen.query_one(DiagnosisView)
        assert view.diagnosis is not None and view.diagnosis.label == "shared-bank-conflict"
        assert "Bottleneck: shared-bank-conflict" in text
        assert "Shared-memory bank conflicts" in text
        assert "NCU est. speedup 93.1%" in text
        assert "Pad the row stride" in text
        plot = app.screen.query_one(RooflinePlot)
        assert plot.content is not None and plot.content.selected == 4
        # The pane shows what the report's analysis holds; a kernel whose diagnosis it does
        # not hold yet reads ``Diagnosing kernel N…`` until the pane's worker has made it.
        report = app.session.report
        fresh = DiagnosisPaneView(ReportAnalysis.read(report))  # holds no pane diagnosis
        assert fresh.held(4) is None
        view.show(report.detail(4), fresh)
        body = view.query_one("#diagnosis-body", Static)
        assert view.diagnosis is None and "Diagnosing kernel 4…" in str(body.render())
        await settle(pilot)
        assert view.diagnosis is not None and view.diagnosis.label == "shared-bank-conflict"
        assert fresh.held(4) is not None
        assert "Bottleneck: shared-bank-conflict" in screen_text(app)
        # kernel 0: issue 23: "launch__grid_size = 65,536 block (< 132)" was printed as
        # evidence of a DRAM-bound kernel; it is a check that did not hold, and now says so,
        # below the facts
        await pilot.press("escape")
        await settle(pilot)
        lines = [line.strip() for line in await diagnosis_pane_of(pilot, 0)]
        held = "✓ [sol] gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed = 89.1 % (>= 70)"
        apart = "Checked, did not hold:"
        grid = "· [launch] launch__grid_size = 65,536 block (< 132) — launch__sm_count = 132"
        assert held in lines and apart in lines and grid in lines
        assert lines.index(held) < lines.index(apart) < lines.index(grid)


async def test_diagnosis_pane_states_the_occupancy_stand_downs() -> None:
    # issue 24: 66 blocks on 132 SMs with the FMA pipe 91 % busy where it runs: the occupancy
    # flags stand down, and the pane says why, as for every guard rail
    pipe = ZOO_A.parent / "diag_pipe.ncu-rep.xz"
    app = create_app(pipe)
    async with app.run_test(size=(200, 70)) as pilot:
        await settle(pilot)
        text = " ".join(" ".join(await diagnosis_pane_of(pilot, 0)).split())
        assert "Bottleneck: launch-bound" in text
        assert (
            "• unit-saturated: Occupancy is low but the SM is 100% busy: more resident warps "
            "cannot help a unit that is already full, so low occupancy is not this kernel's "
            "problem."
        ) in text
        assert "Not a problem here: The grid cannot fill the GPU (66 blocks for 132 SMs)" in text
