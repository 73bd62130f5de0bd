"""Kernel families: the model, and how summary, --top N, Markdown, JSON and CSV rank them."""

from __future__ import annotations

import io
import json
import re

import polars as pl
import pytest

from kernelscope.core.kernel_identity import KernelIdentity
from kernelscope.export.summary import make_console, print_summary
from kernelscope.export.writer import ExportOptions, render
from kernelscope.kinds.ncu.analysis.families import ids_text, kernel_families
from kernelscope.kinds.ncu.model.model import KernelSummary
from tests.conftest import NCU_SAMPLES
from tests.ncu.oracle import load_raw, parse_number

SMALL = NCU_SAMPLES / "small_family.ncu-rep.xz"
JOIN = NCU_SAMPLES / "join_kernels.ncu-rep.xz"


def dims(text: str) -> tuple[int, int, int]:
    """``128×2`` → (128, 2, 1)."""
    x, y, z = [*map(int, text.split("×")), 1, 1][:3]
    return x, y, z


def launch(i: int, name: str, grid: str, block: str, duration: float | None) -> KernelSummary:
    identity = KernelIdentity(
        id=i, function=name, demangled=f"{name}(int)", grid=dims(grid), block=dims(block)
    )
    return KernelSummary(identity=identity, row={"duration_ns": duration}, metrics={},
                         rules=(), sections=frozenset())


def test_same_name_different_shapes_split_into_families() -> None:
    launches = [
        launch(0, "k", "64", "256", 10.0),
        launch(1, "k", "128", "256", 40.0),
        launch(2, "k", "64", "256", 30.0),
        launch(3, "other", "1", "32", 5.0),
        launch(4, "other", "1", "32", float("nan")),
    ]
    fams = kernel_families(launches)
    assert [(f.name, f.grid, f.count) for f in fams] == [
        ("k", "64", 2),
        ("k", "128", 1),
        ("other", "1", 2),
    ]
    big, small, other = fams.families
    assert big.split and small.split and not other.split
    assert big.key == ("k(int)", "64", "256") and other.key == ("other(int)", None, None)
    assert big.total_duration_ns == 40.0 and big.time_share == pytest.approx(40 / 85)
    assert other.durations_ns == (5.0, None)  # NaN is not a measurement
    assert other.median_duration_ns == 5.0 and other.representative == 3
    assert fams.family_of(2) is big and fams.kernel_share(1) == pytest.approx(40 / 85)
    assert fams.total_ns == 85.0
    json.dumps(big.to_dict())


def test_representative_is_the_median_launch() -> None:
    durations = [5.0, 1.0, 3.0, 4.0, 2.0, 9.0]
    fams = kernel_families(launch(i, "k", "1", "1", d) for i, d in enumerate(durations))
    (family,) = fams.families
    assert family.median_duration_ns == 3.5
    assert family.representative == 2  # the lower median, 3.0


def test_ids_text_collapses_runs() -> None:
    assert ids_text(range(1, 151)) == "1–150"
    assert ids_text([0, 1, 2, 4, 7, 9, 12, 13, 14]) == "0–2, 4, 7, 9, 12–14"
    assert ids_text([3, 5, 6]) == "3, 5, 6"


def test_json_has_families_ranked_and_a_family_index_per_kernel() -> None:
    doc = json.loads(render(SMALL, ExportOptions(fmt="json")))
    families = doc["families"]
    assert [f["count"] for f in families] == [150, 1]
    assert [f["index"] for f in families] == [0, 1]
    totals = [f["total_duration_ns"] for f in families]
    assert totals == sorted(totals, reverse=True)
    oracle = load_raw("small_family").rows
    assert totals[0] == sum(
        parse_number(oracle[i]["gpu__time_duration.sum"]) for i in families[0]["ids"]
    )
    assert {"name", "demangled", "count", "ids", "total_duration_ns", "time_share"} <= set(
        families[0]
    )
    for kernel in doc["kernels"]:
        assert kernel["id"] in families[kernel["family"]]["ids"]


def test_top_n_selects_the_largest_families_in_every_format() -> None:
    # The one-off RNG kernel is the longest launch; the Mul family has 96 % of the time.
    doc = json.loads(render(SMALL, ExportOptions(fmt="json", top=1)))
    assert {k["family"] for k in doc["kernels"]} == {0}
    assert len(doc["kernels"]) == 150
    frame = pl.read_csv(io.StringIO(render(SMALL, ExportOptions(fmt="csv", top=1))))
    assert set(frame["name"]) == {"vec_mul_64blocks"} and frame.height == 150
    assert set(frame["family"]) == {0}
    text = render(SMALL, ExportOptions(fmt="md", top=1))
    assert text.count("## Kernel Profiling Case:") == 1
    assert "## Kernel Profiling Case: vec\\_mul\\_64blocks" in text


