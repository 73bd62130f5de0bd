"""Messages the kernel detail's thread workers post to it (never touching widgets themselves)."""

from __future__ import annotations

from textual.message import Message

from kernelscope.kinds.ncu.model import KernelDetail
from kernelscope.kinds.ncu.model.metrics import Metric
from kernelscope.kinds.ncu.model.source import KernelSource


class DetailLoaded(Message):
    """A kernel's detail was read (in a worker)."""

    def __init__(self, detail: KernelDetail) -> None:
        super().__init__()
        self.detail = detail


class SourceLoaded(Message):
    """A kernel's source and SASS listing was read (None when the report has no source
    counters for it)."""

    def __init__(self, kernel_id: int, listing: KernelSource | None) -> None:
        super().__init__()
        self.kernel_id = kernel_id
        self.listing = listing


class MetricsLoaded(Message):
    """Every metric of a kernel was read (for the Raw page)."""

    def __init__(self, kernel_id: int, metrics: dict[str, Metric]) -> None:
        super().__init__()
        self.kernel_id = kernel_id
        self.metrics = metrics
