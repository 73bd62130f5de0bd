"""Pre-2020 kernel reports (``.nsight-cuprof-report``) hold no grid or block dimensions, only
``launch__grid_size`` and ``launch__block_size``: their shape comes from those (a grid of 200
blocks never reads ``grid 1 × block 1``), and the Launch pane shows the ``launch__*`` metrics
they hold instead of "not collected" (their sections are numbered, ``section0``, or absent)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from kernelscope.export.writer import ExportOptions, render
from kernelscope.kinds.ncu.model.report import open_ncu_report
from kernelscope.kinds.ncu.screens.kernel_detail import KernelDetailScreen
from kernelscope.tui.app import create_app
from tests.tui.helpers import settle, widget_text
from tests.wild.conftest import wild_files
from tests.wild.oracles import ncu_raw

PRE_2020 = [n for n in wild_files("ncu") if n.endswith(".nsight-cuprof-report.xz")
            or n.startswith("<")]
MATRIX_MUL = "evozone96__matrixMul__profile.nsight-cuprof-report.xz"


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def test_every_pre2020_report_takes_its_shape_from_the_launch_sizes(
        wild_plain: Callable[[str, str], Path]) -> None:
    seen = 0
    for name in PRE_2020:
        path = wild_plain("ncu", name)
        report = open_ncu_report(path)
        raw = ncu_raw(name.removesuffix(".xz"))
        try:
            for kernel_id in range(report.kernel_count):
                summary, detail = report.summary(kernel_id), report.detail(kernel_id)
                grid = detail.number("launch__grid_size")
                block = detail.number("launch__block_size")
                assert grid is not None and block is not None
                assert (detail.grid, detail.block) == ((int(grid), 1, 1), (int(block), 1, 1))
                assert (summary.row["grid_size"], summary.row["block_size"]) == (grid, block)
                if raw is not None:  # what ncu's raw page printed (it crashed on two)
                    row = raw.rows[kernel_id]
                    assert (grid, block) == (_number(row["launch__grid_size"]),
                                             _number(row["launch__block_size"]))
                seen += 1
        finally:
            report.close()
    assert seen == 8 + 1 + 1 + 7


def test_matrix_mul_header_and_json(wild_plain: Callable[[str, str], Path]) -> None:
    path = wild_plain("ncu", MATRIX_MUL)
    doc = json.loads(render(path, ExportOptions(fmt="json")))
    assert [(k["grid"], k["block"]) for k in doc["kernels"]] == [([200, 1, 1], [1024, 1, 1])] * 8
    text = render(path, ExportOptions(fmt="md"))
    assert "grid 200, block 1024" in text and "grid 1, block 1" not in text


async def test_matrix_mul_launch_pane_shows_its_launch_metrics(
        wild_plain: Callable[[str, str], Path]) -> None:
    app = create_app(wild_plain("ncu", MATRIX_MUL))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("g", "0", "enter", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, KernelDetailScreen)
        await pilot.press("1")
        await settle(pilot)
        text = " ".join(widget_text(screen.active_pane()).split())
        assert "Not collected" not in text
        assert "Grid 200 200 blocks" in text and "Block 1024 1,024 threads" in text
        assert "Registers per thread 16" in text
