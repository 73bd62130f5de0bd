"""GPU metrics of the real H200 trace (``samples/nsys/gpu_metrics``) against SQL over
``GPU_METRICS``, computed here with sqlite3 directly."""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import polars as pl
import pytest

from kernelscope.timeline.analysis.metric_analysis import (
    family_metrics,
    metric_summary,
    metrics_verdicts,
    nvtx_metrics,
)
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.analysis.utilization import gpu_utilization
from kernelscope.timeline.export.timeline_json import to_export_dict
from kernelscope.timeline.export.timeline_markdown import render_timeline_markdown
from kernelscope.timeline.model.gpu_metrics import MetricSeries, spec_for, split_name
from kernelscope.timeline.model.model import TimelineReport

SAMPLE = "gpu_metrics"


@pytest.fixture(scope="module")
def report(sample_report: Callable[[str], TimelineReport]) -> TimelineReport:
    return sample_report(SAMPLE)


@pytest.fixture(scope="module")
def db(sample_sqlite: Callable[[str], Path]) -> Iterator[sqlite3.Connection]:
    """The export copied into memory, with an index so range joins are quick."""
    src = sqlite3.connect(f"file:{sample_sqlite(SAMPLE)}?mode=ro", uri=True)
    mem = sqlite3.connect(":memory:")
    src.backup(mem)
    src.close()
    mem.execute("CREATE INDEX m_ts ON GPU_METRICS(metricId, timestamp)")
    mem.execute(
        "CREATE TEMP TABLE k AS SELECT k.start, k.end, s.value AS name "
        "FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName"
    )
    yield mem
    mem.close()


def _metric_id(db: sqlite3.Connection, name: str) -> int:
    return int(db.execute("SELECT metricId FROM TARGET_INFO_GPU_METRICS WHERE metricName = ?",
                          (name,)).fetchone()[0])


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def test_names_and_specs() -> None:
    assert split_name("SM Issue [Throughput %]") == ("SM Issue", "Throughput %")
    assert spec_for("SMs Active [Throughput %]").key == "sm_active"  # type: ignore[union-attr]
    assert spec_for("GPC Clock Frequency [MHz]").key == "gpc_clock"  # type: ignore[union-attr]
    assert spec_for("Compute Warps in Flight [Avg]") is None
    assert spec_for("Pixel Warps in Flight [Throughput %]") is None


def test_only_chosen_metrics_are_read(report: TimelineReport, db: sqlite3.Connection) -> None:
    gm = report.gpu_metrics
    names = {r[0] for r in db.execute("SELECT metricName FROM TARGET_INFO_GPU_METRICS")}
    assert len(gm.available) == len(names) == 22
    read = {s.name for s in gm.series.values()}
    assert read == {n for n in names if spec_for(n) is not None}
    assert "Vertex/Tess/Geometry Warps in Flight [Avg]" not in read
    assert gm.devices == [0]
    rows = db.execute("SELECT count(*) FROM GPU_METRICS").fetchone()[0]
    assert rows == 1_206_788
    assert gm.sample_count == 54_854 * len(read)


def test_capture_means_match_sql(report: TimelineReport, db: sqlite3.Connection) -> None:
    summary = metric_summary(report.gpu_metrics)
    assert summary.height == 12
    for row in summary.iter_rows(named=True):
        mid = _metric_id(db, row["name"])
        values = [float(v) for (v,) in db.execute(
            "SELECT value FROM GPU_METRICS WHERE metricId = ?", (mid,))]
        scale = 1e-6 if row["unit"] == "MHz" else 1.0  # nsys stores Hz under a [MHz] name
        assert row["samples"] == len(values)
        assert row["mean"] == pytest.approx(sum(values) / len(values) * scale, rel=1e-9)
        assert row["p50"] == pytest.approx(_quantile(values, 0.5) * scale, rel=1e-9)
        assert row["p95"] == pytest.approx(_quantile(values, 0.95) * scale, rel=1e-9)
        assert row["max"] == pytest.approx(max(values) * scale)
    clock = summary.filter(pl.col("key") == "gpc_clock").row(0, named=True)
    assert clock["max"] == pytest.approx(1980.08625)  # the H200's 1980 MHz boost clock


FAMILY_SQL = """
SELECT avg(value), count(*) FROM GPU_METRICS WHERE rowid IN (
  SELECT m.rowid FROM k JOIN GPU_METRICS m
    ON m.metricId = :mid AND m.timestamp >= k.start AND m.timestamp < k.end
  WHERE k.name = :name)
"""


def test_family_means_match_sql(report: TimelineReport, db: sqlite3.Connection) -> None:
    fam = family_metrics(report)
    assert fam.height == 10  # kernel names in the trace
    assert int(fam["instances"].sum()) == 2413
    with_samples = fam.filter(pl.col("samples") > 0)
    assert with_samples.height >= 5
    ids = {key: _metric_id(db, name) for key, name in (
        ("sm_active", "SMs Active [Throughput %]"), ("sm_issue", "SM Issue [Throughput %]"),
        ("tensor_active", "Tensor Active [Throughput %]"),
        ("dram_read", "DRAM Read Bandwidth [Throughput %]"),
        ("dram_write", "DRAM Write Bandwidth [Throughput %]"),
    )}
    for row in fam.iter_rows(named=True):
        for key, mid in ids.items():
            mean, count = db.execute(FAMILY_SQL, {"mid": mid, "name": row["name"]}).fetchone()
            assert row["samples"] == count, (row["name"], key)
            if count:
                assert row[key] == pytest.approx(mean, rel=1e-9), (row["name"], key)
            else:
                assert row[key] is None
        if row["samples"]:
            assert row["dram"] == pytest.approx(row["dram_read"] + row["dram_write"])
    gemm = fam.row(0, named=True)  # the longest family: cuBLAS sgemm, 344 launches
    assert gemm["instances"] == 344 and gemm["samples"] > 50
    assert 20 < gemm["sm_active"] < 80 and gemm["sm_issue"] < 20


