"""The kernel detail: header, n/p in the list's order, and what every pane shows."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from textual.widgets import TabbedContent

from kernelscope.kinds.ncu.model import KernelDetail, NcuReport
from kernelscope.kinds.ncu.model.panes import PANES
from kernelscope.kinds.ncu.screens import kernel_session
from kernelscope.kinds.ncu.screens.kernel_detail import KernelDetailScreen
from kernelscope.tui.app import create_app

from .helpers import sample, screen_text, settle, widget_text

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


async def test_header_and_n_p_keep_the_pane(zoo: NcuReport, zoo_rows) -> None:
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


async def test_n_p_follow_the_list_order(zoo_rows) -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
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


async def test_number_keys_and_tab_switch_panes() -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
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


async def test_launch_pane() -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_detail(pilot, 2, "1")
        text = pane_text(screen)
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


async def test_sol_pane(zoo: NcuReport) -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_detail(pilot, 1, "2")
        detail = zoo.detail(1)
        text = pane_text(screen)
        for sm_dram_l2 in ("7.67", "80.20", "95.92"):
            assert sm_dram_l2 in text
        assert "GPU Speed Of Light Throughput" in text
        assert "1.18 ms" in " ".join(text.split())
        parts = detail.breakdowns["sm__throughput.avg.pct_of_peak_sustained_elapsed"]
        top = max(parts, key=lambda n: detail.number(n) or 0)
        lines = text.splitlines()
        breakdown = lines.index(next(ln for ln in lines if "Compute (SM) breakdown" in ln))
        assert top.split(".")[0] in lines[breakdown + 1]


async def test_occupancy_pane() -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_detail(pilot, 3, "3")
        text = pane_text(screen)
        assert "98.31 %" in text
        blocks_per_sm = {"registers": "2", "shared memory": "3", "warps": "2",
                         "block slots": "32", "barriers": "32"}
        for label, value in blocks_per_sm.items():
            line = next(ln for ln in text.splitlines() if ln.strip().startswith(label))
            assert value in line
            assert ("limits occupancy" in line) == (label in ("registers", "warps"))
        assert "threads per block" in text and "registers per thread" in text
        assert "this kernel: 1,024" in text  # the block size marked on its curve


async def test_memory_pane() -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_detail(pilot, 1, "4")
        text = " ".join(pane_text(screen).split())
        assert "DRAM read 4.30 GB" in text
        assert "Global load 2,097,152 2,097,152 67,108,864 32.00" in text
        assert "Bank conflicts" in text
        assert "No local-memory (register spill) traffic." in text
        assert "Memory Workload Analysis" in text


async def test_memory_ideal_follows_the_access_width() -> None:
    """saxpy_f4 reads float4: 16 sectors per request is its ideal, not 4 (and it is not
    highlighted); strided_gather's 4-byte loads touch 32 sectors where 4 would do."""
    app = create_app()
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_detail(pilot, 0, "4")
        text = " ".join(pane_text(screen).split())
        assert "Sect/Req Ideal Hit %" in text
        assert "Global load 1,048,576 1,048,576 16,777,216 16.00 16.00" in text
        assert "16 for 16-byte (float4)" in text and "4 is ideal" not in text
        await pilot.press("escape")
        screen = await open_detail(pilot, 1, "4")
        text = " ".join(pane_text(screen).split())
        assert "Global load 2,097,152 2,097,152 67,108,864 32.00 4.00" in text


async def test_stalls_pane() -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_detail(pilot, 4, "5")
        text = pane_text(screen)
        lines = text.splitlines()
        # The longest bar first: cycles per issued instruction, then its share of all reasons.
        first_bar = lines[lines.index("Stall reasons, cycles per issued instruction") + 1]
        assert first_bar == "MIO Throttle       " + "█" * 38 + " 88.24 44.1%"
        assert "the top reason is MIO Throttle (88.24" in text
        assert "7.55 %" in text  # issue active
        assert "stalls limit throughput" in text  # issue active under 80 %
        assert "0.33" in text  # eligible warps per cycle


