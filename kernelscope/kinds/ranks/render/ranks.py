"""Text shared by the ranks screen, the Markdown export and the summary: the ASCII heatmap,
gap causes in one line, and the per-rank numbers as short strings (``pct``, ``duration``:
the shared formatters, by the names the ranks views call them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kernelscope.core.durations import fmt_duration
from kernelscope.core.durations import fmt_duration as duration
from kernelscope.core.findings import Finding
from kernelscope.core.kernel_names import ShortNames, fit_name
from kernelscope.core.shares import fmt_percent as pct
from kernelscope.kinds.ranks.analysis.clocks import EVERY_RANK, MOST
from kernelscope.kinds.ranks.analysis.model import Straggler
from kernelscope.kinds.ranks.analysis.straggler import LATENESS, LATEST_RANK

# Blank for an idle column, then nine levels of GPU utilisation (ASCII: any terminal, any font).
RAMP = " .:-=+*#%@"


def kernel_names(doc: Mapping[str, Any]) -> ShortNames:
    """The run's short kernel names (unique among its families), from its export document."""
    return ShortNames(str(f["name"]) for f in doc["families"])


def kernel_text(names: ShortNames, name: str, width: int) -> str:
    """Kernel ``name`` by the run's short ``names``, fitted to ``width``."""
    return fit_name(names[name], width)


def straggler_verdict(straggler: Straggler) -> str:
    """The straggler in one sentence: ``rank 2 arrives last at 7 of 8 collectives, …``."""
    s = straggler
    text = (f"rank {s.rank} arrives last at {s.last_count} of {s.collectives} collectives, a "
            f"median {fmt_duration(s.late_ns_per_step)} per step after the other ranks")
    longer = s.longer_range
    if longer is not None:
        name, ns, others, extra = longer
        text += (f"; before arriving it spends {fmt_duration(ns)} in NVTX range '{name}' "
                 f"(others {fmt_duration(others)}, +{fmt_duration(extra)})")
    return text + "."


def straggler_note(verdict: Finding) -> str:
    """Why no straggler is named, in one sentence; empty when one is (``straggler_verdict``
    words it)."""
    if verdict.id == "straggler":
        return ""
    if verdict.id == "no-collective":
        return "no collective was matched across the ranks, so nobody can be late."
    if verdict.id == "captures-differ":
        reading = {e.metric: e for e in verdict.evidence}
        steps = reading.get("steps")
        differ = f"; steps {steps.note}" if steps is not None and steps.note else ""
        return (f"no straggler named: the ranks' captures do not line up "
                f"({reading[EVERY_RANK].value:.0f} collective(s) recorded on every rank, up "
                f"to {reading[MOST].value:.0f} on one{differ}), so a rank's lateness may be "
                "its capture starting or stopping elsewhere; profile the same steps on every "
                "rank.")
    reading = {e.metric: e for e in verdict.evidence}
    late = reading[LATENESS]
    return (f"no straggler: the latest rank ({reading[LATEST_RANK].value:.0f}) arrives a median "
            f"{fmt_duration(late.value)} after the others' median per step, within "
            f"{fmt_duration(late.threshold)} (alignment uncertainty or 1 % of a step).")


def note_text(note: Finding) -> str:
    """A note on what limits the comparison of the ranks, in one sentence."""
    count = note.evidence[0]
    if note.id == "missing-communication":
        return (f"rank(s) {note.subject} show no {count.note} communication; they are left out "
                "of the collective comparison.")
    if note.id == "partial-collectives":
        alone = note.evidence[1].value if len(note.evidence) > 1 else 0
        parts = ([f"{count.value:.0f} collective(s) were not seen on every rank"]
                 if count.value else []) + (
            [f"{alone:.0f} call(s) were made on one rank only"] if alone else [])
        return (f"{' and '.join(parts)} (different captures or call counts); a collective is "
                "compared among the ranks that made it, a call no other rank made is left "
                "out.")
    if note.id == "different-steps":
        return (f"the ranks captured different steps ({count.note}): each collective is "
                "compared among the ranks that recorded it.")
    if note.id == "left-out":
        return f"left out of the run, not traces of its kind: {count.note}."
    return note.title


def shade(fraction: float) -> str:
    """The heatmap character for a busy fraction in [0, 1]."""
    if fraction <= 0:
        return RAMP[0]
    levels = len(RAMP) - 1
    return RAMP[1 + min(levels - 1, int(fraction * levels))]


def ramp_legend() -> str:
    levels = len(RAMP) - 1
    steps = ", ".join(f"'{RAMP[i + 1]}' < {round(100 * (i + 1) / levels)} %"
                      for i in range(levels - 1))
    return f"' ' idle, {steps}, '{RAMP[-1]}' busier"


def heatmap_lines(cells: Mapping[int, Sequence[float]], *, mark: int | None = None,
                  width: int | None = None) -> list[str]:
    """One line per rank: ``rank  2 *|…|`` (``*`` marks the straggler)."""
    label = max((len(str(r)) for r in cells), default=1)
    lines = []
    for rank, values in cells.items():
        row = "".join(shade(v) for v in values[:width])
        star = "*" if rank == mark else " "
        lines.append(f"rank {rank:>{label}} {star}|{row}|")
    return lines


GAP_CAUSES_SHOWN = 3
"""The largest gap causes a rank's row names."""


def gap_summary(gaps: Sequence[Mapping[str, Any]], limit: int = GAP_CAUSES_SHOWN) -> str:
    """``cpu-busy 640.5 ms (23), communication 314.3 ms (11)`` from gap-cause rows."""
    parts = [f"{g['cause']} {fmt_duration(g['ns'])} ({g['gaps']})" for g in gaps[:limit]]
    return ", ".join(parts) or "none"

__all__ = ["duration", "gap_summary", "heatmap_lines", "pct", "ramp_legend", "shade"]
