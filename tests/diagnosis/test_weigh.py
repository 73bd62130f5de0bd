"""Severity by what a fix can save (issue 35): the flags weighed by the kernel's share of the
time, on real kernels of the samples."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from kernelscope.core.kept import evolved
from kernelscope.core.severity import Severity
from kernelscope.kinds.ncu.analysis.diagnosis import weigh, with_time_share
from kernelscope.kinds.ncu.analysis.diagnosis.catalog import CATALOG
from kernelscope.kinds.ncu.analysis.diagnosis.result import GuardRail, chosen_flag, top_flag_dict
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import DEFAULT_THRESHOLDS
from kernelscope.kinds.ncu.analysis.diagnosis.verdict import NCU_ESTIMATE, top_choice, top_flag
from tests.diagnosis.conftest import find, kernels_of


def test_nothing_above_info_under_one_percent_of_the_time() -> None:
    d = find("zoo", "small_grid_8_blocks").diagnosis
    assert d.has_flag("grid-too-small", min_severity="critical")
    weighed = with_time_share(d, 0.004)
    assert {f.severity for f in weighed.flags} == {"info"}
    assert all(f.guard for f in weighed.flags)
    assert weighed.flag("grid-too-small").found_severity == "critical"  # type: ignore[union-attr]
    rail = next(g for g in weighed.guard_rails if g.id == "minor-time-share")
    assert rail.text.startswith("This kernel is 0.40% of the profiled GPU time")
    # weighed again with another share: from the severity the check found
    again = with_time_share(weighed, 0.5)
    assert again.flag("grid-too-small").severity == "critical"  # type: ignore[union-attr]
    assert not any(g.id == "minor-time-share" for g in again.guard_rails)


def test_an_ncu_estimate_worth_five_percent_of_the_report_raises_an_info_flag() -> None:
    # 66 blocks on 132 SMs: grid-too-small is info by the grid's count, NCU estimates 50 %
    d = find("diag_pipe", "fma_pipe_half_grid").diagnosis
    flag = d.flag("grid-too-small")
    assert flag is not None and flag.severity == "info" and flag.speedup == 50.0
    assert with_time_share(d, 0.5).flag("grid-too-small").severity == "warning"  # type: ignore[union-attr]
    # 50 % of 8 % of the time is 4 % of the report: stays info
    assert with_time_share(d, 0.08).flag("grid-too-small").severity == "info"  # type: ignore[union-attr]
    # occupancy flags are never raised by NCU's occupancy estimates
    low = with_time_share(d, 1.0).flag("low-occupancy")
    assert low is not None and low.severity == "info" and (low.speedup or 0) > 50


def test_the_top_flag_is_the_largest_ncu_estimate_among_the_most_severe() -> None:
    # the SGEMM's uncoalesced C stores (critical, NCU 55.6 %) lead
    d = find("diag_sgemm", "sgemm_fp32_regtile").diagnosis
    choice = top_choice(d)
    assert choice is not None and choice.flag.id == "uncoalesced-global-access"
    assert choice.chosen_by == NCU_ESTIMATE
    assert choice.why == "largest NCU estimated speedup (55.6%) among the critical flags"


def test_the_top_flag_alone_is_the_top_choices_flag_and_rule() -> None:
    """``chosen_flag`` (the flag without its rule's sentence, what the kernel list asks for)
    names the flag and the rule ``top_choice`` writes, for every kernel of samples that raise
    flags by each rule; none where no flag was raised."""
    rules = set()
    for stem in ("zoo", "many_launches", "torch_ops", "small_family"):
        for kernel in kernels_of(stem):
            choice, chosen = top_choice(kernel.diagnosis), chosen_flag(kernel.diagnosis)
            if choice is None:
                assert chosen is None and not kernel.diagnosis.flags
                continue
            assert chosen is not None and chosen[:2] == (choice.flag, choice.chosen_by)
            assert top_flag(kernel.diagnosis) is choice.flag
            rules.add(choice.chosen_by)
    assert len(rules) >= 3


def test_evolved_makes_what_dataclasses_replace_makes() -> None:
    """The weighing remakes flags, bottlenecks and diagnoses with ``evolved`` (their fields
    copied at once): equal to ``dataclasses.replace``'s object, field by field, on a real
    kernel's diagnosis, and an unknown field refused as ``replace`` refuses it."""
    d = find("zoo", "small_grid_8_blocks").diagnosis
    flag = d.flags[0]
    made = evolved(flag, severity=Severity.INFO, found_severity=flag.severity, guard="g")
    same = replace(flag, severity=Severity.INFO, found_severity=flag.severity, guard="g")
    assert made == same and made is not flag and vars(made) == vars(same)
    assert type(made) is type(flag) and flag.guard != "g"  # the original is untouched
    b = d.bottleneck
    assert evolved(b, evidence=()) == replace(b, evidence=())
    assert evolved(d, notes=("n",)) == replace(d, notes=("n",))
    with pytest.raises(TypeError, match="no field"):
        evolved(flag, severty=Severity.INFO)
    with pytest.raises(TypeError):
        replace(flag, severty=Severity.INFO)  # type: ignore[call-arg]


def _weight_changes(flag: dict[str, Any], weight: float, guard: GuardRail | None) -> dict[str, Any]:
    """The seeds' weighing written out plainly, the changes as a dict (what the in-place
    weighing is checked against)."""
    found = flag["found_severity"] or flag["severity"]
    if guard is not None:
        if flag["guard"]:
            return {"severity": Severity.INFO, "found_severity": found}
        return {"severity": Severity.INFO, "found_severity": found, "guard": guard.text,
                "guard_rail": guard.id}
    speedup = flag["speedup"]
    gain = None if speedup is None else speedup / 100.0 * weight
    if (found == "info" and not flag["guard"] and gain is not None
            and gain >= DEFAULT_THRESHOLDS.gain_warning_share
            and CATALOG[flag["id"]].step != "occupancy"):
        return {"severity": Severity.WARNING, "found_severity": found}
    return {"severity": found, "found_severity": found}


@pytest.mark.parametrize("weight", [0.004, 0.08, 0.5, 1.0])
def test_weighing_in_place_changes_what_the_seeds_say(weight: float) -> None:
    """``weigh_fields`` (what ``weighed`` and ``weighed_parts`` weigh a flag with) changes a
    flag's fields as the plain rule says, on every flag of the samples' kernels, with and
    without the minor-share guard rail, unweighed and weighed before; ``weighed`` makes the
    flag of those fields."""
    weighed = 0
    for kernel in kernels_of("zoo"):
        for flag in (*kernel.diagnosis.flags, *with_time_share(kernel.diagnosis, 0.3).flags):
            for guard in (None, weigh.minor_share_guard(weight, "This kernel is")):
                expected = {**vars(flag), **_weight_changes(vars(flag), weight, guard)}
                fields = dict(vars(flag))
                weigh.weigh_fields(fields, weight, guard, DEFAULT_THRESHOLDS)
                assert fields == expected and list(fields) == list(expected)
                made = weigh.weighed(flag, weight, guard)
                assert vars(made) == expected and type(made) is type(flag)
                weighed += fields["severity"] != flag.severity
    assert weighed


@pytest.mark.parametrize("stem", ["zoo", "many_launches"])
def test_the_top_flags_dict_is_the_top_choices(stem: str) -> None:
    """``Diagnosis.to_dict`` writes the top flag without making its ``TopChoice``
    (``top_flag_dict``): what the choice's ``to_dict`` says, by every rule."""
    rules = set()
    for kernel in kernels_of(stem):
        for share in (None, 0.004, 0.5):
            d = with_time_share(kernel.diagnosis, share)
            choice = top_choice(d)
            assert top_flag_dict(d) == (choice.to_dict() if choice is not None else None)
            rules.add(choice.chosen_by if choice is not None else None)
    assert len(rules) >= 3
