"""The words and numbers of a join's ranking, shared by its exports and its screen."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from kernelscope.core.durations import fmt_ns
from kernelscope.core.kernel_names import ShortNames, fit_name, short_name
from kernelscope.core.shares import fmt_share
from kernelscope.core.units import NOT_AVAILABLE
from kernelscope.core.words import ellipsis
from kernelscope.kinds.join.analysis.model import RankedItem
from kernelscope.kinds.join.analysis.run_weight import RunTopFlag
from kernelscope.kinds.ncu.analysis.families import ids_text
from kernelscope.kinds.ncu.render.flag_cells import flag_words


def unprofiled_rank(position: int) -> str:
    """``?1``, ``?2``…: a family nobody profiled, numbered apart from the ranking (its gain
    is unknown), by its time."""
    return f"?{position}"


def item_name(item: RankedItem, width: int | None = 48) -> str:
    """The kernel's compact name (whole when ``width`` is None), or what the non-kernel time
    is. A ranking names its kernels through ``ranking_labels`` instead."""
    if item.kind == "kernel":
        return short_name(item.name or item.family, width)
    return item.title


@dataclass(frozen=True)
class Label:
    """An item's name in a ranking and what is added to tell it apart (``shape``)."""

    name: str
    shape: str = ""
    kernel: bool = False

    def fit(self, width: int | None = None) -> str:
        """The label in ``width`` columns (whole when None): the shape stays; a kernel name
        is cut keeping what tells it apart, other text keeps its head."""
        whole = self.name + self.shape
        if width is None or len(whole) <= width:
            return whole
        if not self.kernel:
            return ellipsis(whole, width)
        return fit_name(self.name, max(width - len(self.shape), 8)) + self.shape


def ranking_labels(ranking: Sequence[RankedItem]) -> list[Label]:
    """Each item's label: kernels by their short names among the ranking's kernels (spelled
    out until they differ), and where one kernel name has families of several launch shapes,
    the shape too (`` [16384 × 128]``); non-kernel time by what it is."""
    demangled = [item.name or item.family for item in ranking if item.kind == "kernel"]
    names = ShortNames(demangled)
    shared = Counter(demangled)
    labels = []
    for item in ranking:
        if item.kind != "kernel":
            labels.append(Label(item.title))
            continue
        name = item.name or item.family
        shape = f" [{item.grid} × {item.block}]" if shared[name] > 1 else ""
        labels.append(Label(names[name], shape, kernel=True))
    return labels


def apart_text(ratio: float) -> str:
    """How far apart two durations are, the larger over the smaller: ``10.2×``."""
    return f"{max(ratio, 1 / ratio):.1f}×"


def share_text(share: float | None) -> str:
    """A share (0-1) as ``61.1 %`` (one decimal, as ``nsys stats`` prints Time (%))."""
    return fmt_share(share)


UNKNOWN = "unknown"
"""What a family nobody profiled could save, and its headroom."""


def headroom_text(item: RankedItem) -> str:
    if item.kind != "kernel":
        return "all" if item.headroom else NOT_AVAILABLE
    if not item.profiled:
        # a family nobody profiled: unknown, or an estimate from the operators' shapes
        return UNKNOWN if item.headroom is None else f"~{100 * item.headroom:.1f} % (estimate)"
    return NOT_AVAILABLE if item.headroom is None else f"{100 * item.headroom:.1f} %"


def saving_text(item: RankedItem) -> str:
    """``1.466 ms`` (measured headroom), ``≤ 44.14 ms`` (idle time: a bound), ``unknown``
    (a family nobody profiled), ``not applied (10.2× apart)`` (a kernel report whose duration
    is too far from the timeline's)."""
    if item.duration is not None and not item.explained:
        return f"not applied ({apart_text(item.duration.ratio)} apart)"
    if item.potential_saving_ns is None:
        return UNKNOWN
    text = fmt_ns(item.potential_saving_ns)
    return text if item.profiled else f"≤ {text}"


def item_notes(item: RankedItem) -> list[tuple[str, str]]:
    """(label, text) of the notes under a row's readings: why its estimate is weak (for a
    family nobody profiled: why its gain is unknown), and what to do next."""
    notes = []
    if item.duration is not None and item.duration.reason:
        notes.append(("not explained by the kernel report", item.duration.reason))
    if item.weak:
        weak = "weak estimate" if item.profiled or item.kind != "kernel" else "gain"
        notes.append((weak, item.weak))
    if item.remedy:
        notes.append(("next", item.remedy))
    return notes


def what_text(item: RankedItem) -> str:
    """Its bottleneck label and top flag, or for non-kernel time its cause."""
    if item.kind != "kernel":
        return item.family
    if not item.profiled:
        return "gain unknown · profile it"
    flag = lead_flag_words(item)
    return f"{item.bottleneck} · {flag}" if flag else str(item.bottleneck)


def bottleneck_text(item: RankedItem) -> str:
    """Its bottleneck label alone, for non-kernel time its cause, for a family nobody
    profiled what to do (its gain is unknown: the saving column says so)."""
    if item.kind != "kernel":
        return item.family
    return str(item.bottleneck) if item.profiled else "profile it"


def flag_text(item: RankedItem) -> str:
    """Its top flag, the one whose remedy the details give ("" where there is none)."""
    return (lead_flag_words(item) or "") if item.kind == "kernel" else ""


def lead_flag_words(item: RankedItem) -> str | None:
    """``barrier-stalls (warning)``: the flag whose remedy is the row's next step; None
    where every flag is guarded or none was raised."""
    return flag_words(item.lead_flag) if item.lead_flag is not None else None


def top_flags_words(item: RankedItem) -> list[str]:
    """The row's first flags in the verdict's order (``low-occupancy (info, not a problem
    here)`` where a guard rail lowered one)."""
    return [flag_words(f) for f in item.top_flags]


def top_flag_line(top: RunTopFlag) -> str:
    """``barrier-stalls (warning) — largest NCU estimated speedup (…) among the warning
    flags; severity weighed by …``: the top flag, the rule that chose it and the weighing."""
    return f"{top.flag.id} ({top.flag.severity}) — {top.why}; {top.weighed_by}"


def kind_text(item: RankedItem) -> str:
    if item.kind != "kernel":
        if item.one_time:
            return "one-time"
        return {"copies": "copies", "unified-memory": "migrations"}.get(item.family, "idle")
    return "kernel" if item.profiled else "not profiled"


def launches_text(ncu_ids: Sequence[tuple[int, int]]) -> str:
    """``report 1 kernels 0–996 step 4 (250)``: the profiled launches of an item, by report
    (a list of every launch would run to thousands of words at 1,000 launches)."""
    by_report: dict[int, list[int]] = {}
    for report, kernel in ncu_ids:
        by_report.setdefault(report, []).append(kernel)
    return "; ".join(
        f"report {report + 1} kernel {ids[0]}" if len(ids) == 1
        else f"report {report + 1} kernels {ids_text(ids)} ({len(ids):,})"
        for report, ids in sorted(by_report.items())
    )
