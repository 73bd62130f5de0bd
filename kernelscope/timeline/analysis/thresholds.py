"""Every number the timeline analysis compares against, in one place, each with its reason.

The model is the kernel report's ``Thresholds``: a frozen dataclass, one field a
number, its docstring the reason. ``TIMELINE_THRESHOLDS`` holds the values the analysis uses.
The nsys expert-system rules (``nsys_rules``) keep nsys's own defaults, so their findings match
``nsys analyze``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TimelineThresholds:
    """The thresholds of the Nsight Systems (and Kineto) timeline analysis."""

    # -- gaps ------------------------------------------------------------------------------
    large_gap_ns: int = 100_000
    """An idle gap at least this long (100 us) is explained and listed, and between two
    launches it is a pause of the program (another phase), not launch overhead: a launch
    costs a few us, so a gap a hundred times that is not the launch rhythm."""
    cause_majority: float = 0.5
    """A cause that covers at least this share of a gap names it (a majority, so at most one
    cause can)."""

    # -- steps ---------------------------------------------------------------------------
    step_coverage: float = 0.5
    """Named ranges are a trace's steps only when together they last at least this share of
    its GPU busy time: shorter ones cannot hold the work of the iterations they mark."""

    # -- many tiny kernels -----------------------------------------------------------------
    tiny_kernel_ns: int = 20_000
    """A kernel shorter than this (20 us) is within a few launch costs of its own launch."""
    tiny_max_gap_ns: int = 100_000
    """Tiny kernels at most this far apart are one launch-bound stretch (the large-gap
    threshold: a longer gap is a pause, not launch overhead)."""
    tiny_min_kernels: int = 20
    """Fewer consecutive tiny kernels than this are too few to be worth a CUDA Graph."""
    tiny_max_busy: float = 0.6
    """A stretch whose device is busy less than this share of the time loses about as much
    to the gaps as it spends in the kernels: launch-bound."""

    # -- GPU metrics -----------------------------------------------------------------------
    min_metric_samples: int = 10
    """Fewer GPU metric samples while the GPU was busy than this and no verdict is drawn from
    them (a handful of samples says more about when they fell than about the kernels)."""
    metrics_busy_pct: float = 60.0
    """A GPU busy less than this share of its span loses most of its time between the kernels;
    an SM issue rate below it while busy means the kernels themselves are slow (the "busy" of
    a unit in the kernel report's speed-of-light reading)."""
    metrics_sm_active_pct: float = 50.0
    """SMs active less than this share while the GPU is busy: the grids are too small to fill
    the SMs (a grid of half the SMs is where the kernel report warns)."""
    metrics_dram_bound_pct: float = 70.0
    """DRAM bandwidth at least this share of peak while busy: the kernels are HBM-bound (the
    notes' SOP step 2, as for one kernel)."""

    # -- nsys's expert-system rules (their defaults, as ``nsys analyze`` has them) ---------
    gpu_gap_ms: int = 500
    """``gpu_gaps``: an idle gap of the GPU at least this long, in ms."""
    time_util_pct: int = 50
    """``gpu_time_util``: a region whose GPU time utilisation is under this, in %."""
    time_util_chunks: int = 30
    """``gpu_time_util``: the report is cut into this many regions."""
    sync_memcpy_small_htod_bytes: int = 64_000
    """``cuda_memcpy_sync``: host-to-device copies up to "64 KB" return early (nsys: 64000),
    so they are not synchronous in effect."""


TIMELINE_THRESHOLDS = TimelineThresholds()
