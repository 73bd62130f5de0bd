"""Which call owns a kernel. The launch-time rule the Nsight Systems path uses (the innermost
operator open on the launching thread) is checked against the ids Kineto records for the
same launches; the NVTX names of emit_nvtx are read as operators with their sizes."""

from __future__ import annotations

from kernelscope.kinds.kineto.analysis.op_efficiency import kernel_launches
from kernelscope.kinds.kineto.analysis.op_shapes import read_op_ranges
from kernelscope.kinds.kineto.model.model import read_trace
from kernelscope.timeline.analysis.nvtx_ops import parse_op_range
from kernelscope.timeline.analysis.op_attribution import innermost, owners, parents
from tests.conftest import SAMPLES

STEP = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"


def test_the_innermost_call_at_each_launch_is_the_one_kineto_names() -> None:
    trace = read_trace(STEP)
    ranges = read_op_ranges(trace)
    launches = [la for la in kernel_launches(trace)
                if la.thread is not None and la.at is not None]
    found = innermost(ranges, [(la.thread or 0, la.at or 0) for la in launches])
    assert len(launches) == 171
    assert found == [la.op_id for la in launches]


def test_linear_owns_the_addmm_it_runs_and_backward_mm_counts_itself() -> None:
    ranges = read_op_ranges(read_trace(STEP))
    by_id = {r.op_id: r for r in ranges}
    parent = parents(ranges)
    addmm = [r for r in ranges if r.call.name == "aten::addmm"]
    assert addmm and all(by_id[parent[r.op_id] or -1].call.name == "aten::linear"
                         for r in addmm)
    owned = owners(ranges, [r.op_id for r in addmm])
    assert {o.op.call.name for o in owned.values()} == {"aten::linear"}
    mm = [r for r in ranges if r.call.name == "aten::mm"]
    assert {o.op.call.name for o in owners(ranges, [r.op_id for r in mm]).values()} == {
        "aten::mm"}


def test_emit_nvtx_range_names_read_as_operators() -> None:
    assert parse_op_range("aten::mm, seq = 12, sizes = [[512, 1024], [1024, 256]]") == (
        "aten::mm", ([512, 1024], [1024, 256]))
    assert parse_op_range("aten::addmm, seq = 37, op_id = 12, sizes = [[4096], [256, 1024], "
                          "[1024, 4096], [], []], input_op_ids = [(3,0), (5,0)]") == (
        "aten::addmm", ([4096], [256, 1024], [1024, 4096], [], []))
    assert parse_op_range("aten::empty, op_id = 3, sizes = []") == ("aten::empty", ())
    assert parse_op_range("forward") is None
    assert parse_op_range("aten::mm, seq = 1") is None  # recorded without shapes
