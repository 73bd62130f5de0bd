"""The shared vocabulary: one way to write a duration per convention, one way to write a share,
one severity scale with one style table, and thresholds that each say why."""

from __future__ import annotations

import ast
import inspect
import math

import pytest

from kernelscope.core.durations import Convention, fmt_duration, fmt_ns, fmt_seconds
from kernelscope.core.severity import (
    Severity,
    most_severe_first,
    severity_icon,
    severity_rank,
)
from kernelscope.core.shares import fmt_pct, fmt_percent, fmt_share
from kernelscope.core.units import NOT_AVAILABLE, fmt_bytes, fmt_int
from kernelscope.kinds.join.analysis.thresholds import JoinThresholds
from kernelscope.kinds.ranks.analysis.thresholds import RanksThresholds
from kernelscope.render.severity import badge_style, text_style
from kernelscope.timeline.analysis.thresholds import TimelineThresholds


@pytest.mark.parametrize(
    ("ns", "ncu", "nsys"),
    [
        (800, "800 ns", "800 ns"),
        (1_700, "1.70 us", "1.700 us"),
        (20_000, "20 us", "20.00 us"),
        (327_710, "327.71 us", "327.7 us"),
        (1_180_000, "1.18 ms", "1.180 ms"),
        (122_400_000, "122.40 ms", "122.4 ms"),
        (1_505_000_000, "1.50 s", "1.505 s"),
    ],
)
def test_each_convention_writes_micro_as_us(ns: int, ncu: str, nsys: str) -> None:
    assert fmt_duration(ns) == Convention.NCU.duration(ns) == ncu
    assert fmt_ns(ns) == Convention.NSYS.duration(ns) == nsys
    assert "µ" not in ncu + nsys


def test_compact_durations_and_instants() -> None:
    assert fmt_ns(20_000, compact=True) == "20 us"
    assert fmt_ns(100_000, compact=True) == "100 us"
    assert fmt_seconds(10_011_600_000) == "10.0116"


def test_unknown_is_spelled_one_way() -> None:
    for text in (fmt_duration(None), fmt_ns(None), fmt_ns(math.nan), fmt_share(None),
                 fmt_percent(None), fmt_pct(math.nan), fmt_int(None), fmt_bytes(None)):
        assert text == NOT_AVAILABLE == "n/a"


def test_shares_have_one_spelling() -> None:
    assert fmt_share(0.611) == "61.1 %"
    assert fmt_share(0.0004, 2) == "0.04 %"
    assert fmt_percent(61.1) == "61.1 %"
    assert fmt_percent(98.31, 0) == "98 %"
    assert fmt_pct(88.0712) == "88.07"  # a cell under a header that says %


def test_severity_is_one_ordered_scale() -> None:
    assert [s.value for s in Severity] == ["info", "warning", "critical"]
    assert Severity.CRITICAL == "critical" and f"{Severity.WARNING}" == "warning"
    assert [severity_rank(s) for s in ("info", "warning", "critical", "bogus")] == [0, 1, 2, -1]
    assert Severity.CRITICAL.rank == 2
    assert [severity_icon(s) for s in ("critical", "warning", "info", "bogus")] == [
        "✖", "⚠", "ℹ", "·"]
    items = ["info", "bogus", "critical", "warning", "critical"]
    assert most_severe_first(items, str) == ["critical", "critical", "warning", "info", "bogus"]


def test_one_style_table_for_badges_and_text() -> None:
    assert badge_style("critical") == "bold white on red"
    assert badge_style(Severity.WARNING) == "bold black on yellow"
    assert badge_style("info") == "bold white on blue"
    assert badge_style("bogus", "bold") == "bold"
    assert [text_style(s) for s in ("critical", "warning", "info", None)] == [
        "bold red", "yellow", "cyan", ""]


def _fields_without_reason(cls: type) -> list[str]:
    """The dataclass fields of ``cls`` not followed by a docstring (their reason)."""
    body = ast.parse(inspect.getsource(cls)).body[0].body  # type: ignore[attr-defined]
    missing = []
    for node, after in zip(body, [*body[1:], None], strict=True):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            documented = (isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                          and isinstance(after.value.value, str))
            if not documented:
                missing.append(node.target.id)
    return missing


@pytest.mark.parametrize("cls", [TimelineThresholds, JoinThresholds, RanksThresholds])
def test_every_threshold_says_why(cls: type) -> None:
    assert _fields_without_reason(cls) == []


def test_thresholds_keep_their_values() -> None:
    timeline, join, ranks = TimelineThresholds(), JoinThresholds(), RanksThresholds()
    assert (timeline.large_gap_ns, timeline.tiny_kernel_ns, timeline.tiny_min_kernels) == (
        100_000, 20_000, 20)
    assert (join.many_per_launch, join.varying_cv, join.warmup_factor) == (10, 0.25, 2.0)
    assert (ranks.slow_ratio, ranks.min_late_ns, ranks.match_share) == (1.10, 1_000, 0.8)
