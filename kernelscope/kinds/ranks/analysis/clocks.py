"""The ranks' clocks after the collectives are matched, and whether the captures line up.

``numbering.align_clocks`` puts the ranks on a first common clock (session or base times);
``matching.match_collectives`` then estimates from the collectives each rank's offset and
applies the consistent ones. This module says which ranks are known to share a clock, folds
the estimates into the alignment (its offsets and its sentence), and judges whether the
ranks' captures line up (every rank recorded the same collectives and, for PyTorch traces,
the same profiler steps): a straggler is named only when they do.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from kernelscope.core.durations import fmt_duration
from kernelscope.core.errors import safe_text
from kernelscope.core.findings import Evidence, Finding
from kernelscope.core.severity import Severity
from kernelscope.kinds.ranks.analysis.matching import Matching, RankClock, capture_counts
from kernelscope.kinds.ranks.analysis.model import ClockAlignment, RankSummary

STEP = "collectives"
EVERY_RANK = "collectives every rank made"
MOST = "most collectives of a rank"


def shared_clock(ranks: dict[int, RankSummary], clock: ClockAlignment) -> bool | None:
    """True when the ranks share a clock (one trace, or one named host), False when the
    traces name several hosts, None when some name none."""
    if clock.method == "one session":
        return True
    hosts = {s.host for s in ranks.values()}
    if None in hosts:
        return None
    return len(hosts) == 1


def _sentence(clocks: dict[int, RankClock]) -> str:
    reference = next((c.rank for c in clocks.values() if c.how == "reference"), None)
    shifted = [c for c in clocks.values() if c.how == "shifted"]
    odd = [c for c in clocks.values() if c.how in ("inconsistent", "no pairs")]
    agree = [c for c in clocks.values() if c.residual_ns is not None and c.how in (
        "shared clock", "clocks agree")]
    parts = []
    if shifted:
        parts.append("shifted from the collectives' ends: " + ", ".join(
            f"rank {c.rank} by {fmt_duration(-c.shift_ns)} (residual "
            f"{fmt_duration(c.residual_ns or 0)} over {c.pairs} collectives)" for c in shifted))
    if odd:
        parts.append("left as recorded, the collectives giving no consistent offset: " + ", ".join(
            f"rank {c.rank}" + (f" ({fmt_duration(c.estimate_ns)}, residual "
                                f"{fmt_duration(c.residual_ns or 0)})"
                                if c.estimate_ns is not None else "") for c in odd))
    if agree:
        worst = max(agree, key=lambda c: abs(c.estimate_ns or 0))
        whose = "the other ranks'" if shifted or odd else "the"
        parts.append(f"{whose} matched collectives end within a median "
                     f"{fmt_duration(abs(worst.estimate_ns or 0))} of rank {reference}'s "
                     f"(farthest: rank {worst.rank}), so their clocks are left as they are")
    return ("Clocks: " + "; ".join(parts) + ".") if parts else ""


def with_matched_clocks(clock: ClockAlignment, matching: Matching) -> ClockAlignment:
    """``clock`` with the shifts the collectives gave added to its offsets, its sentence
    saying how each rank's clock was treated, and unsafe where a rank's clock could not be
    checked against the others'."""
    clocks = matching.clocks
    if not clocks:
        return clock
    offsets = {r: v - (clocks[r].shift_ns if r in clocks else 0)
               for r, v in clock.offsets_ns.items()}
    odd = any(c.how in ("inconsistent", "no pairs") for c in clocks.values())
    checked = all(c.how != "no pairs" for c in clocks.values())
    sentence = _sentence(clocks)
    safe = (clock.safe or checked) and not odd
    return replace(clock, offsets_ns=offsets, safe=safe, ranks=dict(clocks),
                   note=f"{clock.note} {sentence}".strip())


def captures_line_up(matching: Matching, steps: Finding | None) -> bool:
    """Whether the ranks recorded the same collectives (each rank's every collective call
    paired on every rank) and no ``different_steps`` note says their steps differ."""
    every, counts = capture_counts(matching)
    return steps is None and every > 0 and all(n == every for n in counts.values())


def captures_differ(matching: Matching, steps: Finding | None) -> Finding:
    """The verdict when the captures do not line up: no straggler is named."""
    every, counts = capture_counts(matching)
    return Finding("captures-differ", Severity.INFO, "The ranks' captures do not line up", (
        Evidence(STEP, EVERY_RANK, every),
        Evidence(STEP, MOST, max(counts.values(), default=0)),
        Evidence(STEP, "steps", 0 if steps is None else 1,
                 note="" if steps is None else steps.evidence[0].note)))


def different_steps(ranks: dict[int, RankSummary]) -> Finding | None:
    """A note when the ranks captured different steps (``ProfilerStep#N`` or NVTX step
    ranges, every rank's from the same source): their captures start or stop at different
    steps. None when they agree, or when the steps come from the kernel pattern."""
    sources = {s.step_source for s in ranks.values()}
    if len(ranks) < 2 or len(sources) != 1 or sources & {None, "kernel pattern"}:
        return None
    numbered = {r: s.steps["step"].to_list() for r, s in ranks.items()}
    if len({tuple(v) for v in numbered.values()}) == 1:
        return None
    spans = "; ".join(f"rank {r}: {min(v)}-{max(v)}" if v else f"rank {r}: none"
                      for r, v in numbered.items())
    return Finding("different-steps", Severity.INFO, "The ranks captured different steps",
                   (Evidence(STEP, "steps", len(numbered), note=spans),))


def left_out(paths: list[Path]) -> Finding:
    """A note naming the reports in the run's folder that are not its traces."""
    names = ", ".join(safe_text(p.name) for p in paths)
    return Finding("left-out", Severity.INFO, "Reports left out of the run",
                   (Evidence(STEP, "reports left out", len(paths), note=names),))


__all__ = ["captures_differ", "captures_line_up", "different_steps", "left_out",
           "shared_clock",
           "with_matched_clocks"]
