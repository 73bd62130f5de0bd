"""Every committed Nsight Systems sample (zoo, timeline_torch, timeline_plain, many_tiny, …):
what its overview, lanes, gap panel, kernel table and NVTX table are made of agrees with the
model and the ``nsys stats`` oracle. Plain objects: the render functions and the table's rows
the screen shows (test_tables.py and test_overview.py check the screen shows them)."""

from __future__ import annotations

import csv
import io
import lzma
from pathlib import Path

import pytest

from kernelscope.timeline.analysis.timeline_data import TimelineData, build
from kernelscope.timeline.screens.timeline_views.viewport import Viewport
from kernelscope.timeline.screens.widgets.timeline_draw import render_lanes
from kernelscope.timeline.screens.widgets.timeline_gap import gap_heading
from kernelscope.timeline.screens.widgets.timeline_table import DEFAULT_CAP, listed_rows

from .conftest import NSYS_SAMPLES, ORACLE, read_sample
from .helpers import flat, make_app, overview_text, wait_until_open

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


@pytest.fixture(scope="module", params=SAMPLES)
def sample(request: pytest.FixtureRequest) -> tuple[str, TimelineData]:
    path = NSYS_SAMPLES / f"{request.param}.sqlite.xz"
    return request.param, build(path, read_sample(path))


def test_overview_says_how_busy_the_gpu_was_and_every_finding(
        sample: tuple[str, TimelineData]) -> None:
    name, data = sample
    overview = flat(overview_text(data))
    assert data.utilization.height == 1
    assert GPU_BUSY[name] in overview
    for finding in data.findings:
        assert flat(finding.title) in overview


def test_every_lane_is_drawn_and_the_first_gap_counted(sample: tuple[str, TimelineData]) -> None:
    _, data = sample
    port = Viewport()
    port.columns = 120
    port.show(data.index, data.start_ns, data.end_ns)
    view = data.index.render(port.t0, port.t1, port.columns)
    lanes = render_lanes(view, data.index.lanes, 24, cursor_lane=port.cursor_lane).plain
    assert len([line for line in lanes.splitlines() if line.strip()]) == len(data.index.lanes)
    gaps = data.large_gaps
    if gaps:
        heading = gap_heading(gaps[0], 0, len(gaps), data.start_ns).plain
        assert heading.startswith(f"Gap 1 of {len(gaps)} · GPU {gaps[0].device}")


def test_kernel_and_nvtx_tables_are_nsys_stats(sample: tuple[str, TimelineData]) -> None:
    name, data = sample
    kernels = oracle_rows(name, "cuda_gpu_kern_sum")
    listed = listed_rows(data.kernels, "Total Time (ns)", True, DEFAULT_CAP)
    assert listed.height == min(data.kernels.height, DEFAULT_CAP)
    if kernels:
        top = listed.row(0, named=True)
        assert top["Name"] == kernels[0]["Name"]
        assert str(top["Instances"]) == kernels[0]["Instances"]
    nvtx = oracle_rows(name, "nvtx_sum")
    if nvtx is not None:
        assert data.nvtx.height == len(nvtx)
    if nvtx:
        top = listed_rows(data.nvtx, "Total Time (ns)", True, DEFAULT_CAP).row(0, named=True)
        assert str(top["Total Time (ns)"]) == nvtx[0]["Total Time (ns)"]
        assert 0 <= top["GPU busy (%)"] <= 100


REPS = [n for n in ("timeline_plain",) if (NSYS_SAMPLES / f"{n}.nsys-rep.xz").exists()]
"""(zoo.nsys-rep: test_opening.test_nsys_rep_is_exported_then_shown)"""


@pytest.mark.parametrize("name", REPS)
async def test_nsys_rep_samples_through_fake_nsys(
    name: str, fake_nsys: Path, cache_dir: Path
) -> None:
    expected = read_sample(NSYS_SAMPLES / f"{name}.sqlite.xz", cache_dir=cache_dir)
    app = make_app(NSYS_SAMPLES / f"{name}.nsys-rep.xz", cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        screen = app.screen
        data = getattr(screen, "data", None)
        assert data is not None, getattr(screen, "message", screen)
        assert data.report.kernels.height == expected.kernels.height
