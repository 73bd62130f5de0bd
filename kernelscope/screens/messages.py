"""Messages the kernel detail's thread workers post to it (never touching widgets themselves)."""

from __future__ import annotations

from textual.message import Message

from kernelscope.parsers.ncu import KernelDetail, SourceHotspots


class DetailLoaded(Message):
    """A kernel's detail was read (in a worker)."""

    def __init__(self, detail: KernelDetail) -> None:
        super().__init__()
        self.detail = detail


class SourceLoaded(Message):
    """A kernel's source hotspots were read (None when the report has no source counters)."""

    def __init__(self, kernel_id: int, hotspots: SourceHotspots | None) -> None:
        super().__init__()
        self.kernel_id = kernel_id
        self.hotspots = hotspots