async def test_source_pane() -> None:
    """The page opens on the line holding most samples (the top hot spot), marked."""
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_detail(pilot, 2, "6")
        text = pane_text(screen)
        assert "zoo.cu:25 if (r < N && c < N)" in text
        # 402,100 of the kernel's 402,437 samples sit on line 25.
        marked = next(line for line in text.splitlines() if line.startswith("●1"))
        assert marked.split()[1] == "25" and "99.9   1.23G   0.40M   1.07G" in marked
        assert "●1" in text and "enter: jump source ↔ SASS" in text


async def test_rules_pane(zoo: NcuReport) -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_detail(pilot, 4, "7")
        detail = zoo.detail(4)
        text = pane_text(screen)
        assert f"{len(detail.rules)} rule results" in text
        for rule in detail.rules:
            assert rule.name in text
            if rule.speedup_pct is not None:
                assert f"est. speedup {rule.speedup_pct:,.2f}%" in text
        assert "@section:" not in text and "@url:" not in text
        assert "Warp State Statistics [5]" in " ".join(text.split())


async def test_small_terminal_keys_and_scrolling() -> None:
    """At 80×24 the number keys, tab and n still work and panes scroll."""
    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_detail(pilot, 0)
        await walk_panes(pilot, screen)
        await pilot.press("2")
        await settle(pilot)
        pane = screen.active_pane()
        assert pane.max_scroll_y > 0
        await pilot.press("pagedown")
        await settle(pilot)
        assert pane.scroll_y > 0
        await pilot.press("n")
        await settle(pilot)
        assert screen.kernel_id == 1 and active(screen) == "sol"


DEFAULT_SET = {"LaunchStats", "Occupancy", "SpeedOfLight", "WorkloadDistribution"}


async def test_missing_sections_show_how_to_collect_them(monkeypatch) -> None:
    """A report with only ncu's default sections: the other panes say which --section."""
    real_open = kernel_session.open_ncu_report

    def default_set_open(path: Path, **kwargs: object) -> NcuReport:
        report = real_open(path, **kwargs)
        real_detail = report.detail

        def detail(kernel_id: int) -> KernelDetail:
            full = real_detail(kernel_id)
            return dataclasses.replace(
                full,
                sections={k: v for k, v in full.sections.items() if k in DEFAULT_SET},
                section_metrics={
                    k: v for k, v in full.section_metrics.items() if k in DEFAULT_SET
                },
            )

        report.detail = detail  # type: ignore[method-assign]
        report.cached_detail = lambda _kernel_id: None  # type: ignore[method-assign]
        return report

    monkeypatch.setattr(kernel_session, "open_ncu_report", default_set_open)
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_detail(pilot, 0)
        for spec in PANES:
            await pilot.press(spec.key)
            await settle(pilot)
            text = " ".join(pane_text(screen).split())
            missing = [s for s in spec.sections if s not in DEFAULT_SET]
            if missing:
                assert "Not collected" in text, spec.id
                assert " ".join(f"--section {s}" for s in missing) in text
                assert "--set full" in text
            else:
                assert "Not collected" not in text, spec.id
        await pilot.press("6")
        await settle(pilot)
        assert "-lineinfo" in pane_text(screen)
        assert "--import-source yes" in pane_text(screen)


async def test_default_set_sample() -> None:
    """The real default-section-set sample: every pane opens; missing ones give the hint."""
    path = sample("ncu/many_launches.ncu-rep.xz", "many_launches.ncu-rep.xz")
    if path is None:
        pytest.skip("no default-set sample (samples/ncu/many_launches.ncu-rep.xz) yet")
    app = create_app(path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.session.report is not None
        assert len(app.session.summaries) == app.session.report.kernel_count
        screen = await open_detail(pilot, app.session.summaries[-1].id)
        hints = 0
        for number, _spec in enumerate(PANES, start=1):
            await pilot.press(str(number))
            await settle(pilot)
            text = " ".join(pane_text(screen).split())
            hints += "Not collected" in text
            assert "Traceback" not in text
        assert hints >= 2
        await pilot.press("n", "p")
        await settle(pilot)
        assert isinstance(app.screen, KernelDetailScreen)
