"""The NVTX push/pop range each kernel was launched in, on the thread that launched it.

A kernel's range is found through its launch call (``correlationId`` → the CUDA API call on
the CPU): the innermost push/pop range open on that thread when the call started, and the
stack of ranges around it (``step 3 › tiny_ops``). Kernels whose launch call is not in the
report (no CUDA API trace) or that ran outside every range get None.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import polars as pl

from kernelscope.timeline.analysis.nvtx import nvtx_ranges
from kernelscope.timeline.model.model import TimelineReport, pid_of

PATH_SEPARATOR = " › "


@dataclass(frozen=True)
class ThreadRanges:
    """One thread's push/pop ranges by start, with each range's enclosing one."""

    starts: list[int]
    ends: list[int]
    names: list[str]
    parents: list[int]

    @classmethod
    def build(cls, frame: pl.DataFrame) -> ThreadRanges:
        frame = frame.sort(["start", "end"], descending=[False, True])
        starts = frame["start"].to_list()
        ends = frame["end"].to_list()
        names = [_message(r) for r in frame["range"].to_list()]
        parents: list[int] = []
        stack: list[int] = []
        for i, (start, end) in enumerate(zip(starts, ends, strict=True)):
            while stack and ends[stack[-1]] <= start:
                stack.pop()
            parents.append(stack[-1] if stack else -1)
            if end is not None:
                stack.append(i)
        return cls(starts, ends, names, parents)

    def innermost(self, t: int) -> int:
        """Index of the innermost range open at ``t``, -1 for none."""
        i = bisect.bisect_right(self.starts, t) - 1
        while i >= 0 and self.ends[i] <= t:
            i = self.parents[i]
        return i

    def path(self, i: int) -> tuple[str, ...]:
        out: list[str] = []
        while i >= 0:
            out.append(self.names[i])
            i = self.parents[i]
        return tuple(reversed(out))


def _message(range_name: str) -> str:
    """``:tiny_ops`` → ``tiny_ops``; ``domain:name`` keeps its domain as ncu writes it,
    ``domain@name``."""
    domain, _, message = range_name.partition(":")
    return f"{domain}@{message}" if domain else message


def kernel_ranges(report: TimelineReport) -> pl.DataFrame:
    """Per kernel row of ``report.kernels`` (same order): ``nvtx`` (innermost push/pop range
    of the launching thread, or null) and ``nvtx_path`` (the stack, outermost first, joined
    by ``›``)."""
    kernels = report.kernels
    empty = pl.DataFrame({"nvtx": [None] * kernels.height, "nvtx_path": [None] * kernels.height},
                         schema={"nvtx": pl.String, "nvtx_path": pl.String})
    ranges = nvtx_ranges(report).filter(pl.col("style") == "PushPop")
    if not kernels.height or not ranges.height or not report.cuda_api.height:
        return empty
    calls = report.cuda_api.select(
        "correlation_id", pid_of(pl.col("global_tid")).alias("pid"),
        pl.col("global_tid"), pl.col("start").alias("call_start"),
    ).unique(["correlation_id", "pid"], keep="first")
    launched = kernels.select(
        "correlation_id", pid_of(pl.col("global_pid")).alias("pid")
    ).with_row_index("row").join(calls, on=["correlation_id", "pid"], how="left")
    launched = launched.sort("row")
    by_thread = {
        int(tid): ThreadRanges.build(part)
        for (tid,), part in ranges.group_by(["global_tid"], maintain_order=True)
    }
    inner: list[str | None] = []
    paths: list[str | None] = []
    cache: dict[tuple[int, int], tuple[str | None, str | None]] = {}
    for tid, t in zip(launched["global_tid"].to_list(), launched["call_start"].to_list(),
                      strict=True):
        thread = by_thread.get(tid) if tid is not None else None
        if thread is None or t is None:
            inner.append(None)
            paths.append(None)
            continue
        i = thread.innermost(t)
        if (tid, i) not in cache:
            cache[(tid, i)] = (
                (thread.names[i], PATH_SEPARATOR.join(thread.path(i))) if i >= 0 else (None, None)
            )
        name, path = cache[(tid, i)]
        inner.append(name)
        paths.append(path)
    return pl.DataFrame({"nvtx": inner, "nvtx_path": paths},
                        schema={"nvtx": pl.String, "nvtx_path": pl.String})

