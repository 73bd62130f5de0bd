"""A join's kernel families nobody profiled get an estimated headroom from their operators'
distance to the roofline (an estimate from shapes), never ranked with measured headroom; what
that headroom would save is a what-if on the steps, as for a profiled family (issue 37)."""

from __future__ import annotations

import json
from typing import Any

import polars as pl
import pytest

from kernelscope.export.whatif import timeline_of
from kernelscope.export.writer import ExportOptions, render
from kernelscope.kinds.kineto.analysis.op_efficiency import kineto_op_efficiency
from kernelscope.kinds.kineto.model.model import read_trace
from kernelscope.timeline.analysis.critical_path.vocabulary import GPU
from tests.conftest import SAMPLES

TRACE = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"
KERNELS = SAMPLES / "ncu" / "gemm_naive.ncu-rep.xz"  # of another program: nothing matches


def test_unprofiled_families_take_their_operators_distance_to_the_roofline() -> None:
    doc = json.loads(render([TRACE, KERNELS], ExportOptions(fmt="json"), subcommand="join"))
    rows = kineto_op_efficiency(read_trace(TRACE)).rows
    estimated = [u for u in doc["unprofiled"] if u["headroom"] is not None]
    assert estimated and len(estimated) < len(doc["unprofiled"])
    for item in doc["unprofiled"]:
        owners = [(row, ns) for row in rows for name, ns in row.kernel_ns
                  if name == item["family"] and row.pct_of_roofline is not None]
        if not owners:  # its operators have no model, or no % of their roofline
            assert item["headroom"] is None and item["headroom_source"] == "not profiled"
            continue
        total = sum(ns for _, ns in owners)
        reached = sum(min(100.0, row.pct_of_roofline or 0) * ns for row, ns in owners) / total
        assert item["headroom"] == pytest.approx(max(0.0, 1 - reached / 100))
        assert item["headroom_source"].startswith("estimate from shapes (")
        # kineto_step is CPU-bound (the GPU busy 1.3 of 39.6 ms): no family's speed moves a step
        assert item["potential_saving_ns"] == 0
        assert "estimate from shapes, not a measurement" in item["weak_estimate"]
        assert "off the critical path" in item["weak_estimate"]
    assert not any(r["headroom_source"].startswith("estimate") for r in doc["ranking"])


def test_an_estimated_headroom_saves_what_the_steps_would_save() -> None:
    """On the GPU-bound SDPA trace each estimated family saves the steps' time a replay with
    its launches at the estimated speed saves: never more than its time x headroom."""
    trace = SAMPLES / "opeff" / "sdpa.pt.trace.json.xz"
    doc = json.loads(render([trace, KERNELS], ExportOptions(fmt="json"), subcommand="join"))
    estimated = [u for u in doc["unprofiled"] if u["headroom"] is not None]
    assert len(estimated) >= 5

    def saved(data: Any) -> dict[str, int]:
        model = data.critical_model
        gpu = model.graph.nodes.filter(pl.col("cls") == GPU)
        out = {}
        for item in estimated:
            nodes = gpu.filter(pl.col("name") == item["family"])["node"].to_list()
            factor = 1.0 / max(1.0 - item["headroom"], 0.01)
            out[item["family"]] = max(model.steps_saved_ns(nodes, factor), 0)
        return out

    expected = timeline_of(trace, None, saved)
    for item in estimated:
        assert item["potential_saving_ns"] == expected[item["family"]]
        # (each launch's new duration is rounded to a whole ns)
        assert 0 <= item["potential_saving_ns"] <= (item["total_ns"] * item["headroom"]
                                                    + item["instances"])
    lead = max(estimated, key=lambda u: u["total_ns"])  # cuDNN's attention backward
    assert lead["potential_saving_ns"] > 0.4 * lead["total_ns"] * lead["headroom"]
