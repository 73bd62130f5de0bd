"""A million-kernel trace (the zoo with 1M tiny launches appended): zoom, pan and gap jumps
redraw the view, and tables cap their rows with "showing N of M". (Redraw speed is measured
by benchmarks/bench_nsys.py, not asserted here.)"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import polars as pl
import pytest

from kernelscope.kinds.nsys.screens.nsys_session import NsysSession
from kernelscope.timeline.model.model import TimelineReport
from kernelscope.timeline.screens.timeline_views import TimelinePane
from kernelscope.timeline.screens.widgets.timeline_table import DEFAULT_CAP

from .conftest import ZOO_SQLITE_XZ
from .helpers import make_app, screen_text, wait_until_open

KERNELS = 1_000_000


def with_tiny_launches(report: TimelineReport, n: int) -> TimelineReport:
    """``report`` plus ``n`` ~1 us kernels 1 us apart on its first stream, each launched by a
    cudaLaunchKernel call on its first thread."""
    kernels, api = report.kernels, report.cuda_api
    base = int(kernels["end"].max()) + 10_000
    i = pl.int_range(0, n, eager=True, dtype=pl.Int64)
    start = base + i * 2_000 + (i % 7) * 10
    names = pl.Series(["tiny_a(float *)", "tiny_b(float *)", "tiny_c(int)"] * (n // 3 + 1))[:n]

    def like(frame: pl.DataFrame, begin: pl.Series, end: pl.Series) -> pl.DataFrame:
        first = frame.head(1)
        return pl.DataFrame({"start": begin, "end": end}).with_columns(
            *(pl.lit(first[c][0], dtype=first.schema[c]).alias(c)
              for c in frame.columns if c not in ("start", "end")),
        ).with_columns((pl.lit(10_000_000, pl.Int64) + i).alias("correlation_id"))

    new_kernels = like(kernels, start, start + 900 + (i % 5) * 100).with_columns(
        names.cast(kernels.schema["name"]).alias("name")
    ).select(kernels.columns)
    launches = like(api, start - 1_500, start - 500).select(api.columns)
    fields = {f.name: getattr(report, f.name) for f in dataclasses.fields(report)
              if f.name != "_memo"}
    fields["kernels"] = pl.concat([kernels, new_kernels])
    fields["cuda_api"] = pl.concat([api, launches])
    fields["end_ns"] = int(start[-1]) + 100_000
    return TimelineReport(**fields)


@pytest.fixture(scope="module")
def big_report(zoo_report: TimelineReport) -> TimelineReport:
    return with_tiny_launches(zoo_report, KERNELS)


async def test_million_kernels_zoom_pan_and_caps(
    big_report: TimelineReport, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the nsys kind's session hands the timeline screen its opener: this one gives the big report
    monkeypatch.setattr(NsysSession, "opener", staticmethod(lambda *a, **k: big_report))
    app = make_app(ZOO_SQLITE_XZ, cache_dir)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_until_open(pilot)
        assert f"{big_report.kernels.height:,} kernels" in screen_text(app)
        await pilot.press("2")
        pane = app.screen.query_one(TimelinePane)
        ranges = []
        for key in ("plus", "plus", "right", "right", "minus", "left", "g", "G", "0"):
            await pilot.press(key)
            ranges.append((pane.viewport.t0, pane.viewport.t1))
        assert len(set(ranges)) >= 5, ranges
        full = pane.viewport.full_span
        assert ranges[0][1] - ranges[0][0] < full  # zoomed in
        assert ranges[-1] == (pane.data.start_ns, pane.data.start_ns + full)  # "0" resets
        await pilot.press("6")
        gaps = big_report.kernels.height  # about one gap per kernel
        text = screen_text(app)
        assert f"showing {DEFAULT_CAP:,} of" in text
        shown = app.screen.query_one("#gaps-table")
        assert shown.row_count == DEFAULT_CAP < gaps
