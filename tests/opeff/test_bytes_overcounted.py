"""No operator is said to move bytes faster than the device's memory bandwidth: the profiler
records shapes, not which tensor each input is, so ``mul(x, x)`` counts x twice; where the
counted bytes would beat the bandwidth the row gives no % of peak and says why."""

from __future__ import annotations

from kernelscope.kinds.kineto.analysis.op_efficiency import kineto_op_efficiency
from kernelscope.kinds.kineto.model.model import read_trace
from kernelscope.timeline.export.op_efficiency_text import op_efficiency_markdown
from tests.conftest import SAMPLES

SWEEP = SAMPLES / "opeff" / "gemm_sweep.pt.trace.json.xz"


def test_no_bytes_only_row_runs_above_the_bandwidth() -> None:
    efficiency = kineto_op_efficiency(read_trace(SWEEP))
    bytes_only = [r for r in efficiency.rows if r.modelled and r.flops is None]
    assert bytes_only
    for row in bytes_only:
        assert row.peak_gbps is not None and row.achieved_gbps is not None
        above = row.achieved_gbps > row.peak_gbps
        assert row.bytes_overcounted == above
        assert (row.pct_of_peak is None) if above else (row.pct_of_peak <= 100)
        assert row.to_dict()["bytes_upper_bound"] == above
    # opeff.py multiplies a tensor by itself: the one such row in the sweep
    square = [r for r in bytes_only if r.op == "aten::mul"]
    assert [r.bytes_overcounted for r in square] == [True]
    assert "have no % of peak: bytes an upper bound" in op_efficiency_markdown(efficiency)
