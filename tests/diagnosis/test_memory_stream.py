"""Low occupancy beside a memory unit at least half busy is a memory stream, not
occupancy-bound (issue 35: ``occupancy-bound`` at 410 waves with DRAM half busy was a miss),
on zoo_a's ``transpose_sm<1>`` with a few values changed (``test_boundaries.run``)."""

from __future__ import annotations

from kernelscope.kinds.ncu.analysis.diagnosis import DEFAULT_THRESHOLDS as T
from tests.diagnosis.test_boundaries import run


def test_low_occupancy_with_a_memory_unit_half_busy_is_a_memory_stream() -> None:
    # issue 35: occupancy-bound at 410 waves with DRAM half busy was a miss; the kernel streams
    # memory and waits on it with too few bytes in flight, whichever memory unit is the busy one
    quiet = {"sm": 20, "ach": 20, "lat": 50, "long_sb": 20, "issue": 20, "l2": 30, "waves": 410}
    d = run("transpose_sm<1>", dram=55, mem=55, **quiet)
    assert d.label == "latency-bound"
    assert d.bottleneck.summary.startswith("DRAM is 55% busy with too few warps resident")
    path = run("transpose_sm<1>", dram=45, mem=55, **quiet)
    assert path.label == "latency-bound"
    assert path.bottleneck.summary.startswith("The memory path is 55% busy")
    l2 = run("transpose_sm<1>", dram=45, mem=45, **{**quiet, "l2": T.memory_stream_pct})
    assert l2.bottleneck.summary.startswith("L2 is 50% busy")
    below = run("transpose_sm<1>", dram=45, mem=45, **{**quiet, "l2": 49})
    assert below.label == "occupancy-bound"
