"""Every committed Nsight Systems sample (zoo, timeline_torch, timeline_plain, many_tiny, …)
opens, and its overview, kernel table, NVTX table, lanes and gaps show what the model and the
``nsys stats`` oracle say."""

from __future__ import annotations

import csv
import io
import lzma
from pathlib import Path

import pytest

from kernelscope.kinds.nsys.model.opener import open_report
from kernelscope.timeline.analysis.timeline_data import build
from kernelscope.timeline.screens.widgets.timeline_table import FrameTable

from .conftest import NSYS_SAMPLES, ORACLE
from .helpers import flat, make_app, static_text, wait_until_open

SAMPLES = sorted(p.name.removesuffix(".sqlite.xz") for p in NSYS_SAMPLES.glob("*.sqlite.xz"))
GPU_BUSY = {  # each sample's one GPU: its busy share as the Overview prints it
    "gpu_metrics": "12.9 %", "graph_eager": "5.6 %", "graph_replay": "8.0 %",
    "join_trace": "0.9 %", "many_launches": "32.4 %", "many_tiny": "15.9 %",
    "timeline_plain": "33.9 %", "timeline_torch": "0.3 %", "zoo": "98.8 %",
}


def oracle_rows(name: str, report: str) -> list[dict[str, str]] | None:
    path = ORACLE / f"{name}_{report}.csv.xz"
    if not path.exists():
        return None
    text = lzma.decompress(path.read_bytes()).decode()
    return list(csv.DictReader(io.StringIO(text))) if text.strip() else []


@pytest.mark.parametrize("name", SAMPLES)
async def test_sample_views(name: str, cache_dir: Path) -> None:
    path = NSYS_SAMPLES / f"{name}.sqlite.xz"
    data = build(path, open_report(path, cache_dir=cache_dir))
    app = make_app(path, cache_dir)
    async with app.run_test(size=(160, 44)) as pilot:
        await wait_until_open(pilot, timeout_s=60)
        overview = flat(static_text(app, "#overview-body"))
        assert data.utilization.height == 1
        assert GPU_BUSY[name] in overview
        for finding in data.findings:
            assert flat(finding.title) in overview

        await pilot.press("2")
        lanes = static_text(app, "#tl-lanes").splitlines()
        assert len([ln for ln in lanes if ln.strip()]) == len(data.index.lanes)
        if data.large_gaps:
            await pilot.press("g")
            assert f"Gap 1 of {len(data.large_gaps)}" in flat(static_text(app, "#tl-gap-body"))

        await pilot.press("3")
        kernels = oracle_rows(name, "cuda_gpu_kern_sum")
        table = app.screen.query_one("#kernels-table", FrameTable)
        assert table.row_count == min(data.kernels.height, table.cap)
        if kernels:
            assert table.shown is not None
            top = table.shown.row(0, named=True)
            assert top["Name"] == kernels[0]["Name"]
            assert str(top["Instances"]) == kernels[0]["Instances"]

        await pilot.press("5")
        nvtx = oracle_rows(name, "nvtx_sum")
        table = app.screen.query_one("#nvtx-table", FrameTable)
        if nvtx is not None:
            assert table.row_count == len(nvtx)
        if table.row_count:
            busy = data.nvtx.sort("Total Time (ns)", descending=True)["GPU busy (%)"][0]
            assert f"{busy:.1f}" in [str(c) for c in table.get_row_at(0)]


REPS = [n for n in ("zoo", "timeline_plain") if (NSYS_SAMPLES / f"{n}.nsys-rep.xz").exists()]


@pytest.mark.parametrize("name", REPS)
async def test_nsys_rep_samples_through_fake_nsys(
    name: str, fake_nsys: Path, cache_dir: Path
) -> None:
    expected = open_report(NSYS_SAMPLES / f"{name}.sqlite.xz", cache_dir=cache_dir)
    app = make_app(NSYS_SAMPLES / f"{name}.nsys-rep.xz", cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        screen = app.screen
        data = getattr(screen, "data", None)
        assert data is not None, getattr(screen, "message", screen)
        assert data.report.kernels.height == expected.kernels.height
