"""Findings (``nsys analyze`` rules and kernelscope's own) as short Rich text blocks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from rich.text import Text

from kernelscope.core.durations import fmt_ns
from kernelscope.core.findings import Finding
from kernelscope.core.kernel_names import compact_name, fit_name
from kernelscope.core.severity import MOST_SEVERE_FIRST, most_severe_first
from kernelscope.core.shares import fmt_percent
from kernelscope.core.units import fmt_bytes
from kernelscope.core.words import api_name, plural
from kernelscope.render.severity import badge_style

ShortName = Callable[[str], str]
"""A kernel's short name from its demangled one (a report's ``ShortNames``)."""

# Item fields that say nothing a user needs in a one-line summary.
_SKIPPED = {"row", "pid", "tid", "context_id", "green_context_id", "end_ns"}


def severity_badge(severity: str) -> Text:
    return Text(f" {severity.upper()} ", style=badge_style(severity, "bold"))


def severity_counts(found: Iterable[Finding]) -> str:
    """``1 critical · 3 warning · 1 info`` (severities with no finding left out)."""
    counts = Counter(f.severity for f in found)
    return " · ".join(f"{counts[s]} {s}" for s in MOST_SEVERE_FIRST if counts[s]) or "none"


def item_text(item: dict[str, object], origin_ns: int, short: ShortName = compact_name) -> str:
    """One offending row in a line: ``at 725.3 ms · 32.27 ms · Pageable → Device · …``;
    kernels named by ``short`` (the trace's ``TimelineData.short_name``)."""
    parts: list[str] = []
    start = item.get("start_ns")
    if isinstance(start, int):
        parts.append(f"at {fmt_ns(start - origin_ns)}")
    duration = item.get("duration_ns")
    end = item.get("end_ns")
    if isinstance(duration, int):
        parts.append(f"lasts {fmt_ns(duration)}")
    elif isinstance(start, int) and isinstance(end, int):
        parts.append(f"lasts {fmt_ns(end - start)}")
    src, dst = item.get("src_kind"), item.get("dst_kind")
    if src is not None or dst is not None:
        parts.append(f"{src or '?'} → {dst or '?'}")
    for key, value in item.items():
        if key in _SKIPPED or key in ("start_ns", "duration_ns", "src_kind", "dst_kind"):
            continue
        if value is None:
            continue
        if key == "bytes" and isinstance(value, (int, float)):
            parts.append(fmt_bytes(value))
        elif key == "api_name":
            parts.append(api_name(str(value)))
        elif key == "device_id":
            parts.append(f"GPU {value}")
        elif key == "stream_id":
            parts.append(f"stream {value}")
        elif key == "kernels":
            parts.append(plural(int(value), "kernel"))  # type: ignore[call-overload]
        elif key.endswith("_pct") and isinstance(value, (int, float)):
            label = "GPU busy" if key == "busy_pct" else "in use"
            parts.append(f"{label} {fmt_percent(value)}")
        elif key.endswith("_ns") and isinstance(value, (int, float)):
            parts.append(f"{key.removesuffix('_ns').replace('_', ' ')} {fmt_ns(value)}")
        elif key == "top_kernel":
            parts.append(fit_name(short(str(value)), 40))
        else:
            parts.append(f"{key.replace('_', ' ')} {value}")
    return " · ".join(parts)


def finding_block(
    finding: Finding, origin_ns: int, items: int = 2, short: ShortName = compact_name
) -> Text:
    """The badge and title, the first ``items`` offending rows, then the advice."""
    text = Text(no_wrap=False)
    text.append_text(severity_badge(finding.severity))
    text.append(" ")
    text.append(finding.title, style="bold")
    for item in finding.rows[:items]:
        text.append("\n  • ")
        text.append(item_text(item, origin_ns, short))
    more = len(finding.rows) - items
    if more > 0:
        text.append(f"\n  … and {more:,} more", style="dim")
    text.append("\n  ")
    text.append(finding.advice, style="italic cyan")
    return text


def findings_text(
    found: Sequence[Finding], origin_ns: int, items: int = 2, short: ShortName = compact_name
) -> Text:
    """Every finding, most severe first, separated by blank lines; kernels named by
    ``short``."""
    if not found:
        return Text("No problems found by the nsys analyze rules or kernelscope's checks.",
                    style="green")
    ordered = most_severe_first(found, lambda f: f.severity)
    return Text("\n\n").join(finding_block(f, origin_ns, items, short) for f in ordered)
