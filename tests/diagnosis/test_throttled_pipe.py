"""A pipe near the bar whose own queue throttles the warps (``throttled_pipe.py``), on a real
kernel's metrics with a few values changed (as ``test_boundaries``; no sample shows the case:
the held-out set's XU pipe ~60 % busy on the active SMs with MIO throttle leading).

zoo_a's ``mm_tiled`` stalls on MIO throttle (54 % of the cycles between issues); with its
LSU pipe and Speed Of Light lowered it would be latency-bound by that stall. With the XU pipe
at ``pipe_throttled_pct`` on the SMs that ran, the XU pipe is the limit instead.
"""

from __future__ import annotations

from kernelscope.kinds.ncu.analysis.diagnosis import DEFAULT_THRESHOLDS as T
from kernelscope.kinds.ncu.analysis.diagnosis import Diagnosis, diagnose
from kernelscope.kinds.ncu.model import Metric
from tests.diagnosis.conftest import find

ACTIVE = "pct_of_peak_sustained_active"
ELAPSED = "pct_of_peak_sustained_elapsed"
XU = f"sm__inst_executed_pipe_xu.avg.{ACTIVE}"
FMA = f"sm__pipe_fma_cycles_active.avg.{ACTIVE}"
LSU = f"sm__inst_executed_pipe_lsu.avg.{ACTIVE}"
MIO = "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio"
MATH = "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio"
LAT = "smsp__average_warp_latency_per_inst_issued.ratio"
QUIET = {  # Speed Of Light low, the LSU pipe not busy: no unit decides the label
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": 40.0,
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": 40.0,
    "l1tex__throughput.avg.pct_of_peak_sustained_active": 40.0,
    LSU: 20.0,
}


def run(changes: dict[str, float], drop: tuple[str, ...] = ()) -> Diagnosis:
    k = find("zoo_a", "mm_tiled")
    metrics = {name: m for name, m in k.summary.metrics.items() if name not in drop}
    for name, value in {**QUIET, **changes}.items():
        metrics[name] = Metric(name=name, value=value, unit="")
    return diagnose(metrics, k.summary.rules, k.summary.sections)


def mio_share() -> float:
    metrics = find("zoo_a", "mm_tiled").summary.metrics
    return float(metrics[MIO].value) / float(metrics[LAT].value)


def test_the_base_is_latency_bound_by_mio_throttle() -> None:
    assert mio_share() > T.stall_lead_share
    d = run({XU: T.pipe_throttled_pct - 5})
    assert (d.label, d.bottleneck.decided_by) == ("latency-bound", "mio-throttle")


def test_xu_near_the_bar_with_mio_throttle_is_the_xu_pipes() -> None:
    d = run({XU: 57.0})
    assert (d.label, d.bottleneck.decided_by) == ("instruction-bound", "mio-throttle")
    summary = d.bottleneck.summary
    assert summary.startswith(
        f"The XU pipe is 57% busy on the SMs that ran and warps spend {mio_share():.0%} of "
        "their cycles between issues waiting for the MIO queue (mio_throttle stalls): the "
        "pipe, not latency, sets the time.")
    assert "__expf" in summary and "one type" in summary
    pipe = next(e for e in d.bottleneck.evidence if e.metric == XU)
    assert (pipe.value, pipe.op, pipe.threshold, pipe.holds) == (57.0, ">=", 50.0, True)
    assert "neither compute nor memory is busy" not in summary.lower()


def test_the_xu_pipe_is_read_on_the_active_sms() -> None:
    """Without the ``_active`` form, the elapsed form over the SMs' active share: 40 % of the
    elapsed cycles with the SMs active 70 % of them is 57 % on the SMs that ran."""
    elapsed = {XU.replace(ACTIVE, ELAPSED): 40.0, "sm__cycles_elapsed.avg": 1000.0}
    d = run({**elapsed, "sm__cycles_active.avg": 700.0}, drop=(XU,))
    assert d.label == "instruction-bound"
    pipe = next(e for e in d.bottleneck.evidence if e.metric == XU.replace(ACTIVE, ELAPSED))
    assert abs(pipe.value - 40.0 / 0.7) < 1e-9
    d = run({**elapsed, "sm__cycles_active.avg": 1000.0}, drop=(XU,))
    assert d.label == "latency-bound"


def test_a_math_pipe_near_the_bar_with_math_throttle_is_compute_bound() -> None:
    lat = float(find("zoo_a", "mm_tiled").summary.metrics[LAT].value)
    d = run({FMA: 55.0, MIO: 0.0, MATH: 0.6 * lat})
    assert (d.label, d.bottleneck.decided_by) == ("compute-bound", "math-pipe-throttle")
    assert d.bottleneck.summary.startswith("The FMA pipe is 55% busy on the SMs that ran")


def test_a_throttle_that_is_not_the_pipes_own_queue_decides_nothing() -> None:
    """An FMA pipe at 55 % beside MIO throttle (shared memory's queue), and the LSU pipe at
    55 % beside it: the stall stays the verdict, latency-bound by MIO throttle."""
    for changes in ({FMA: 55.0}, {LSU: 55.0}):
        d = run(changes)
        assert (d.label, d.bottleneck.decided_by) == ("latency-bound", "mio-throttle"), changes


def test_the_stall_flag_names_the_pipe_that_fills_its_queue() -> None:
    d = run({XU: 57.0})
    flag = d.flag("mio-throttle")
    assert flag is not None
    assert flag.detail.endswith("The XU pipe it feeds is 57% busy on the SMs that ran: that "
                                "pipe's instructions fill the queue.")
    below = run({XU: 45.0}).flag("mio-throttle")
    assert below is not None and "pipe it feeds" not in below.detail
