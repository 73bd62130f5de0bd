"""The values a timeline shows: a lane, the window of time drawn in so many columns, an idle
gap, the description of one event under the cursor."""

from __future__ import annotations

from dataclasses import dataclass, field

from kernelscope.timeline.model.intervals import Coverage


@dataclass(frozen=True)
class Lane:
    """One horizontal row of the timeline."""

    key: str  # stable id, e.g. "gpu0", "gpu0/s7", "nvtx/1234", "cuda/1234"
    label: str  # what to print at the left, e.g. "GPU 0 stream 7"
    kind: str  # "gpu", "stream", "nvtx" or "cuda-api"
    coverage: Coverage
    device: int | None = None
    stream: int | None = None
    tid: int | None = None
    pid: int | None = None
    events: int = 0
    depth: int = 0
    """The nesting level of an NVTX lane (0: the outermost ranges of its thread)."""


@dataclass(frozen=True)
class TimelineView:
    """Busy fractions for one window: ``busy[lane.key][column]`` in [0, 1]."""

    t0: int
    t1: int
    width: int
    edges: list[int]  # width + 1 column boundaries
    busy: dict[str, list[float]] = field(default_factory=dict)

    def column_of(self, t: int) -> int | None:
        """The column that time ``t`` falls in, or None outside the window."""
        if not self.t0 <= t < self.t1:
            return None
        return min(int((t - self.t0) * self.width // (self.t1 - self.t0)), self.width - 1)

    def columns_between(self, start_ns: int, end_ns: int) -> tuple[int, int] | None:
        """The first and last column that [start_ns, end_ns) touches, None when it lies
        outside the window (one call: the gap marks place thousands of gaps a redraw)."""
        t0, t1 = self.t0, self.t1
        first_ns, last_ns = max(start_ns, t0), min(end_ns, t1) - 1
        if last_ns < first_ns:
            return None
        width = self.width
        span = t1 - t0
        return (min((first_ns - t0) * width // span, width - 1),
                min((last_ns - t0) * width // span, width - 1))


@dataclass(frozen=True)
class Gap:
    """An idle gap of one device."""

    device: int
    start_ns: int
    end_ns: int

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns




@dataclass
class EventInfo:
    """One event of the timeline, for the details line: a kernel, copy or memset (with its
    stream, grid × block and the CUDA API call that launched it), an NVTX range (its thread
    and nesting level) or a CUDA API call (with the GPU work it launched)."""

    kind: str
    name: str
    start_ns: int
    end_ns: int
    device: int | None = None
    stream: int | None = None
    grid: tuple[int, int, int] | None = None
    block: tuple[int, int, int] | None = None
    bytes: int | None = None
    tid: int | None = None
    depth: int | None = None
    related: tuple[str, int, int, int | None] | None = None
    """The correlated event: (name, start, end, thread) of the launching API call, or of the
    GPU work a call launched (thread None)."""

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns
