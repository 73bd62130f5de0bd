"""The diff and the baseline in the TUI, driven with Pilot: what the screens show is what the
exports write (the same model), pairing by hand, export and copy, bad inputs, and ``b``."""

from __future__ import annotations

from pathlib import Path

import pytest
import textual.constants
from textual.widgets import DataTable

from kernelscope.kinds.diff.screens.diff_views import (
    KernelDiffScreen,
    PairScreen,
    TimelineDiffScreen,
)
from kernelscope.kinds.ncu.screens.kernel_detail import KernelDetailScreen
from kernelscope.tui.app import create_app
from kernelscope.ui.error import ErrorScreen
from tests.diff.conftest import NSYS, ncu
from tests.tui.helpers import screen_text, settle


@pytest.fixture(autouse=True)
def _no_animations(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(textual.constants, "TEXTUAL_ANIMATIONS", "none")


def diff_app(before: str, after: str, **kwargs: object):  # type: ignore[no-untyped-def]
    return create_app([Path(before), Path(after)], subcommand="diff", **kwargs)  # type: ignore[arg-type]


async def test_matched_kernels_and_a_pair(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    # paired by hand: the two share neither a function name nor a launch shape
    app = diff_app(ncu("gemm_naive"), ncu("gemm_wmma"), pairs=(("gemm_naive", "gemm_wmma"),))
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, KernelDiffScreen)
        text = screen_text(app)
        assert "summed kernel time 3.18 ms → 356.77 us (−88.8 %, 8.91×)" in text
        assert "8.91×" in text and "l1-bound → latency-bound" in text
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, PairScreen)
        text = screen_text(app)
        assert "Flags resolved: l1tex-pressure" in text
        assert "Registers per thread" in text and "+96.9 %" in text
        # a percentage changes in points: SM throughput 64.73 % → 42.86 %
        assert "−21.87 pp" in text and "−33.8 %" not in text
        await pilot.press("y")
        await settle(pilot)
        assert app.clipboard.startswith("# Kernel report: gemm\\_wmma.ncu-rep.xz, kernel 0 (after")
        assert "### Conclusion\n- Bottleneck: `l1-bound → latency-bound`" in app.clipboard
        await pilot.press("e")
        await settle(pilot)
        written = (tmp_path / "gemm_naive-vs-gemm_wmma.diff.md").read_text(encoding="utf-8")
        assert written.startswith("# Before and after: gemm\\_naive.ncu-rep.xz")


async def test_pairing_by_hand_and_sorting_by_change() -> None:
    app = diff_app(ncu("small_family"), ncu("gemm_sets_default"), pattern="rng|regtile|wmma")
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, KernelDiffScreen)
        assert not screen.diff.pairs and len(screen.unmatched) == 3
        # nothing matched: the focus starts on the unmatched kernels, where m acts
        assert app.focused is not None and app.focused.id == "diff-unmatched"
        await pilot.press("m")
        await settle(pilot)
        assert screen.marked == 0
        await pilot.press("down", "m")
        await settle(pilot)
        (pair,) = screen.diff.pairs
        assert pair.matched_by == "by hand"
        assert (pair.before.summary.row["name"], pair.after.summary.row["name"]) == (
            "rng_uniform_fill", "gemm_regtile")
        assert "by hand" in screen.render_export(screen.export_job(Path.cwd()))
        text = screen_text(app)
        assert "rng_uniform_fill" in text and "by hand" in text
        await pilot.press("shift+tab", "s")
        await settle(pilot)
        assert screen.sort == "change" and "sorted by change" in screen_text(app)


async def test_no_matches_start_on_what_can_act_and_m_keeps_the_cursor() -> None:
    app = diff_app(ncu("torch_ops"), ncu("transpose_padded"))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, KernelDiffScreen)
        text = screen_text(app)
        assert (" Matched kernels: none — m on a before kernel, then on an after one, pairs "
                "them") in [line.rstrip() for line in text.splitlines()]
        assert "0 pairs · 7 only before · 1 only after" in text
        await pilot.press("down", "down", "down", "m")
        await settle(pilot)
        table = screen.query_one("#diff-unmatched", DataTable)
        assert screen.marked == 3 and table.cursor_row == 3
        assert str(table.get_row_at(3)[0]) == "before ◀ marked"
        await pilot.press("down", "down", "down", "down", "m")
        await settle(pilot)
        (pair,) = screen.diff.pairs
        assert pair.after.summary.row["name"] == "transpose_smem"
        assert table.cursor_row == 5
        text = screen_text(app)
        assert "1 pair · 6 only before · 0 only after" in text
        # the pairs table fits 120 columns with the bottleneck change whole
        assert ("  0.75×    +33.6 %  instruction-bound → dram-bound  ") in text
        assert "  cunn_SoftMa…logue> → transpose_smem<1>  " in text
        assert "  vectorized_layer_norm<float, float, 0>  " in text


async def test_two_timelines() -> None:
    app = diff_app(str(NSYS / "graph_eager.sqlite.xz"), str(NSYS / "graph_replay.sqlite.xz"))
    async with app.run_test(size=(140, 60)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TimelineDiffScreen)
        text = screen_text(app)
        assert "GPU busy 18.89 ms of 337.20 ms → 19.70 ms of 246.04 ms (5.6 % → 8.0 %)" in text
        assert "cudaLaunchKernel            1,034 → 172" in text
        assert "cudaGraphLaunch_v10000" in text and "module-loading" in text


async def test_mixed_inputs_are_one_sentence() -> None:
    app = diff_app(ncu("gemm_naive"), str(NSYS / "graph_eager.sqlite.xz"))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert "a diff compares two of one kind" in screen_text(app)
        assert app.fatal_error and "a diff compares two of one kind" in app.fatal_error


async def test_baseline_in_the_kernel_session() -> None:
    app = create_app(Path(ncu("gemm_sets_full")))
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        await pilot.press("b")  # kernel 0, gemm_regtile, is the baseline
        await settle(pilot)
        text = screen_text(app)
        assert "Δ base ▲" in text  # sorted by the change, the biggest gain first
        rows = [line.split()[0] for line in text.splitlines()
                if line.strip()[:1].isdigit() and "%" in line]
        assert rows == ["3", "1", "0", "2"]
        assert "+347.9 %" in text and "−56.1 %" in text
        await pilot.press("down", "enter")  # from the baseline (row 3) to dgemm_tiled
        await settle(pilot)
        assert isinstance(app.screen, KernelDetailScreen)
        await pilot.press("2")
        await settle(pilot)
        text = screen_text(app)
        assert "baseline: kernel 0" in text
        assert "vs baseline kernel 0 (gemm_regtile): 0.22× the baseline's speed" in text
        assert "Duration                        803.23 us           3.60 ms  +347.9 % (worse)" \
            in text
        await pilot.press("0")
        await settle(pilot)
        assert "bottleneck l1-bound (unchanged)" in screen_text(app)
        await pilot.press("escape", "up", "b")  # b on the baseline clears it
        await settle(pilot)
        assert "Δ base" not in screen_text(app)


async def test_unrelated_reports_headline_no_verdict() -> None:
    app = diff_app(ncu("gemm_naive"), ncu("histogram"))
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, KernelDiffScreen)
        text = " ".join(screen_text(app).split())
        assert ("summed kernel time 3.18 ms → 3.50 ms; nothing could be paired between the two "
                "inputs, so they are not compared (no verdict)") in text, text[:400]
