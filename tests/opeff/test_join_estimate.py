"""A join's kernel families nobody profiled get an estimated headroom from their operators'
distance to the roofline (an estimate from shapes), never ranked with measured headroom."""

from __future__ import annotations

import json

import pytest

from kernelscope.export.writer import ExportOptions, render
from kernelscope.kinds.kineto.analysis.op_efficiency import kineto_op_efficiency
from kernelscope.kinds.kineto.model.model import read_trace
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
        assert item["potential_saving_ns"] == pytest.approx(item["total_ns"] * item["headroom"])
        assert "estimate from shapes, not a measurement" in item["weak_estimate"]
    assert not any(r["headroom_source"].startswith("estimate") for r in doc["ranking"])
