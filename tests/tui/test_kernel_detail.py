"""The kernel detail: header, n/p in the list's order, the pane keys (Pilot), and what every
pane shows (its plain render functions, without an app)."""

from __future__ import annotations

import dataclasses

import pytest
from textual.widgets import TabbedContent

from kernelscope.kinds.ncu.model import NcuReport
from kernelscope.kinds.ncu.model.panes import PANES
from kernelscope.kinds.ncu.screens.kernel_detail import KernelDetailScreen
from kernelscope.kinds.ncu.screens.panes import (
    PANE_TYPES,
    LaunchPane,
    MemoryPane,
    OccupancyPane,
    RulesPane,
    SolPane,
    SourcePane,
    StallsPane,
)
from kernelscope.kinds.ncu.screens.panes.base import missing_hint
from kernelscope.kinds.ncu.screens.panes.occupancy import curve_charts
from kernelscope.kinds.ncu.screens.panes.stalls import reading
from kernelscope.tui.app import create_app

from .helpers import rendered, sample, screen_text, settle, widget_text

PANE_IDS = [spec.id for spec in PANES]


async def open_detail(pilot, kernel_id: int, pane_key: str | None = None) -> KernelDetailScreen:
    await settle(pilot)
    await pilot.press("g", *str(kernel_id), "enter", "enter")
    await settle(pilot)
    if pane_key is not None:
        await pilot.press(pane_key)
        await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, KernelDetailScreen)
    return screen


def active(screen: KernelDetailScreen) -> str:
    return screen.query_one(TabbedContent).active


async def walk_panes(pilot, screen: KernelDetailScreen) -> None:
    """Diagnosis first, every number key shows (and focuses) its pane, tab wraps around."""
    assert active(screen) == "diagnosis"  # the answer first, then the method's steps
    for spec in PANES:
        await pilot.press(spec.key)
        await settle(pilot)
        assert active(screen) == spec.id
        focused = pilot.app.focused
        # The pane, or what it holds that takes the keys (the Source listing, the Raw table).
        assert focused is screen.active_pane() or screen.active_pane() in focused.ancestors
    await pilot.press("tab")  # wraps from the last pane to the first
    assert active(screen) == PANE_IDS[0]


def pane_text(screen: KernelDetailScreen) -> str:
    return widget_text(screen.active_pane())


def header(app) -> str:
    """The detail header: ID and short name, launch facts, then the whole demangled name."""
    return widget_text(app.screen.query_one("#detail-header"))


async def test_header_and_n_p_keep_the_pane_and_follow_the_list_order(
    zoo: NcuReport, zoo_rows
) -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_detail(pilot, 0, "2")
        first = zoo_rows[0]
        top = header(app)
        # Its place in the list's order comes before the name (which is cut first).
        assert top.splitlines()[0].strip() == "Kernel 0 (1 of 6) saxpy_f4"
        # The whole demangled name, wrapped over the header's last lines.
        assert str(first["demangled"]) in " ".join(top.splitlines()[2:])
        assert "182.59 us" in top
        assert f"grid {first['grid']} × block {first['block']}" in top
        assert zoo.device.name in top
        assert active(screen) == "sol"
        for row, sm_pct in zip(zoo_rows[1:3], ("7.67", "64.73"), strict=True):
            await pilot.press("n")
            await settle(pilot)
            assert screen.kernel_id == row["id"]
            assert str(row["demangled"]) in " ".join(header(app).splitlines()[2:])
            assert active(screen) == "sol"
            assert sm_pct in pane_text(screen)
        await pilot.press("p")
        await settle(pilot)
        assert screen.kernel_id == zoo_rows[1]["id"]
        assert active(screen) == "sol"
        await pilot.press("p", "p")  # past the first kernel: stays
        await settle(pilot)
        assert screen.kernel_id == zoo_rows[0]["id"]

        # n and p follow the list's order: filtered and sorted there, then opened.
        await pilot.press("backspace")
        await pilot.press("slash", *"transpose", "enter")
        await pilot.press("s", "s")  # sort by duration, longest first
        await pilot.press("enter")
        await settle(pilot)
        rows = sorted(
            (r for r in zoo_rows if "transpose" in str(r["demangled"])),
            key=lambda r: -float(r["duration_ns"]),
        )
        screen = app.screen
        assert isinstance(screen, KernelDetailScreen)
        assert screen.kernel_id == rows[0]["id"]
        assert f"1 of {len(rows)}" in header(app)
        await pilot.press("n")
        await settle(pilot)
        assert screen.kernel_id == rows[1]["id"]
        await pilot.press("backspace")
        # Back in the list, the cursor is on the kernel shown last.
        assert app.screen.highlighted_id() == rows[1]["id"]


