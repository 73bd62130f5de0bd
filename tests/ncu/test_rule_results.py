"""A list summary's NCU rule results are read when first asked for (``RuleResults``): they are
the messages ``read_rules`` reads for the detail, a reader of some rules gets those rules'
messages in the same order, and the diagnosis made from them is the detail's."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from kernelscope.kinds.ncu.analysis.diagnosis import diagnose
from kernelscope.kinds.ncu.analysis.kernel_analysis import open_for_analysis
from kernelscope.kinds.ncu.model.detail import RULE_MESSAGE_TYPES, read_rules
from kernelscope.kinds.ncu.model.model import SPEEDUP_TYPES, RuleResult
from kernelscope.kinds.ncu.model.rule_results import RuleResults
from tests.conftest import NCU_SAMPLES


@pytest.mark.parametrize("name", ["zoo", "many_launches", "range_replay", "gemm_torch_full"])
def test_a_summarys_rules_are_the_details_read_when_asked(name: str) -> None:
    with open_for_analysis(NCU_SAMPLES / f"{name}.ncu-rep.xz") as report:
        for kernel_id in range(min(report.kernel_count, 40)):
            summary = report.summary(kernel_id)
            read = read_rules(report._result(kernel_id))
            lazy = RuleResults(report._result(kernel_id))
            identifiers = {r.rule for r in read}
            for rule in identifiers:  # asked for by rule before anything read them all
                fresh = RuleResults(report._result(kernel_id))
                assert list(fresh.of_rules({rule})) == [r for r in read if r.rule == rule]
            assert list(lazy.of_rules({"no such rule"})) == []
            if not report._result(kernel_id).encoded_rule_results():
                assert summary.rules == () == read  # nothing to hold
                continue
            assert isinstance(summary.rules, RuleResults)
            assert summary.rules == read and len(summary.rules) == len(read)
            assert list(summary.rules) == list(read) and tuple(summary.rules[:2]) == read[:2]
            assert list(summary.rules.of_rules(identifiers)) == list(read)
            assert pickle.loads(pickle.dumps(summary.rules)) == read
            detail = report.detail(kernel_id)
            from_summary = diagnose(summary.metrics, RuleResults(report._result(kernel_id)),
                                    summary.sections, unmeasured=summary.unmeasured)
            from_tuple = diagnose(summary.metrics, read, summary.sections,
                                  unmeasured=summary.unmeasured)
            assert from_summary == from_tuple
            assert detail.rules == read


def test_rules_that_mirror_no_flag_are_left_encoded() -> None:
    """The diagnosis of a launch reads only the headlines of the messages of the rules its
    flags name (no whole message is made)."""
    with open_for_analysis(NCU_SAMPLES / "many_launches.ncu-rep.xz") as report:
        result = report._result(7)
        result.names_table.rules.clear()
        result.names_table.rule_headlines.clear()
        rules = RuleResults(result)
        every = read_rules(report._result(7))
        result.names_table.rules.clear()
        diagnose(report.summary(7).metrics, rules, report.summary(7).sections)
        named = {headline.rule for headlines in result.names_table.rule_headlines.values()
                 for headline in headlines}
        assert named and named < {r.rule for r in every}
        assert not result.names_table.rules


@pytest.mark.parametrize("name", ["zoo", "many_launches", "gemm_torch_full"])
def test_the_headlines_of_a_rule_are_its_messages(name: str) -> None:
    """``headlines_of`` gives each message's rule, name, title and speedup as the whole
    messages hold them, in their order, whether the messages were made before or not."""
    with open_for_analysis(NCU_SAMPLES / f"{name}.ncu-rep.xz") as report:
        for kernel_id in range(min(report.kernel_count, 40)):
            read = read_rules(report._result(kernel_id))
            for rule in {r.rule for r in read}:
                report._result(kernel_id).names_table.rules.clear()
                headlines = list(RuleResults(report._result(kernel_id)).headlines_of({rule}))
                whole = [r for r in read if r.rule == rule]
                assert [(h.rule, h.name, h.title, h.speedup_pct) for h in headlines] == [
                    (r.rule, r.name, r.title, r.speedup_pct) for r in whole
                ]
                held = RuleResults(report._result(kernel_id))
                assert list(held.of_rules({rule})) == whole  # made now: handed out as made
                assert list(held.headlines_of({rule})) == whole


def test_launches_that_store_the_same_rule_results_hold_one_copy() -> None:
    """A list summary holds its rule results encoded: launches of one kernel that store the
    same bytes hold one object of them, as they held one tuple of messages before."""
    with open_for_analysis(NCU_SAMPLES / "small_family.ncu-rep.xz") as report:
        summaries = [report.summary(k) for k in range(report.kernel_count)]
    held = [data for s in summaries for data in getattr(s.rules, "_encoded", ())]
    assert held
    assert len({id(data) for data in held}) == len(set(held)) < len(held)


def _plain_messages(result: Any) -> list[RuleResult]:
    """The messages of a decoded rule result, each field read by name (what
    ``rule_messages`` makes)."""
    found = []
    for item in result.body.items:
        kind = RULE_MESSAGE_TYPES.get(int(item.message.type))
        if not item.HasField("message") or kind is None:
            continue
        has_speed = item.HasField("speedup") and item.speedup.HasField("value")
        found.append(RuleResult(
            rule=result.identifier, name=result.display_name,
            section=result.section_identifier, type=kind, title=item.message.name,
            message=item.message.message,
            speedup_type=SPEEDUP_TYPES.get(int(item.speedup.speedup_type))
            if has_speed else None,
            speedup_pct=float(item.speedup.value) if has_speed else None,
        ))
    return found


@pytest.mark.parametrize("name", ["zoo", "many_launches", "range_replay", "gemm_torch_full"])
def test_rules_read_in_turn_are_those_read_afresh(name: str) -> None:
    """``read_rules`` of launches in turn (each rule compared with the last launch's at its
    place, then remembered by its bytes) gives each launch's messages read afresh."""
    with open_for_analysis(NCU_SAMPLES / f"{name}.ncu-rep.xz") as report:
        ids = range(min(report.kernel_count, 40))
        for kernel_id in [*ids, *reversed(ids)]:
            result = report._result(kernel_id)
            afresh = [m for data in result.encoded_rule_results()
                      for m in _plain_messages(result.decoded_rule_result(data))]
            assert list(read_rules(result)) == afresh, kernel_id
            assert all(type(m) is RuleResult for m in read_rules(result))
