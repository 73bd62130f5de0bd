"""Messages that thread workers post to the UI (never touching widgets themselves)."""

from __future__ import annotations

from pathlib import Path

from textual.message import Message

from kernelscope.parsers.ncu import KernelDetail, KernelSummary, NcuReport, SourceHotspots


class ReportOpened(Message):
    """A kernel report was opened; its kernels' summaries follow in batches."""

    def __init__(self, report: NcuReport) -> None:
        super().__init__()
        self.report = report


class SummariesLoaded(Message):
    """A batch of kernel summaries; ``loaded`` of ``total`` are known now."""

    def __init__(self, batch: list[KernelSummary], loaded: int, total: int) -> None:
        super().__init__()
        self.batch = batch
        self.loaded = loaded
        self.total = total


class ReportLoaded(Message):
    """Every kernel's summary has been posted."""

    def __init__(self, total: int) -> None:
        super().__init__()
        self.total = total


class TimelineRequested(Message):
    """The file is an Nsight Systems report or SQLite export: show the timeline."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path


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
