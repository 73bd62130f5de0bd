"""What the timeline shows fits the terminal and tells rows apart (issue 23 §3, §4), on the
bundled timeline_torch trace: short kernel names in the Kernels view, copies apart, the lanes
redrawn for their width after the gap panel closed in another view, a footer that fits 80
columns, gap-panel rows that keep their units, window ends at a sensible precision. One walk of
keys at 120×36 and one at 80×24, each read where it stops."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from kernelscope.tui.app import KernelscopeApp

from .conftest import NSYS_SAMPLES
from .helpers import make_app, screen_text, settle, until_drawn, wait_until_open

TORCH = NSYS_SAMPLES / "timeline_torch.sqlite.xz"


async def shown(app: KernelscopeApp, pilot: Pilot[object], *presses: str) -> list[str]:
    for key in presses:
        await pilot.press(key)
        await settle(pilot)
    await until_drawn(pilot)
    return screen_text(app).splitlines()


async def test_at_120_columns(cache_dir: Path) -> None:
    app = make_app(TORCH, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        # The first gap on the timeline: its panel's rows keep their units and the window's
        # ends have a sensible precision.
        lines = await shown(app, pilot, "2", "g")
        text = "\n".join(lines)
        assert "▏   NVTX setup                4.205 ms" in text
        assert "▏   CUDA cudaMalloc           136.0 us" in text
        assert not any(line.rstrip().endswith("▏ ms") or line.rstrip().endswith("▏ us")
                       for line in lines)
        assert lines[3].startswith(" 4.2147 s → 4.2274 s · 12.62 ms of 11.54 s")
        # The Kernels view names every kernel apart.
        lines = await shown(app, pilot, "6", "3")
        header = next(line for line in lines if "Total Time (ns)" in line)
        assert header.split()[-1] == "Name"
        text = "\n".join(lines)
        for name in ("vectorized_elementwise<AUnaryFunctor>",
                     "vectorized_elementwise<CUDAFunctorOnSelf_add>",
                     "vectorized_elementwise<launch_clamp_scalar>",
                     "vectorized_elementwise<FillFunctor<float>>",
                     "vectorized_elementwise<FillFunctor<long>>",
                     "reduce<ReduceOp<MeanOps>>",
                     "sm80_xmma_gemm_f32_tn_n_32x32x8_ffma"):
            assert f"  {name}  " in text, name
        assert "void at::native::vec…" not in text
        # A kernel opened on the timeline: the gap panel closed elsewhere, the lanes are
        # redrawn for the whole width.
        lines = await shown(app, pilot, "down", "down", "enter")
        lane = next(line for line in lines if line.startswith(" NVIDIA H200 (0)"))
        assert len(lane.rstrip()) >= 116
        assert "10.5 s" in next(line for line in lines if "10.2 s" in line)


async def test_at_80_columns(cache_dir: Path) -> None:
    app = make_app(TORCH, cache_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_open(pilot)
        footer = (await shown(app, pilot, "2"))[-1]
        assert footer.startswith("+ Zoom in - Zoom out g Next gap esc Back e Export ? Help "
                                 "q Quit ")
        assert footer.endswith("▏^p palette ")
        text = "\n".join(await shown(app, pilot, "7"))
        assert "[CUDA memcpy Device-to-Hos…" in text
        assert "[CUDA memcpy Device-to-Dev…" in text
        assert "[CUDA memcpy Device-to-Device]" in text  # the sizes table has room