NVTX_SQL = """
SELECT avg(value), count(*) FROM GPU_METRICS WHERE rowid IN (
  SELECT m.rowid FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId
  JOIN GPU_METRICS m ON m.metricId = :mid AND m.timestamp >= n.start AND m.timestamp < n.end
  WHERE coalesce(s.value, n.text) = :name AND n.eventType IN (59, 60, 70, 71))
"""


def test_nvtx_means_match_sql(report: TimelineReport, db: sqlite3.Connection) -> None:
    frame = nvtx_metrics(report)
    mid = _metric_id(db, "SM Issue [Throughput %]")
    checked = 0
    for row in frame.iter_rows(named=True):
        name = row["range"].removeprefix(":")
        mean, count = db.execute(NVTX_SQL, {"mid": mid, "name": name}).fetchone()
        assert row["samples"] == count, name
        assert (row["sm_issue"] is None) if not count else row["sm_issue"] == pytest.approx(mean)
        checked += 1
    assert checked == frame.height > 40
    by_name = {r["range"]: r for r in frame.iter_rows(named=True)}
    # Graph replays keep the SMs busier than the same steps launched one by one.
    assert by_name[":graph"]["sm_active"] > by_name[":eager"]["sm_active"]


def test_verdicts(report: TimelineReport, sample_report: Callable[[str], TimelineReport]) -> None:
    (v,) = metrics_verdicts(report, gpu_utilization(report))
    assert v.device == 0 and v.label == "gpu-idle"
    assert v.sentence.startswith("GPU 13 % busy")
    assert (v.reading("samples") or 0) > 100
    assert v.as_dict()["evidence"] == {e.metric: e.value for e in v.evidence}
    plain = sample_report("timeline_plain")
    (none,) = metrics_verdicts(plain, gpu_utilization(plain))
    assert none.label == "no-metrics" and "--gpu-metrics-devices=all" in none.sentence


def test_window_means_and_value_at() -> None:
    s = MetricSeries(0, "sm_issue", "SM Issue [Throughput %]",
                     pl.Series([0, 100, 200, 300], dtype=pl.Int64),
                     pl.Series([10.0, 20.0, 30.0, 40.0]))
    assert s.period_ns == 100
    # Columns narrower than the period repeat the covering sample; wider ones average.
    assert s.window_means(pl.Series([0, 50, 100, 150], dtype=pl.Int64)) == [10.0, 10.0, 20.0]
    assert s.window_means(pl.Series([0, 200, 400], dtype=pl.Int64)) == [15.0, 35.0]
    assert s.window_means(pl.Series([-100, 0, 50], dtype=pl.Int64)) == [None, 10.0]
    assert s.window_means(pl.Series([500, 600], dtype=pl.Int64)) == [None]
    assert s.value_at(150) == 20.0 and s.value_at(-1) is None and s.value_at(400) is None
    total, count = s.sums_in(pl.Series([0, 150]), pl.Series([150, 1000]))
    assert total.to_list() == [30.0, 70.0] and count.to_list() == [2, 2]



def test_integrals_over_kernels_agree_with_the_window_means(report: TimelineReport) -> None:
    """The GPC clock's integral over each kernel of the H200 trace, divided by the time the
    samples cover, is its window mean; the highest sample is the clock's top (MHz)."""
    clock = report.gpu_metrics.get(0, "gpc_clock")
    assert clock is not None
    kernels = report.kernels.head(50)
    area, covered = clock.integrals(kernels["start"], kernels["end"])
    for (start, end), a, c in zip(kernels.select("start", "end").iter_rows(), area, covered,
                                  strict=True):
        (mean,) = clock.window_means(pl.Series([start, end], dtype=pl.Int64))
        assert (a / c if c else None) == pytest.approx(mean)
    assert 1000 < float(clock.values.max()) <= 2000  # type: ignore[arg-type]


def test_exports(report: TimelineReport) -> None:
    data = TimelineData(report)
    doc = to_export_dict(data)
    json.dumps(doc, allow_nan=False)
    rows = doc["gpu_metrics"]
    assert {"name", "device", "mean", "p50", "p95", "samples"} <= set(rows[0])
    summary = metric_summary(report.gpu_metrics)
    assert [r["mean"] for r in rows] == summary["mean"].to_list()
    assert doc["gpu_metrics_by_kernel"][0]["instances"] == 344
    assert {r["name"] for r in doc["gpu_metrics_by_nvtx"]} >= {":eager", ":graph"}
    assert doc["gpu_metrics_verdicts"][0]["label"] == "gpu-idle"
    text = render_timeline_markdown(data)
    assert "## GPU metrics" in text and "| SM Issue [Throughput %] | 0 |" in text
    assert "SMs Active    |" in text  # the ASCII strip
    assert "### While each kernel ran" in text and "### While each NVTX range was open" in text


def test_strip_matches_series(report: TimelineReport) -> None:
    data = TimelineData(report)
    util = data.utilization.row(0, named=True)
    t0, t1 = util["start_ns"], util["end_ns"]
    strip = data.metric_strip(0, "sm_active", t0, t1, 1)
    series = report.gpu_metrics.get(0, "sm_active")
    assert series is not None
    inside = (series.times >= t0) & (series.times < t1)
    # One column over whole periods is (nearly) the plain mean of the samples inside it.
    assert strip[0] == pytest.approx(float(series.values.filter(inside).mean()), rel=0.02)
