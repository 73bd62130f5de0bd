"""The families a what-if keeps as measured though they ran beside the work it changes
(``critical_path/beside.py``), on the what-if pairs of ``samples/whatif/``: the caveat names
them where the re-run moved them, with the trace's own evidence of how much sharing slowed
them, and stays silent where nothing shared the GPU with the change."""

from __future__ import annotations

import pytest

from kernelscope.export.whatif import render_whatif, whatif_document
from tests.critical_path.test_whatif_samples import FASTER, KINDS, WHATIF, _base, _fast


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", ["serial", "hidden"])
def test_nothing_shared_the_gpu_with_the_change(case: str, kind: str) -> None:
    """``serial``: the spin runs alone; ``hidden``: beside host work only."""
    assert _base(case, kind)["beside"].height == 0


@pytest.mark.parametrize("kind", KINDS)
def test_the_spin_that_never_ran_alone_is_named_without_a_comparison(kind: str) -> None:
    """``shift``: the spin ran beside the GEMMs the what-if halves all its time; the re-run
    was shorter than the prediction, as the caveat warns, and the trace has no launch of it
    alone to say by how much."""
    base = _base("shift", kind)
    (row,) = base["beside"].to_dicts()
    assert row["name"].endswith("spin_kernel(long)")
    assert row["beside_ns"] >= 0.95 * row["gpu_ns"]
    assert row["away_launches"] == 0 and row["away_median_ns"] is None
    fast, _ = _fast("shift", kind)
    assert base["predicted"] > fast


@pytest.mark.parametrize("kind", KINDS)
def test_the_gemms_beside_the_spin_show_their_slowdown(kind: str) -> None:
    """``beside``: the GEMMs ran beside the spin for about half their time; their launches
    beside it took 6-10 % longer than those away from it, and the re-run with the spin
    halved was shorter than the prediction by about as much."""
    base = _base("beside", kind)
    gemm = base["beside"].filter(base["beside"]["kind"] == "kernel").to_dicts()
    assert [row["name"].startswith("nvjet") for row in gemm] == [True]
    (row,) = gemm
    assert 0.4 * row["gpu_ns"] < row["beside_ns"] < 0.7 * row["gpu_ns"]
    slower = row["beside_median_ns"] / row["away_median_ns"] - 1
    assert 0.05 < slower < 0.11
    fast, _ = _fast("beside", kind)
    assert 0.05 < base["predicted"] / fast - 1 < 0.11


def test_json_and_markdown_carry_the_caveat() -> None:
    trace = WHATIF / f"shift_base.{KINDS[1]}"
    doc = whatif_document(trace, [f"{FASTER['shift']}=2"])
    (row,) = doc["beside_changed"]
    assert row["short_name"] == "spin_kernel" and row["away_median_ns"] is None
    text = render_whatif(trace, [f"{FASTER['shift']}=2"], "md")
    assert "## Kept as measured, beside the changed work" in text
    assert "| spin_kernel | " in text
    assert "—: fewer than 3 launches of the family ran away from the changed work" in text
    quiet = render_whatif(WHATIF / f"serial_base.{KINDS[1]}", ["spin_kernel=2"], "md")
    assert "beside the changed work" not in quiet
    assert whatif_document(WHATIF / f"serial_base.{KINDS[1]}",
                           ["spin_kernel=2"])["beside_changed"] == []
