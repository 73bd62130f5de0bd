"""The side panel's text for one GPU idle gap: its cause, and what the CPU did meanwhile."""

from __future__ import annotations

from rich.text import Text

from kernelscope.core.durations import fmt_ns
from kernelscope.core.words import ellipsis
from kernelscope.timeline.analysis.gap_cause_catalog import gap_cause
from kernelscope.timeline.analysis.gap_causes import GapExplanation
from kernelscope.timeline.analysis.timeline_view import Gap
from kernelscope.timeline.model.profilers import NSYS, in_own_words
from kernelscope.ui.widgets.bars import bar_cells

CAUSE_STYLES = {
    "sync": "bold red", "memcpy": "bold magenta", "launch-overhead": "bold yellow",
    "module-loading": "bold green",
    "alloc": "bold magenta", "cuda-setup": "bold yellow", "cuda-api": "bold yellow",
    "cpu-busy": "bold cyan", "cpu-idle": "bold blue", "data-loading": "bold cyan",
    "unknown": "bold",
}
SOURCE_LABELS = {"cuda": "CUDA", "osrt": "OSRT", "nvtx": "NVTX"}
COVERAGE_BAR = 10
CATEGORY_LABELS = {"sync": "syncs", "memcpy": "copies", "launch": "launches",
                   "module-load": "module loading",
                   "alloc": "allocation", "setup": "CUDA setup",
                   "idle": "OS waits", "os": "OS calls", "api": "other CUDA"}


def gap_heading(gap: Gap, position: int | None, total: int, origin_ns: int) -> Text:
    text = Text()
    where = f"Gap {position + 1} of {total}" if position is not None else "Gap"
    text.append(f"{where} · GPU {gap.device}\n", style="bold")
    text.append(f"at {fmt_ns(gap.start_ns - origin_ns)}, idle for ")
    text.append(fmt_ns(gap.duration_ns), style="bold")
    return text


def gap_text(
    gap: Gap,
    explanation: GapExplanation | None,
    *,
    position: int | None,
    total: int,
    origin_ns: int,
    explained: int,
    width: int = 40,
    profiler: str = NSYS,
) -> Text:
    """Everything the panel shows for ``gap`` (``explanation`` None: not explained)."""
    text = gap_heading(gap, position, total, origin_ns)
    if explanation is None:
        text.append(f"\n\nNot explained: only the {explained:,} longest gaps are, to keep "
                    "opening fast.", style="dim")
        return text
    cause = gap_cause(explanation.cause)
    text.append("\n\nCause ")
    text.append(explanation.cause, style=CAUSE_STYLES.get(explanation.cause, "bold"))
    if explanation.detail:
        text.append(f": {explanation.detail}", style="bold")
    text.append(f"\n{cause.description}\n")
    if explanation.reason:
        text.append(f"{explanation.reason}\n", style="yellow")
    text.append("Fix: ", style="bold")
    text.append(in_own_words(profiler, cause.remedy), style="italic cyan")
    if explanation.hint:
        text.append("\nTo see more, profile with ", style="dim")
        text.append(explanation.hint, style="cyan")
    if explanation.coverage:
        text.append("\n\nShare of the gap covered by", style="bold")
        for category, share in sorted(explanation.coverage.items(), key=lambda kv: -kv[1]):
            filled, track = bar_cells(share, COVERAGE_BAR)
            text.append(f"\n  {CATEGORY_LABELS.get(category, category):<10} ")
            text.append(filled, style="yellow")
            text.append(track, style="bright_black")
            text.append(f" {share * 100:5.1f} %")
    who = f"thread {explanation.thread}" if explanation.thread is not None else "unknown thread"
    nxt = f" · next on the GPU: {explanation.next_op}" if explanation.next_op else ""
    text.append(f"\n\nFed by {who}{nxt}", style="dim")
    text.append("\n\nCPU during the gap", style="bold")
    if not explanation.cpu:
        text.append("\n  nothing traced", style="dim")
    name_width = max(8, width - 18)
    for act in explanation.cpu:
        text.append(f"\n  {SOURCE_LABELS.get(act.source, act.source):<4} ", style="dim")
        text.append(ellipsis(act.name or "?", name_width).ljust(name_width))
        text.append(f" {fmt_ns(act.overlap_ns):>10}")
    return text
