"""The words and numbers of a join's ranking, shared by its exports and its screen."""

from __future__ import annotations

from kernelscope.parsers.join.model import RankedItem
from kernelscope.render.format import NOT_AVAILABLE, fmt_ns, short_name


def item_name(item: RankedItem, width: int = 48) -> str:
    """The kernel's short name, or what the non-kernel time is."""
    if item.kind == "kernel":
        return short_name(item.name or item.family, width)
    return item.title


def share_text(share: float | None) -> str:
    """A share (0-1) as ``61.1 %`` (one decimal, as ``nsys stats`` prints Time (%))."""
    return NOT_AVAILABLE if share is None else f"{100 * share:.1f} %"


def headroom_text(item: RankedItem) -> str:
    if item.kind != "kernel":
        return "all" if item.headroom else NOT_AVAILABLE
    return NOT_AVAILABLE if item.headroom is None else f"{100 * item.headroom:.1f} %"


def saving_text(item: RankedItem) -> str:
    """``1.466 ms``, ``≤ 396.4 us`` for a bound."""
    text = fmt_ns(item.potential_saving_ns)
    return text if item.profiled else f"≤ {text}"


def what_text(item: RankedItem) -> str:
    """Its bottleneck label and top flag, or for non-kernel time its cause."""
    if item.kind != "kernel":
        return item.family
    if not item.profiled:
        return "not profiled"
    flag = item.top_flags[0] if item.top_flags else ""
    return f"{item.bottleneck} · {flag}" if flag else str(item.bottleneck)


def kind_text(item: RankedItem) -> str:
    if item.kind != "kernel":
        return "one-time" if item.one_time else "idle" if item.family != "copies" else "copies"
    return "kernel" if item.profiled else "kernel ?"
