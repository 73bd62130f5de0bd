"""The events of a timeline lane, for a cursor, names and details (no Textual, no rich).

A lane of the timeline (``timeline.Lane``) draws its busy share from a merged coverage; its
events — the kernels and copies of a stream, the NVTX ranges of one nesting level of a
thread, the CUDA API calls of a thread — live here, sorted by start, so that a cursor can
step from event to event, a window can list the events wide enough to carry their name,
and the event under the cursor can be described. Other kinds of lanes (GPU metrics, say)
give no events and the cursor passes over them.

Every lookup is a binary search on the starts (``max_ns``, the longest event, bounds how far
back an event overlapping a time can start), so the cost does not grow with the trace.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

EVENT_SCHEMA = {"start": pl.Int64, "end": pl.Int64, "name": pl.String, "kind": pl.String,
                "ref": pl.Int64}
"""start, end, name, kind (kernel, memcpy, memset, nvtx, cuda-api) and ``ref``, the row of
the event in its source frame (the report's kernels, memcpy, memset, CUDA API calls, or the
NVTX ranges with their depth)."""


@dataclass(frozen=True)
class LaneLabel:
    """A name drawn over columns [first, last] of a lane (the event at ``index``)."""

    first: int
    last: int
    text: str
    index: int


class LaneEvents:
    """One lane's events sorted by start (columns of ``EVENT_SCHEMA``)."""

    def __init__(self, frame: pl.DataFrame) -> None:
        self.frame = frame.sort("start", "end")
        self.starts = self.frame["start"]
        self.ends = self.frame["end"]
        widest = self.frame.select((pl.col("end") - pl.col("start")).max()).item()
        self.max_ns = int(widest or 0)

    @classmethod
    def empty(cls) -> LaneEvents:
        return cls(pl.DataFrame(schema=EVENT_SCHEMA))

    def __len__(self) -> int:
        return self.frame.height

    def event(self, index: int) -> dict[str, object]:
        """Event ``index`` as a dict of ``EVENT_SCHEMA``'s columns."""
        return self.frame.row(index, named=True)

    def span(self, index: int) -> tuple[int, int]:
        return int(self.starts[index]), int(self.ends[index])

    def window(self, t0: int, t1: int) -> tuple[int, int]:
        """Indices [lo, hi) of a range containing every event overlapping [t0, t1)."""
        lo = int(self.starts.search_sorted(t0 - self.max_ns, side="left"))
        hi = int(self.starts.search_sorted(t1, side="left"))
        return lo, max(lo, hi)

    def at(self, t: int) -> int | None:
        """The event running at ``t`` (the latest started one), or None."""
        lo, hi = self.window(t, t + 1)
        part = self.frame.slice(lo, hi - lo).with_row_index("i").filter(
            (pl.col("start") <= t) & (pl.col("end") > t)
        )
        return lo + int(part["i"][-1]) if part.height else None

    def nearest(self, t: int) -> int | None:
        """The event running at ``t``, else the one whose start or end is closest to it."""
        if not len(self):
            return None
        running = self.at(t)
        if running is not None:
            return running
        after = int(self.starts.search_sorted(t, side="left"))
        candidates = [i for i in (after - 1, after) if 0 <= i < len(self)]
        lo, _ = self.window(t, t + 1)
        candidates.extend(range(lo, min(after, lo + 64)))
        return min(candidates, key=lambda i: (min(abs(int(self.starts[i]) - t),
                                                  abs(int(self.ends[i]) - t)), i))

    def step(self, index: int, direction: int) -> int | None:
        """The next (``direction`` 1) or previous (-1) event in start order, or None."""
        other = index + direction
        return other if 0 <= other < len(self) else None

    def labels(
        self, t0: int, t1: int, width: int, min_columns: int = 3, limit: int = 2000
    ) -> list[LaneLabel]:
        """Names for the events of [t0, t1) that span at least ``min_columns`` of ``width``
        columns, each cut to its columns (no two overlap: a later event drawn over an earlier
        one's columns is skipped). ``text`` is the event's raw name."""
        if width <= 0 or t1 <= t0 or not len(self):
            return []
        per_column = (t1 - t0) / width
        wide = per_column * min_columns
        lo, hi = self.window(t0, t1)
        part = (
            self.frame.slice(lo, hi - lo)
            .with_row_index("i")
            .filter((pl.col("end") > t0) & ((pl.col("end") - pl.col("start")) >= wide))
            .head(limit)
        )
        out: list[LaneLabel] = []
        taken = -1
        for i, start, end, name in part.select("i", "start", "end", "name").iter_rows():
            first = max(0, int((max(start, t0) - t0) / per_column))
            last = min(width - 1, int((min(end, t1) - 1 - t0) / per_column))
            if first <= taken or last - first + 1 < min_columns:
                continue
            out.append(LaneLabel(first, last, str(name or ""), lo + int(i)))
            taken = last
        return out


def nvtx_depths(ranges: pl.DataFrame) -> pl.Series:
    """The nesting level of each NVTX range within its thread (0: outermost): one below the
    ranges of its thread still open when it starts. Two ranges of one level never overlap
    (a start/end range that outlives its parent pushes later ranges down a level)."""
    if not ranges.height:
        return pl.Series("depth", [], dtype=pl.Int64)
    order = ranges.with_row_index("_row").sort(["global_tid", "start", "end"],
                                               descending=[False, False, True])
    depth = [0] * ranges.height
    thread = None
    open_ends: list[int] = []
    for row, tid, start, end in order.select("_row", "global_tid", "start", "end").iter_rows():
        if tid != thread:
            thread, open_ends = tid, []
        while open_ends and open_ends[-1] <= start:
            open_ends.pop()
        depth[row] = len(open_ends)
        open_ends.append(end if end is not None else start)
    return pl.Series("depth", depth, dtype=pl.Int64)


__all__ = ["EVENT_SCHEMA", "LaneEvents", "LaneLabel", "nvtx_depths"]
