"""Before and after: two kernel reports or two timelines compared (``kernelscope diff``).

``open_pair(paths)`` opens both inputs (``inputs``); ``DiffInputs.diff()`` builds a
``KernelDiff`` (``kernels``: matched kernels, their speedups, label transitions, flags and
pane metrics) or a ``TimelineDiff`` (``timelines``: per-family time, GPU busy, gaps, NVTX,
copies, findings). Plain objects: the exports and the screens render the same numbers.
"""

from kernelscope.parsers.diff.inputs import DiffInputs, open_pair, pair_kind
from kernelscope.parsers.diff.kernels import KernelDiff, KernelPair, diff_kernels, parse_pair
from kernelscope.parsers.diff.metrics import DIFF_METRICS, MetricChange, TimeChange, change_pct
from kernelscope.parsers.diff.timelines import TimelineDiff, diff_timelines

__all__ = [
    "DIFF_METRICS",
    "DiffInputs",
    "KernelDiff",
    "KernelPair",
    "MetricChange",
    "TimeChange",
    "TimelineDiff",
    "change_pct",
    "diff_kernels",
    "diff_timelines",
    "open_pair",
    "pair_kind",
    "parse_pair",
]
