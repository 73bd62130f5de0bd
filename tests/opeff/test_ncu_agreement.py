"""The operator models' FLOPs against what Nsight Compute measured on the tensor cores
(``sm__ops_path_tensor_src_*.sum``, one FMA two operations), read with kernelscope's own
kernel-report reader, on the samples of ``samples/opeff/`` (samples/README.md: the bf16 GEMM
sweep and SDPA of ``samples/torch/opeff.py`` on an H100).

The kernel reports profile one pass of each program (``OPEFF_REPS=1``); the traces hold two
steps of three passes (the SDPA's three non-causal passes, then three causal). Each profiled
launch is laid against the same launch of the trace's first step (the first pass of each
block, in launch order, the kernel names checked to agree), and its operations are counted
for the operator call that owns it there (``op_attribution``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from kernelscope.kinds.kineto.analysis.op_efficiency import kernel_launches
from kernelscope.kinds.kineto.analysis.op_shapes import read_op_ranges
from kernelscope.kinds.kineto.model.model import read_trace
from kernelscope.kinds.ncu.model.report import NcuReport
from kernelscope.timeline.analysis.op_attribution import Owner, owners
from kernelscope.timeline.analysis.op_table import Launch, checked
from tests.conftest import SAMPLES

OPEFF = SAMPLES / "opeff"
TENSOR_OPS = re.compile(r"^sm__ops_path_tensor_src_[a-z0-9_]+\.sum$")
TOLERANCE = 0.02
REPS = 3
"""Passes per step in the traces (``OPEFF_REPS`` of the Kineto run: its default)."""


def measured_tensor_ops(report: NcuReport, kernel_id: int) -> float:
    """One launch's tensor-core operations: the largest ``sm__ops_path_tensor_src_*`` sum
    (a launch runs one input type, and the per-type sums overlap); 0 for none."""
    values = [m.number or 0.0 for name, m in report.all_metrics(kernel_id).items()
              if TENSOR_OPS.match(name)]
    return max(values, default=0.0)


def _stem(name: str) -> str:
    """A kernel name as both tools spell its start (``void``, spacing and the anonymous
    namespace's spelling aside)."""
    text = re.sub(r"\s+", "", name.removeprefix("void "))
    return text.replace("(anonymousnamespace)", "<unnamed>")[:24]


def _first_pass(trace_path: Path, blocks: int) -> tuple[list[Launch], dict[int, Owner]]:
    """The launches of the first pass of each block of the trace's first step, and the
    owner of each launching call."""
    trace = read_trace(trace_path)
    ranges = read_op_ranges(trace)
    launches = checked(kernel_launches(trace), ranges)
    first = trace.steps.row(0, named=True)
    step = sorted((la for la in launches if la.at is not None
                   and first["start"] <= la.at < first["end"]), key=lambda la: la.at or 0)
    size = len(step) // blocks
    picked = [la for b in range(blocks) for la in step[b * size: b * size + size // REPS]]
    owned = owners(ranges, [la.op_id for la in picked if la.op_id is not None])
    return picked, owned


def _compare(trace_name: str, report_name: str, blocks: int
             ) -> list[tuple[str, str, int, float]]:
    """(operator, model, model FLOPs, measured tensor ops) of each owning call that ran
    tensor-core work."""
    launches, owned = _first_pass(OPEFF / trace_name, blocks)
    report = NcuReport(OPEFF / report_name)
    assert report.kernel_count == len(launches)
    measured: dict[int, float] = defaultdict(float)
    calls = {}
    for kernel_id, launch in enumerate(launches):
        assert _stem(report.summary(kernel_id, rules=False).name) == _stem(launch.name)
        ops = measured_tensor_ops(report, kernel_id)
        if ops and launch.op_id is not None:
            owner = owned[launch.op_id]
            measured[owner.op.op_id] += ops
            calls[owner.op.op_id] = owner
    rows = []
    for op_id, ops in measured.items():
        owner = calls[op_id]
        assert owner.work is not None and owner.work.flops is not None, owner.op.call.name
        rows.append((owner.op.call.name, owner.work.model, owner.work.flops, ops))
    return rows


def test_gemm_sweep_flops_agree_with_the_tensor_cores_within_two_percent() -> None:
    rows = _compare("gemm_sweep.pt.trace.json.xz", "opeff_gemm.ncu-rep.xz", blocks=1)
    names = {name for name, *_ in rows}
    assert {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul",
            "aten::linear", "aten::conv2d", "aten::convolution_backward"} <= names
    for name, _, model, measured in rows:
        assert model == pytest.approx(measured, rel=TOLERANCE), name


def test_sdpa_flops_agree_and_causal_counts_only_the_kept_pairs() -> None:
    rows = _compare("sdpa.pt.trace.json.xz", "opeff_sdpa.ncu-rep.xz", blocks=2)
    plain = [r for r in rows if "causal" not in r[1]]
    causal = [r for r in rows if "causal" in r[1]]
    assert len(plain) == len(causal) == 2  # forward and backward of each
    for name, _, model, measured in plain:
        assert model == pytest.approx(measured, rel=TOLERANCE), name
    # The flash kernels compute the diagonal's 128 x 128 tiles whole, masked half included:
    # of 16 x 16 tiles (L = 2048), 136 run, 17/32 of L², where the kept pairs are
    # L(L + 1)/2. The model counts the kept pairs: about 6 % under the tensor cores' count.
    for name, _, model, measured in causal:
        assert 0.93 * measured < model < measured, name