async def test_number_keys_tab_clicks_scrolling_and_each_kernel_at_the_top() -> None:
    """At 80×24 (the bindings are the screen's, whatever its size; the small terminal is
    where tabs and scrolling are tight): the number keys, tab, shift+tab and a click on a tab
    switch panes, panes scroll, and n/p show each kernel at the top of the pane (where its
    verdict is)."""
    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_detail(pilot, 0)
        await walk_panes(pilot, screen)
        await pilot.press("tab", "tab")
        assert active(screen) == PANE_IDS[2]
        await pilot.press("shift+tab")
        assert active(screen) == PANE_IDS[1]
        # Clicking a tab switches too.
        lines = screen_text(app).splitlines()
        row = next(i for i, line in enumerate(lines) if "Launch" in line and "Memory" in line)
        await pilot.click(offset=(lines[row].index("Memory"), row))
        await settle(pilot)
        assert active(screen) == "memory"

        await pilot.press("2")
        await settle(pilot)
        pane = screen.active_pane()
        assert pane.max_scroll_y > 0
        await pilot.press("pagedown", "pagedown")
        await settle(pilot)
        assert pane.scroll_y > 0
        await pilot.press("n")
        await settle(pilot)
        assert screen.kernel_id == 1 and screen.active_pane() is pane and active(screen) == "sol"
        assert pane.scroll_y == 0
        await pilot.press("end")
        await settle(pilot)
        assert pane.scroll_y > 0
        await pilot.press("p")
        await settle(pilot)
        assert screen.kernel_id == 0 and pane.scroll_y == 0


PANE_WIDTH = 116
"""The columns a pane's body gets at 120 (its scrollbar aside)."""
STALLS_WIDTH = 69
"""The columns the stall bars get at 120, beside the scheduler's table."""


def test_launch_pane(zoo: NcuReport) -> None:
    text = rendered(LaunchPane.render_body(zoo.detail(2)), PANE_WIDTH)
    assert "16,384 blocks" in text
    assert "Registers per thread 32" in " ".join(text.split())
    assert "15.52" in text
    assert "Tail wave fill" in text and "51.52" in text
    assert "derived" in text
    assert "Launch Statistics" in text  # NCU's own header table
    flat = " ".join(text.split())
    # Units written for people, and never repeating the label they stand beside.
    assert ("Threads 4,194,304 Registers per thread 32 Static shared mem / block 0 "
            "B/block") in flat
    assert "SMs 132 Waves per SM 15.52" in flat
    assert "# SMs 132 # TPCs" in flat
    assert "Kbyte" not in flat and "132 SM " not in flat


def test_sol_pane(zoo: NcuReport) -> None:
    detail = zoo.detail(1)
    text = rendered(SolPane.render_body(detail), PANE_WIDTH)
    for sm_dram_l2 in ("7.67", "80.20", "95.92"):
        assert sm_dram_l2 in text
    assert "GPU Speed Of Light Throughput" in text
    assert "1.18 ms" in " ".join(text.split())
    parts = detail.breakdowns["sm__throughput.avg.pct_of_peak_sustained_elapsed"]
    top = max(parts, key=lambda n: detail.number(n) or 0)
    lines = text.splitlines()
    breakdown = lines.index(next(ln for ln in lines if "Compute (SM) breakdown" in ln))
    assert top.split(".")[0] in lines[breakdown + 1]


def test_occupancy_pane(zoo: NcuReport) -> None:
    detail = zoo.detail(3)
    text = rendered(OccupancyPane.render_body(detail), PANE_WIDTH)
    assert "98.31 %" in text
    blocks_per_sm = {"registers": "2", "shared memory": "3", "warps": "2",
                     "block slots": "32", "barriers": "32"}
    for label, value in blocks_per_sm.items():
        line = next(ln for ln in text.splitlines() if ln.strip().startswith(label))
        assert value in line
        assert ("limits occupancy" in line) == (label in ("registers", "warps"))
    # The curves, each marked at the kernel's own value (the block size on its curve).
    titles = [chart.title for chart in curve_charts(detail)]
    assert titles[:2] == ["Warps per SM vs threads per block (│ this kernel: 1,024)",
                          "Warps per SM vs registers per thread (│ this kernel: 32)"]


def test_memory_pane(zoo: NcuReport) -> None:
    text = " ".join(rendered(MemoryPane.render_body(zoo.detail(1)), PANE_WIDTH).split())
    assert "DRAM read 4.30 GB" in text
    assert "Global load 2,097,152 2,097,152 67,108,864 32.00" in text
    assert "Bank conflicts" in text
    assert "No local-memory (register spill) traffic." in text
    assert "Memory Workload Analysis" in text


