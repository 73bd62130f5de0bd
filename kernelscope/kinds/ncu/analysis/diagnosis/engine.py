"""``diagnose``: the whole method applied to one kernel's metrics, rules and sections."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from kernelscope.core.kept import handed
from kernelscope.core.memo import Memo
from kernelscope.core.severity import RANK_OF, Severity
from kernelscope.kinds.ncu.analysis.diagnosis.catalog import CATALOG, FlagSpec
from kernelscope.kinds.ncu.analysis.diagnosis.classify import classify
from kernelscope.kinds.ncu.analysis.diagnosis.evidence import Evidence, ev
from kernelscope.kinds.ncu.analysis.diagnosis.facts import Facts, gather
from kernelscope.kinds.ncu.analysis.diagnosis.flags import (
    STALLS_MISSING,
    Found,
    Missing,
    checks,
    stalls_unread,
)
from kernelscope.kinds.ncu.analysis.diagnosis.guards import guard_rails
from kernelscope.kinds.ncu.analysis.diagnosis.notes import notes
from kernelscope.kinds.ncu.analysis.diagnosis.outcome import Check
from kernelscope.kinds.ncu.analysis.diagnosis.result import (
    UNDETERMINED,
    Bottleneck,
    Diagnosis,
    Flag,
    GuardRail,
)
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import DEFAULT_THRESHOLDS, Thresholds
from kernelscope.kinds.ncu.analysis.diagnosis.values import Values
from kernelscope.kinds.ncu.analysis.diagnosis.weigh import weighed_parts
from kernelscope.kinds.ncu.analysis.roofline.compute import compute_roofline
from kernelscope.kinds.ncu.analysis.roofline.model import Roofline
from kernelscope.kinds.ncu.model.measured import unmeasured_reason
from kernelscope.kinds.ncu.model.metrics import Metric
from kernelscope.kinds.ncu.model.model import RuleResult, SourceHotspots
from kernelscope.kinds.ncu.model.rule_results import RuleHeadline, RuleResults


def ncu_speedup(spec: FlagSpec, rules: Sequence[RuleResult]) -> tuple[float | None, str | None]:
    """The largest estimated speedup among NCU rule messages matching the flag (of a list
    summary's rules, only the messages of the rules the flag names are read)."""
    best: tuple[float | None, str | None] = (None, None)
    if not spec.rules:
        return best
    read: Iterable[RuleResult | RuleHeadline] = rules
    if isinstance(rules, RuleResults):  # the messages' headlines, where they are not made
        read = rules.headlines_of(spec.rule_ids)
    words_of = _matches_by_rule(spec)
    for rule in read:
        words = words_of.get(rule.rule)
        if words is None or not _title_holds(rule, words):
            continue
        pct = rule.speedup_pct
        if pct is not None and (best[0] is None or pct > best[0]):
            best = (pct, f"{rule.rule}: {rule.title}" if rule.title else rule.rule)
        elif best[1] is None:
            best = (None, f"{rule.rule}: {rule.title}" if rule.title else rule.rule)
    return best


def _title_holds(rule: RuleResult | RuleHeadline, words: tuple[str, ...]) -> bool:
    """Whether one of a flag's matches of the rule takes this message: one for any title
    (""), or one whose lowered words its title and name hold."""
    if "" in words:
        return True
    title = f"{rule.title} {rule.name}".lower()
    return any(contains in title for contains in words)


def _matches_by_rule(spec: FlagSpec) -> dict[str, tuple[str, ...]]:
    """The lowered words each of the flag's rule matches looks for in a message's title
    ("" for any title), by the NCU rule each names (a rule's matches found without
    comparing it with every match), made once per registration."""
    kept = _MATCHES.get(id(spec))
    if kept is None:
        found: dict[str, tuple[str, ...]] = {}
        for match in spec.rules:
            found[match.rule] = (*found.get(match.rule, ()), match.title_contains.lower())
        kept = _MATCHES.keep(id(spec), (spec, found))
    return kept[1]


_MATCHES: Memo[int, tuple[FlagSpec, dict[str, tuple[str, ...]]]] = Memo(256)
"""``_matches_by_rule`` by the registration's identity, held with it (its id not reused)."""


_SEVERITIES = {str(s): s for s in Severity}
"""Each severity by its name, as the checks spell it."""


def diagnose(
    metrics: Mapping[str, Metric],
    rules: Sequence[RuleResult] = (),
    sections: Collection[str] = (),
    *,
    time_share: float | None = None,
    family_share: float | None = None,
    family_launches: int = 1,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    unmeasured: str | None = None,
    source: SourceHotspots | None = None,
    measured: bool = False,
    noted: bool = True,
) -> Diagnosis:
    """Diagnose one kernel from its metrics (ncu names, NCU base units), NCU's rule results and
    the identifiers of the sections the report collected. ``time_share`` is the kernel's share
    of the profiled GPU time (0-1) when the caller knows it, ``family_share`` that of its
    family of ``family_launches`` launches (``kinds.ncu.analysis.families``), which weigh it
    as ``with_time_share`` does (its flags weighed as they are made); ``source`` its
    hot lines (when source counters were collected). ``unmeasured`` is the model's sentence for
    a kernel without any measurement (see ``kinds.ncu.model.measured``; found from the
    metrics when not given): such a kernel is ``undetermined``, never classified.
    ``measured``: the model found these metrics measured (its ``unmeasured`` of them is
    None), so they are not read again to find out. ``noted``: False leaves out the notes of
    what could not be checked (for a caller that reads the label and flags alone and keeps
    nothing: a CSV row). Never raises on partial input."""
    reason = _unmeasured(metrics, unmeasured, measured)
    if reason is not None:
        return with_time_share(undetermined(reason), time_share, family_share, family_launches)
    roofline, facts, guards, bottleneck = _classified(metrics, sections, thresholds, source)
    zero = facts.duration_ns is not None and facts.duration_ns <= 0
    failed = facts.profiling_failed
    flags, skipped = ([], {}) if zero or failed else _checked_flags(facts, thresholds, guards,
                                                                     rules)
    said = notes(sections, skipped, metrics, roofline) if noted else ()
    if facts.unreliable:
        said = ("Ignored as measurement noise (above 100% of peak): "
                + ", ".join(facts.unreliable) + ".", *said)
    if zero:
        said = ("The kernel has zero duration: rates are undefined, no flag is checked.", *said)
    if failed:
        said = (bottleneck.summary,)
    if len(flags) > 1:
        flags.sort(key=_flag_order)
    rails = tuple(guards.values())
    fields: dict[str, Any] = {  # as Diagnosis(...) takes them, handed over whole
        "bottleneck": bottleneck, "flags": flags, "guard_rails": rails, "notes": said,
        "roofline": roofline, "skipped": tuple(skipped),
    }
    step0 = _step_zero(time_share, family_share, family_launches)
    if step0 is None:
        fields["flags"] = tuple([handed(Flag, flag) for flag in flags])
    else:  # the flags weighed as they are made, not made and then remade weighed
        fields.update(weighed_parts(flags, bottleneck, rails, said, *step0))
    return handed(Diagnosis, fields)


def _flag_order(flag: dict[str, Any]) -> tuple[int, int]:
    """Where a flag (by its fields) sorts: by level, then the most severe first."""
    return flag["level"], -RANK_OF.get(flag["severity"], -1)


def _unmeasured(
    metrics: Mapping[str, Metric], unmeasured: str | None, measured: bool
) -> str | None:
    """Why the kernel has no measurement (the model's sentence), None when it has one:
    ``unmeasured`` when given, None when the caller knows it ``measured``, else found from
    the metrics."""
    if unmeasured:
        return unmeasured
    return None if measured else unmeasured_reason(metrics)


def _classified(
    metrics: Mapping[str, Metric],
    sections: Collection[str],
    thresholds: Thresholds,
    source: SourceHotspots | None = None,
) -> tuple[Roofline | None, Facts, dict[str, GuardRail], Bottleneck]:
    """The roofline, facts and guard rails of a measured kernel, and its bottleneck."""
    roofline = compute_roofline(metrics)
    facts = gather(Values(metrics, sections), roofline, thresholds, source)
    guards = guard_rails(facts, thresholds)
    return roofline, facts, guards, classify(facts, thresholds, guards)


def label_and_roofline(
    metrics: Mapping[str, Metric],
    sections: Collection[str] = (),
    *,
    unmeasured: str | None = None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    measured: bool = False,
) -> tuple[str, Roofline | None]:
    """The bottleneck label and the roofline :func:`diagnose` gives the kernel, without the
    flags, notes and time shares neither depends on (for what reads only these of a launch:
    ``summary``'s stream keeps the label, a document's families and chart read both)."""
    if _unmeasured(metrics, unmeasured, measured) is not None:
        return UNDETERMINED, None
    roofline, _, _, bottleneck = _classified(metrics, sections, thresholds)
    return bottleneck.label, roofline


Outline = tuple[str, tuple[str, ...], "Roofline | None"]
"""A diagnosis' bottleneck label, its flags' ids in its order, and its roofline."""


def outline_of(
    metrics: Mapping[str, Metric],
    sections: Collection[str] = (),
    *,
    unmeasured: str | None = None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    measured: bool = False,
) -> Outline:
    """The label, the flags' ids (in order) and the roofline :func:`diagnose` gives the
    kernel, without what none of them depends on (the flags' NCU estimates, the notes, the
    weighing by a time share: it changes a flag's severity, never its order): what a diff's
    JSON and CSV read of a launch."""
    if _unmeasured(metrics, unmeasured, measured) is not None:
        return UNDETERMINED, (), None
    roofline, facts, guards, bottleneck = _classified(metrics, sections, thresholds)
    if (facts.duration_ns is not None and facts.duration_ns <= 0) or facts.profiling_failed:
        return bottleneck.label, (), roofline
    flags = _checked_flags(facts, thresholds, guards, ())[0]
    if len(flags) > 1:
        flags.sort(key=_flag_order)
    return bottleneck.label, tuple([flag["id"] for flag in flags]), roofline


def roofline_of(
    metrics: Mapping[str, Metric], *, unmeasured: str | None = None, measured: bool = False
) -> Roofline | None:
    """The roofline :func:`diagnose` gives the kernel, without the classification (for what
    reads only that of a launch: a document's count of the launches without a roofline)."""
    if _unmeasured(metrics, unmeasured, measured) is not None:
        return None
    return compute_roofline(metrics)


@cache
def _check_order() -> tuple[tuple[str, Check, FlagSpec], ...]:
    """(flag id, check, registration) of every check, in the catalog's order."""
    return tuple((flag_id, check, CATALOG[flag_id]) for flag_id, check in checks().items())


def _checked_flags(
    facts: Facts, thresholds: Thresholds, guards: dict[str, GuardRail],
    rules: Sequence[RuleResult],
) -> tuple[list[dict[str, Any]], dict[str, tuple[str, ...]]]:
    """Every check's flag, by its fields (with NCU's own estimated speedup where a rule
    mirrors it), and the checks skipped for lack of sections (by flag id: the missing
    sections). Without stall shares every stall check is skipped unasked, with the sections
    it would have named (``_asked``)."""
    flags: list[dict[str, Any]] = []
    skipped: dict[str, tuple[str, ...]] = {}
    asked, stall_skips = _asked(stalls_unread(facts))
    for flag_id, check, spec in asked:
        outcome = check(facts, thresholds, guards)
        if outcome is None:  # most checks find nothing: tested first
            continue
        if isinstance(outcome, Missing):
            skipped[flag_id] = outcome.sections
        elif isinstance(outcome, Found):
            speedup, rule = ncu_speedup(spec, rules)
            severity = _SEVERITIES.get(outcome.severity) or Severity(outcome.severity)
            flags.append({  # as Flag(...) takes them, made once weighed (``diagnose``)
                "id": flag_id, "severity": severity, "title": spec.title,
                "evidence": outcome.evidence, "advice": outcome.remedy or spec.remedy,
                "subject": "", "detail": outcome.detail, "rule": rule, "level": spec.level,
                "speedup": speedup, "guard": outcome.guard, "guard_rail": "",
                "found_severity": None, "rows": (), "columns": {},
            })
    if stall_skips is not None:
        skipped.update(stall_skips)
    return flags, skipped


@cache
def _asked(no_stalls: bool) -> tuple[tuple[tuple[str, Check, FlagSpec], ...],
                                     dict[str, tuple[str, ...]] | None]:
    """The checks to ask, in the catalog's order, and the skips to add after them. With the
    stall shares read, every check and none. Without: the stall checks, where they close the
    order, left out and skipped all at once after the others (``_stall_tail``: the order
    kept); else each asked as one that answers ``STALLS_MISSING`` unread."""
    order, stall_skips = _check_order(), _stall_tail()
    if not no_stalls:
        return order, None
    if stall_skips is not None:
        return order[: len(order) - len(stall_skips)], stall_skips
    return tuple((flag_id, _stalls_missing if spec.stall else check, spec)
                 for flag_id, check, spec in order), None


def _stalls_missing(f: Facts, t: Thresholds, guards: dict[str, GuardRail]) -> Missing:
    """What every stall check answers without stall shares (``flags.stalls_unread``)."""
    return STALLS_MISSING


@cache
def _stall_tail() -> dict[str, tuple[str, ...]] | None:
    """What the stall checks answer, skipped all at once, where they close the catalog's
    order (then skipping them after the other checks keeps that order); None otherwise."""
    order = _check_order()
    stalls = [flag_id for flag_id, _, spec in order if spec.stall]
    if [flag_id for flag_id, _, _ in order[len(order) - len(stalls):]] != stalls:
        return None
    return dict.fromkeys(stalls, STALLS_MISSING.sections)


def undetermined(reason: str) -> Diagnosis:
    """The diagnosis of a kernel that has no measurement: label ``undetermined``, ``reason``
    as its one-sentence summary and note, no flags."""
    return Diagnosis(bottleneck=Bottleneck(UNDETERMINED, reason), notes=(reason,))


def with_time_share(
    diagnosis: Diagnosis,
    time_share: float | None,
    family_share: float | None = None,
    family_launches: int = 1,
) -> Diagnosis:
    """``diagnosis`` with the kernel's share of the profiled GPU time (0-1) added as the
    first evidence (step 0 of the method) and, when it is under 1 %, as the first note; the
    flags' severities weighed by it (``weigh.py``: nothing above info under 1 %, an info flag
    whose NCU estimate saves 5 % of the report's time raised to warning). A launch of a
    family of ``family_launches`` identical launches is weighed by the family's share,
    ``family_share``: 150 launches of 0.6 % each are 90 % of the time. Lets worker processes
    diagnose kernels before the report's total time is known."""
    step0 = _step_zero(time_share, family_share, family_launches)
    if step0 is None:
        return diagnosis
    flags = [flag.__dict__.copy() for flag in diagnosis.flags]
    fields = diagnosis.__dict__.copy()  # its fields, those step 0 changes replaced
    fields.update(weighed_parts(flags, diagnosis.bottleneck, diagnosis.guard_rails,
                                diagnosis.notes, *step0))
    return handed(Diagnosis, fields)


def _step_zero(
    time_share: float | None, family_share: float | None, family_launches: int
) -> tuple[Evidence, float, str] | None:
    """Step 0 of ``with_time_share``: the share's evidence, the weight (the family's share, for
    a family of launches) and the words that open its notes; None without a share."""
    if family_share is not None and family_launches > 1:
        key = (time_share, family_share, family_launches)
        keyed = _keyed(*key)
        kept = _FAMILY_STEPS.get(key) if keyed else None
        if kept is None:
            own = f"this launch {time_share:.2%}; " if time_share is not None else ""
            metric, what = _family_words(family_launches)
            made = ev("time", metric, family_share, note=f"{own}weigh the effort")
            kept = (made, family_share, what)
            if keyed:
                _FAMILY_STEPS.keep(key, kept)
        return kept
    if time_share is None:
        return None
    share = ev("time", "share of profiled GPU time", time_share, note="weigh the effort")
    return share, time_share, "This kernel is"


_FAMILY_STEPS: Memo[tuple[float | None, float, int], tuple[Evidence, float, str]] = Memo(4096)
"""A family's launch's step 0 by its share, the family's and the family's launches: a
report's launches last a few dozen distinct times, so their shares repeat (the evidence is
immutable, so launches share it)."""


def _keyed(time_share: float | None, family_share: float, launches: int) -> bool:
    """Whether step 0 of these is kept: positive floats (equal ones print alike; a zero's
    sign and a NaN would not) or no own share, and an int count."""
    return (type(family_share) is float and family_share > 0 and type(launches) is int
            and (time_share is None or (type(time_share) is float and time_share > 0)))


def _family_words(launches: int) -> tuple[str, str]:
    """The family's share evidence's metric and the words that open its notes, kept by the
    number of launches (an int formats alike wherever it is equal): every launch of a
    family of hundreds says them."""
    words = _FAMILY_WORDS.get(launches) if type(launches) is int else None
    if words is None:
        words = (
            f"share of profiled GPU time of its family of {launches:,} launches",
            f"This kernel's family of {launches:,} launches is",
        )
        if type(launches) is int:
            _FAMILY_WORDS.keep(launches, words)
    return words


_FAMILY_WORDS: Memo[int, tuple[str, str]] = Memo(256)
