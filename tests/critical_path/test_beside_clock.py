"""The clock the kept kernels ran at, where nsys sampled the GPU's metrics.
``samples/whatif/metrics/`` holds ``beside`` and ``shift`` traced by nsys with
``--gpu-metrics-devices=all`` on an H100 (samples/README.md). In ``shift`` the spin ran beside
the GEMMs the what-if halves at a GPC clock ~20 % under the GPU's top; in the variant, beside
half as many GEMMs, at a higher one: what the what-if's answer warns of. In ``beside`` the
GEMMs ran at the same clock with the spin and without it: their 9 % there is the SMs they
shared, not the clock."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from kernelscope.export.whatif import render_whatif, timeline_of, whatif_answer
from tests.conftest import SAMPLES

METRICS = SAMPLES / "whatif" / "metrics"


def _spin_clock(data: Any) -> float:
    """The GPC clock's time-weighted mean over the spin kernels of the trace's steps (MHz),
    from the trace's samples directly."""
    steps = data.critical_path.steps
    inside = pl.any_horizontal(pl.col("start").is_between(s, e, closed="left")
                               for s, e in steps.select("start", "end").iter_rows())
    spins = data.report.kernels.filter(
        pl.col("name").cast(pl.String).str.contains("spin_kernel") & inside)
    clock = data.report.gpu_metrics.get(0, "gpc_clock")
    area, covered = clock.integrals(spins["start"], spins["end"])
    return float(area.sum() / covered.sum())


@pytest.mark.parametrize(("case", "faster"), [("beside", "spin_kernel"), ("shift", "nvjet")])
def test_the_pairs_with_metrics_land_within_15_percent(case: str, faster: str) -> None:
    answer, _ = whatif_answer(METRICS / f"{case}_base.sqlite.xz", [f"{faster}=2"])
    fast = timeline_of(METRICS / f"{case}_fast.sqlite.xz", None,
                       lambda data: data.critical_path.median_step_ns)
    assert fast < answer.predicted_step_ns <= 1.15 * fast


def test_the_spin_beside_the_gemms_ran_at_a_lower_clock() -> None:
    trace = METRICS / "shift_base.sqlite.xz"
    answer, _ = whatif_answer(trace, ["nvjet=2"])
    (row,) = answer.beside.to_dicts()
    assert row["name"].endswith("spin_kernel(long)")
    assert 1900 < row["top_clock_mhz"] < 2010  # the H100's top: 1,980 MHz
    assert row["beside_clock_mhz"] < 0.85 * row["top_clock_mhz"]
    assert row["away_clock_mhz"] is None and row["away_launches"] == 0
    assert row["beside_clock_mhz"] == pytest.approx(timeline_of(trace, None, _spin_clock),
                                                    rel=0.01)
    fast = timeline_of(METRICS / "shift_fast.sqlite.xz", None, _spin_clock)
    assert fast > 1.08 * row["beside_clock_mhz"]
    text = render_whatif(trace, ["nvjet=2"], "md")
    assert "| spin_kernel | " in text and "GPC clock away · beside · top" in text
    assert "Beside the changed work spin_kernel ran at a GPC clock of 1,5" in text


def test_the_gemms_beside_the_spin_kept_their_clock() -> None:
    answer, _ = whatif_answer(METRICS / "beside_base.sqlite.xz", ["spin_kernel=2"])
    gemm = answer.beside.filter(pl.col("kind") == "kernel").to_dicts()
    assert [row["name"].startswith("nvjet") for row in gemm] == [True]
    (row,) = gemm
    assert row["beside_clock_mhz"] == pytest.approx(row["away_clock_mhz"], rel=0.02)
    assert row["beside_median_ns"] > 1.05 * row["away_median_ns"]