def test_markdown_has_one_record_per_family_with_its_spread() -> None:
    text = render(SMALL, ExportOptions(fmt="md"))
    assert text.count("## Kernel Profiling Case:") == 2
    head = re.search(
        r"## Kernel Profiling Case: vec\\_mul\\_64blocks \(ID (\d+), family of 150 launches\)", text
    )
    assert head is not None
    oracle = load_raw("small_family").rows
    durations = sorted(
        (parse_number(r["gpu__time_duration.sum"]), i)
        for i, r in oracle.items()
        if r["Kernel Name"].startswith("vec_mul")
    )
    assert int(head.group(1)) == durations[(len(durations) - 1) // 2][1]  # the median launch
    assert "IDs 1–150" in text and "launch-bound ×150" in text
    assert "2.18 us – 2.82 us" in text  # min and max of the 150 durations as ncu prints them
    # One line per family (not 151) says why the roofline has no point.
    assert "- 1–150 vec\\_mul\\_64blocks (150 launches): instruction-rate metrics" in text


def test_markdown_family_table_ranks_by_total_time() -> None:
    text = render(JOIN, ExportOptions(fmt="md", top=2))
    table = text.split("## Kernel families")[1].split("## Roofline")[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    assert rows[0].startswith("| # | Kernel | Launches | IDs | Total | Share |")
    assert len(rows) - 1 == 5
    assert rows[1].startswith("| 1 | nvjet_sm90_tst_256x128") and "| 12 |" in rows[1]
    # 12 GEMMs of one kernel and launch shape but three problem sizes: the record says so.
    assert "durations differ ×3.9" in text


def test_summary_ranks_families(tmp_path) -> None:
    out = io.StringIO()
    print_summary(SMALL, file=out)
    text = out.getvalue()
    assert "151 kernels (2 families)" in text
    lines = [line for line in text.splitlines() if "vec_mul" in line or "rng_uniform" in line]
    assert "vec_mul_64blocks" in lines[0] and "150" in lines[0] and "96.36" in lines[0]
    assert "grid-too-small (warning)" in lines[0]
    assert make_console(io.StringIO()).no_color


def test_ids_text_of_interleaved_launches_and_long_lists() -> None:
    assert ids_text(range(3, 1000, 4)) == "3–999 step 4"
    assert ids_text([*range(0, 40, 3), 41]) == "0, 3, 6, 9, 12, 15, 18, 21, … (15 in all)"


def test_families_of_one_name_are_told_apart_by_their_launch_shape() -> None:
    four = [launch(i, "k", "64", block, 10.0 + i)
            for i, block in enumerate(("32", "64", "128", "256"))]
    labels = [f.label("k") for f in kernel_families(four)]
    assert labels == ["k [256×1×1]", "k [128×1×1]", "k [64×1×1]", "k [32×1×1]"]
    by_grid = [launch(0, "k", "64", "256", 1.0), launch(1, "k", "128×2", "256", 2.0)]
    assert [f.label("k") for f in kernel_families(by_grid)] == ["k [grid 128×2×1]",
                                                                 "k [grid 64×1×1]"]
    mixed = [launch(0, "k", "64", "256", 1.0), launch(1, "k", "64", "128", 2.0),
             launch(2, "k", "32", "128", 3.0)]
    assert [f.label("k") for f in kernel_families(mixed)] == [
        "k [grid 32×1×1, block 128×1×1]", "k [grid 64×1×1, block 128×1×1]",
        "k [grid 64×1×1, block 256×1×1]",
    ]
    assert [f.label("k") for f in kernel_families([launch(0, "k", "1", "1", 1.0)])] == ["k"]


def test_summary_json_and_csv_name_families_with_their_launch_shape() -> None:
    path = NCU_SAMPLES / "multi_process.ncu-rep.xz"
    out = io.StringIO()
    print_summary(path, file=out)
    text = out.getvalue()
    assert "mp_scale [grid 8192×1×1]" in text and "mp_saxpy [grid 4096×1×1]" in text
    doc = json.loads(render(path, ExportOptions(fmt="json")))
    assert sorted(f["shape"] for f in doc["families"]) == [
        "grid 4096×1×1", "grid 4096×1×1", "grid 8192×1×1", "grid 8192×1×1"]
    assert {k["short_name"] for k in doc["kernels"]} == {
        "mp_scale [grid 4096×1×1]", "mp_scale [grid 8192×1×1]",
        "mp_saxpy [grid 4096×1×1]", "mp_saxpy [grid 8192×1×1]"}
