"""A managed-memory program joined with its kernel report (issue 34): ``samples/nsys/managed``
and ``samples/ncu/managed`` of ``samples/cuda/managed_memory.cu`` (the CPU rewrites a
``cudaMallocManaged`` array, then cub's reduce and scan read it on the GPU, no prefetch).

On the timeline the kernels wait on page migrations, which Nsight Compute's replay (pages
already on the GPU) never sees: every family is more than 2× off its kernel report, so no
headroom is applied; those whose launches ran beside migrations are blamed on them, with the
managed-memory remedy, and the migrations are a row of their own. The ratios are worked out
from NVIDIA's output (``nsys stats`` ``cuda_gpu_kern_sum``, ``ncu --page raw``) and the
migrations from the SQLite export, not from kernelscope's.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import lzma
import re
import sqlite3
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from kernelscope.kinds.join.analysis.thresholds import JOIN_THRESHOLDS
from kernelscope.tui.cli import main
from tests.conftest import SAMPLES, read_csv_xz
from tests.join.conftest import unpack

TRACE = SAMPLES / "nsys" / "managed" / "managed.sqlite.xz"
KERNELS = SAMPLES / "ncu" / "managed.ncu-rep.xz"
ORACLE = SAMPLES / "nsys" / "managed" / "oracle"


def oracle(name: str) -> list[dict[str, str]]:
    text = lzma.decompress((ORACLE / f"managed_{name}.csv.xz").read_bytes()).decode()
    return list(csv.DictReader(io.StringIO(text)))


def function(name: str) -> str:
    """``DeviceReduceKernel``: the function's own name, which nsys (whole namespaces) and ncu
    (its shortened ``reduce::`` spelling) both print before the first ``<``."""
    found = re.search(r"(\w+)<", name)
    assert found is not None, name
    return found.group(1)


def ratios() -> dict[str, float]:
    """Per kernel function: nsys stats' average over the mean of ncu's
    gpu__time_duration.sum."""
    timeline = {function(r["Name"]): float(r["Avg (ns)"]) for r in oracle("cuda_gpu_kern_sum")}
    rows = read_csv_xz(SAMPLES / "ncu" / "oracle" / "managed.raw.csv.xz")
    name, duration = rows[0].index("Kernel Name"), rows[0].index("gpu__time_duration.sum")
    report: dict[str, list[float]] = defaultdict(list)
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6}[rows[1][duration]]
    for row in rows[2:]:
        report[function(row[name])].append(float(row[duration].replace(",", "")) * scale)
    assert set(report) == set(timeline)
    return {n: timeline[n] / statistics.fmean(report[n]) for n in timeline}


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["join", str(TRACE), str(KERNELS), "-f", "json"]) == 0
    return json.loads(out.getvalue())


def migrations_during(trace: Path) -> dict[str, int]:
    """Per kernel name, the unified-memory migrations that overlap one of its launches."""
    with sqlite3.connect(f"file:{trace}?mode=ro", uri=True) as db:
        return dict(db.execute(
            "SELECT s.value, (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY m WHERE "
            "m.copyKind IN (11, 12, 13) AND EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_KERNEL k2 "
            "WHERE k2.demangledName = k.demangledName AND m.start < k2.end AND m.end > k2.start)) "
            "FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName "
            "GROUP BY s.value").fetchall())


def by_function(rows: dict[str, Any]) -> dict[str, Any]:
    out = {function(name): row for name, row in rows.items()}
    assert len(out) == len(rows)
    return out


def test_no_headroom_is_applied_and_migrations_are_blamed(doc, tmp_path: Path) -> None:
    rows = by_function({r["family"]: r for r in doc["ranking"] if r["kind"] == "kernel"})
    expected = ratios()
    during = by_function(migrations_during(unpack(TRACE, tmp_path / "managed.sqlite")))
    assert set(rows) == set(expected) == set(during)
    limit = JOIN_THRESHOLDS.duration_apart
    for name, row in rows.items():
        assert row["duration_ratio"] == pytest.approx(expected[name], rel=1e-3)
        apart = not 1 / limit <= expected[name] <= limit
        assert row["explained"] is not apart
        assert (row["potential_saving_ns"] is None) is apart
        cause = (None if not apart else "replay-longer" if expected[name] < 1
                 else "unified-memory" if during[name] else "timeline-longer")
        assert row["cause"] == cause, name
        if cause == "unified-memory":
            assert f"{during[name]:,} unified-memory migrations" in row["reason"]
            assert "cudaMemPrefetchAsync" in row["remedy"] and "cudaMemAdvise" in row["remedy"]
    reduce = rows["DeviceReduceKernel"]
    assert reduce["cause"] == "unified-memory" and reduce["duration_ratio"] > 100


def test_the_migrations_are_a_row_of_their_own(doc) -> None:
    items = {r["family"]: r for r in doc["ranking"] if r["kind"] == "idle"}
    times = {r["Operation"]: (int(r["Count"]), int(r["Total Time (ns)"]))
             for r in oracle("cuda_gpu_mem_time_sum")}
    unified = [v for k, v in times.items() if "Unified" in k]
    um = items["unified-memory"]
    assert (um["instances"], um["total_ns"]) == (sum(c for c, _ in unified),
                                                 sum(t for _, t in unified))
    assert "cudaMemPrefetchAsync" in um["remedy"]
    assert "copies" not in items  # no other copy on this timeline
    assert doc["no_kernel_matched"] is False and doc["kernels_matched"] == 16


def test_severity_weighs_the_family_share_of_the_run(doc) -> None:
    """In its kernel report DeviceReduceSingleTileKernel's grid-too-small is critical; on the
    timeline its family holds 0.3 % of the kernel time (``nsys stats``: 387,941 of
    145.6 M ns), so no flag of it is above info, and its top flag says how it was weighed.
    DeviceScanKernel (12.2 % of the run) keeps its critical barrier stalls."""
    kern = oracle("cuda_gpu_kern_sum")
    total = sum(int(r["Total Time (ns)"]) for r in kern)
    share = {function(r["Name"]): int(r["Total Time (ns)"]) / total for r in kern}
    rows = by_function({r["family"]: r for r in doc["ranking"] if r["kind"] == "kernel"})
    assert set(rows) == set(share)
    for name, row in rows.items():
        top = row["top_flag"]
        assert top["run_share"] == pytest.approx(share[name], rel=1e-12), name
        assert "of the run's kernel time" in top["weighed_by"]
        if share[name] < 0.01:
            assert all("(info" in flag for flag in row["top_flags"]), name
            assert top["severity"] == "info" and row["next_flag"] is None
            assert top["weighed_by"].endswith(": under 1 %, so no flag above info")
    tile = rows["DeviceReduceSingleTileKernel"]
    assert share["DeviceReduceSingleTileKernel"] == pytest.approx(387941 / total)
    top = tile["top_flag"]
    assert (top["id"], top["severity"], top["found_severity"]) == (
        "grid-too-small", "info", "critical")
    assert top["chosen_by"] == "ncu-estimate"
    assert 0 < top["expected_gain"] <= share["DeviceReduceSingleTileKernel"]
    scan = rows["DeviceScanKernel"]["top_flag"]
    assert (scan["id"], scan["severity"], scan["found_severity"]) == (
        "barrier-stalls", "critical", "critical")


def test_the_markdown_states_the_weighing() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["join", str(TRACE), str(KERNELS), "-f", "md"]) == 0
    lines = [ln for ln in out.getvalue().splitlines() if ln.startswith("- Top flag: ")]
    assert len(lines) == 4  # one per profiled family
    assert ("- Top flag: grid-too-small (info) — largest NCU estimated speedup (99.2%) among "
            "the info flags; severity weighed by the family's 0.3 % of the run's kernel time: "
            "under 1 %, so no flag above info") in lines
