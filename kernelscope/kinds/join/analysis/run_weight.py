"""A profiled family's flags weighed by its share of the run, not of its kernel report.

A kernel report weighs each flag's severity by the kernel's share of the report's time
(``ncu.analysis.diagnosis.weigh``). In a join the timeline says what the family costs the
run: its share of the timeline's summed kernel time (``TimelineFamily.time_share``). The
longest profiled launch's flags are weighed again by that share, from the severity each check
found, with the same rule: nothing above info on a family under ``minor_time_share`` of the
run (the guard rail ``minor-time-share``), and an info flag whose NCU estimate is worth
``gain_warning_share`` of the run (the estimate times the share) raised to warning. The top
flag is then the one with the largest expected gain (``verdict.top_choice`` on the weighed
flags), and :class:`RunTopFlag` carries the rule that chose it and the weighing, which the
Markdown, the JSON and the screen word (``join.render.join_text.top_flag_line``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from kernelscope.core.shares import fmt_share
from kernelscope.kinds.ncu.analysis.diagnosis.evidence import ev
from kernelscope.kinds.ncu.analysis.diagnosis.result import Diagnosis, Flag, GuardRail
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import DEFAULT_THRESHOLDS
from kernelscope.kinds.ncu.analysis.diagnosis.verdict import top_choice
from kernelscope.kinds.ncu.analysis.diagnosis.weigh import MINOR_TIME_SHARE, weighed

RUN_TIME = "the run's kernel time"
"""What a family's share is of: the timeline's summed kernel time."""


@dataclass(frozen=True)
class RunTopFlag:
    """The top flag of a family weighed by its share of the run: which rule chose it
    (``chosen_by``, ``why``: ``verdict.top_choice``'s) and how its severity was weighed."""

    flag: Flag
    chosen_by: str
    why: str
    run_share: float
    weighed_by: str

    @property
    def expected_gain(self) -> float | None:
        """NCU's estimated speedup of the flag as a share of the run's kernel time."""
        if self.flag.speedup is None:
            return None
        return self.flag.speedup / 100.0 * self.run_share

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.flag.id, "severity": str(self.flag.severity),
                "found_severity": str(self.flag.found_severity or self.flag.severity),
                "chosen_by": self.chosen_by, "why": self.why, "run_share": self.run_share,
                "expected_gain": self.expected_gain, "weighed_by": self.weighed_by}


def weighing_rule(run_share: float) -> str:
    """The weighing in one sentence, with the family's share of the run."""
    minor = DEFAULT_THRESHOLDS.minor_time_share
    share = f"severity weighed by the family's {fmt_share(run_share)} of {RUN_TIME}"
    if run_share < minor:
        return f"{share}: under {fmt_share(minor, 0)}, so no flag above info"
    return (f"{share}, not its kernel report's share (a family under {fmt_share(minor, 0)} "
            "would get no flag above info)")


def _minor_guard(run_share: float, launches: int) -> GuardRail:
    what = "This kernel's family is" if launches <= 1 else (
        f"This kernel's family of {launches:,} launches is")
    return GuardRail(
        MINOR_TIME_SHARE,
        f"{what} {run_share:.2%} of {RUN_TIME}: fixing it cannot save more than that, so no "
        "flag is raised above info.",
        (ev("time", f"share of {RUN_TIME}", run_share, "<",
            DEFAULT_THRESHOLDS.minor_time_share),),
    )


def run_weighed(diagnosis: Diagnosis, run_share: float, launches: int) -> Diagnosis:
    """``diagnosis`` with its flags weighed by the family's ``run_share`` (0-1) of the run's
    kernel time instead of the kernel report's share; ``launches``: the family's instances
    on the timeline."""
    minor = run_share < DEFAULT_THRESHOLDS.minor_time_share
    guard = _minor_guard(run_share, launches) if minor else None
    # a flag the report's own minor-share rail guarded is weighed afresh by the run's share
    unweighed = tuple(replace(f, guard="", guard_rail="") if f.guard_rail == MINOR_TIME_SHARE
                      else f for f in diagnosis.flags)
    flags = tuple(weighed(f, run_share, guard) for f in unweighed)
    rails = tuple(g for g in diagnosis.guard_rails if g.id != MINOR_TIME_SHARE)
    if guard is not None and flags:
        rails = (*rails, guard)
    return replace(diagnosis, flags=flags, guard_rails=rails)


def run_top_flag(diagnosis: Diagnosis, run_share: float) -> RunTopFlag | None:
    """The top flag of ``diagnosis`` (already :func:`run_weighed`) and its rules; None when no
    flag was raised."""
    choice = top_choice(diagnosis)
    if choice is None:
        return None
    return RunTopFlag(choice.flag, choice.chosen_by, choice.why, run_share,
                      weighing_rule(run_share))