def test_memory_ideal_follows_the_access_width(zoo: NcuReport) -> None:
    """saxpy_f4 reads float4: 16 sectors per request is its ideal, not 4 (and it is not
    highlighted); strided_gather's 4-byte loads touch 32 sectors where 4 would do."""
    text = " ".join(rendered(MemoryPane.render_body(zoo.detail(0)), 136).split())
    assert "Sect/Req Ideal Hit %" in text
    assert "Global load 1,048,576 1,048,576 16,777,216 16.00 16.00" in text
    assert "16 for 16-byte (float4)" in text and "4 is ideal" not in text
    text = " ".join(rendered(MemoryPane.render_body(zoo.detail(1)), 136).split())
    assert "Global load 2,097,152 2,097,152 67,108,864 32.00 4.00" in text


def test_stalls_pane(zoo: NcuReport) -> None:
    detail = zoo.detail(4)
    bars = rendered(StallsPane.render_body(detail), STALLS_WIDTH).splitlines()
    # The longest bar first: cycles per issued instruction, then its share of all reasons.
    first_bar = bars[bars.index("Stall reasons, cycles per issued instruction") + 1]
    assert first_bar == "MIO Throttle       " + "█" * 38 + " 88.24 44.1%"
    said = rendered([reading(detail)], PANE_WIDTH)
    assert "the top reason is MIO Throttle (88.24" in said
    assert "7.55 %" in said  # issue active
    assert "stalls limit throughput" in said  # issue active under 80 %
    scheduler = " ".join(rendered([StallsPane.scheduler_table(detail)], 47).split())
    assert "Issue slots" in scheduler and "7.55 %" in scheduler
    assert "Eligible 0.33" in scheduler  # eligible warps per cycle


def test_rules_pane(zoo: NcuReport) -> None:
    detail = zoo.detail(4)
    text = rendered(RulesPane.render_body(detail), PANE_WIDTH)
    assert f"{len(detail.rules)} rule results" in text
    for rule in detail.rules:
        assert rule.name in text
        if rule.speedup_pct is not None:
            assert f"est. speedup {rule.speedup_pct:,.2f}%" in text
    assert "@section:" not in text and "@url:" not in text
    assert "Warp State Statistics [5]" in " ".join(text.split())


DEFAULT_SET = {"LaunchStats", "Occupancy", "SpeedOfLight", "WorkloadDistribution"}


def test_missing_sections_show_how_to_collect_them(zoo: NcuReport) -> None:
    """A kernel with only ncu's default sections: the other panes say which --section."""
    full = zoo.detail(0)
    detail = dataclasses.replace(
        full,
        sections={k: v for k, v in full.sections.items() if k in DEFAULT_SET},
        section_metrics={k: v for k, v in full.section_metrics.items() if k in DEFAULT_SET},
    )
    for pane in PANE_TYPES:
        hint, _ = missing_hint(pane.spec, detail, pane.hint_extra)
        missing = [s for s in pane.spec.sections if s not in DEFAULT_SET]
        if missing:
            assert hint is not None, pane.spec.id
            said = " ".join(hint.plain.split())
            assert said.startswith("Not collected: ")
            assert " ".join(f"--section {s}" for s in missing) in said
            assert "--set full" in said
        else:
            assert hint is None, pane.spec.id
    hint, every = missing_hint(SourcePane.spec, detail, SourcePane.hint_extra)
    assert every and hint is not None
    assert "-lineinfo" in hint.plain and "--import-source yes" in hint.plain
    assert missing_hint(SourcePane.spec, full, SourcePane.hint_extra) == (None, False)


async def test_default_set_sample() -> None:
    """A real report of ncu's default section set (its four kernels; many_launches has the
    same sections and 1,000 launches to load first): every pane opens; the Memory, Stalls
    and Source panes give the hint."""
    path = sample("ncu/gemm_sets_default.ncu-rep.xz")
    if path is None:
        pytest.skip("no default-set sample (samples/ncu/gemm_sets_default.ncu-rep.xz)")
    app = create_app(path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.session.report is not None
        assert len(app.session.summaries) == app.session.report.kernel_count
        screen = await open_detail(pilot, app.session.summaries[-1].id)
        hints = []
        for spec in PANES:
            await pilot.press(spec.key)
            await settle(pilot)
            text = " ".join(pane_text(screen).split())
            if "Not collected" in text:
                hints.append(spec.id)
            assert "Traceback" not in text
        assert hints == ["memory", "stalls", "source"]
