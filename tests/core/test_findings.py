"""One findings model: ncu's flags, the timeline's rules, the join's evidence and the ranks'
verdicts hold numbers (``core.findings``); the words are made in render, and say what the
exports said before the model was shared."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from kernelscope.core.findings import Evidence, Finding
from kernelscope.core.severity import Severity
from kernelscope.kinds.join.analysis import JoinReport, build_join, open_join
from kernelscope.kinds.join.analysis.evidence import (
    CopyTime,
    IdleGaps,
    InstanceSpread,
    ProfiledLaunches,
    Representative,
    SlowFirstStep,
    evidence_dict,
)
from kernelscope.kinds.join.export.join_export import worded
from kernelscope.kinds.join.render.join_evidence import evidence_lines
from kernelscope.kinds.ncu.analysis.diagnosis.result import flag_dict
from kernelscope.kinds.nsys import open_report
from kernelscope.kinds.ranks.analysis.model import RunAnalysis
from kernelscope.kinds.ranks.analysis.reduce import ReduceOptions
from kernelscope.kinds.ranks.analysis.run import analyse_run
from kernelscope.kinds.ranks.analysis.straggler import find_straggler
from kernelscope.kinds.ranks.render.ranks import straggler_note
from kernelscope.render.findings import evidence_text
from kernelscope.timeline.analysis.findings import findings
from kernelscope.timeline.export.timeline_json import finding_dict
from tests.conftest import SAMPLES
from tests.diagnosis.conftest import kernels_of
from tests.join.conftest import KERNELS_XZ, TRACE_XZ, unpack
from tests.ranks.conftest import RANKS, decompress


@pytest.fixture(scope="module")
def many_tiny(tmp_path_factory: pytest.TempPathFactory) -> list[Finding]:
    folder = tmp_path_factory.mktemp("findings-nsys")
    path = unpack(SAMPLES / "nsys" / "many_tiny.sqlite.xz", folder / "many_tiny.sqlite")
    return findings(open_report(path))


@pytest.fixture(scope="module")
def join(tmp_path_factory: pytest.TempPathFactory) -> JoinReport:
    folder = tmp_path_factory.mktemp("findings-join")
    inputs = open_join([unpack(TRACE_XZ, folder / "join_trace.sqlite"),
                        unpack(KERNELS_XZ, folder / "join_kernels.ncu-rep")])
    try:
        return build_join(inputs.timeline, inputs.reports)
    finally:
        inputs.close()


def _ranks(folder: Path, ranks: range) -> RunAnalysis:
    for rank in ranks:
        decompress(RANKS / f"rank{rank}.sqlite.xz", folder / f"rank{rank}.sqlite")
    return analyse_run([folder], options=ReduceOptions(cache_dir=str(folder / "cache")),
                       workers=0)


@pytest.fixture(scope="module")
def four_ranks(tmp_path_factory: pytest.TempPathFactory) -> RunAnalysis:
    return _ranks(tmp_path_factory.mktemp("findings-ranks"), range(4))


def test_evidence_reads_as_one_line() -> None:
    e = Evidence("memory", "l1tex__throughput.avg.pct_of_peak_sustained_active", 88.94, ">=",
                 80, "%", "the L1 is busy")
    assert e.holds is True
    assert evidence_text(e) == (
        "l1tex__throughput.avg.pct_of_peak_sustained_active = 88.9 % (>= 80) — the L1 is busy")
    assert evidence_text(Evidence("time", "gpu__time_duration.sum", None, "<", 5, "us")) == (
        "gpu__time_duration.sum = n/a (< 5)")
    assert evidence_text(Evidence("launch", "launch__grid_size", 1_200_000)) == (
        "launch__grid_size = 1,200,000")


def test_evidence_holds_by_its_comparison_and_exports_it() -> None:
    """``holds`` compares ``value`` with ``threshold`` by ``op``; None without either number or
    with no comparison; ``to_dict`` writes it between the unit and the note, ``op`` None when
    there is none."""
    for op, expected in ((">=", True), (">", False), ("<", False), ("<=", True), ("", None),
                         ("==", None)):
        e = Evidence("time", "m", 2, op, 2.0, "ns", "n")
        assert e.holds is expected
        assert e.to_dict() == {"step": "time", "metric": "m", "value": 2, "op": op or None,
                               "threshold": 2.0, "unit": "ns", "holds": expected, "note": "n"}
        assert list(e.to_dict()) == ["step", "metric", "value", "op", "threshold", "unit",
                                     "holds", "note"]
    assert Evidence("time", "m", None, "<", 1.0).holds is None
    assert Evidence("time", "m", 1.0, "<").holds is None
    assert Evidence("time", "m", 0.5, "<", 1).to_dict()["holds"] is True


def test_an_ncu_flag_is_a_finding() -> None:
    kernel = kernels_of("transpose_conflicts")[0]
    flags = kernel.diagnosis.flags
    assert all(type(f) is Finding for f in flags)
    assert [(f.id, f.severity, f.level, f.rule) for f in flags] == [
        ("l1tex-pressure", Severity.WARNING, 3, None),
        ("shared-bank-conflicts", Severity.CRITICAL, 4, "UncoalescedSharedAccess"),
        ("mio-throttle", Severity.WARNING, 4, "CPIStall: Mio Throttle Stalls"),
    ]
    conflicts = flags[1]
    assert [evidence_text(e) for e in conflicts.held] == [
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum / "
        "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum = 0.925 (>= 0.1)"
    ]
    written = flag_dict(conflicts)
    assert list(written) == ["id", "severity", "level", "title", "detail", "found_severity",
                             "evidence", "remedy", "ncu_speedup", "ncu_rule", "guard"]
    assert (written["severity"], written["remedy"], written["ncu_rule"]) == (
        "critical", conflicts.advice, conflicts.rule)
    assert json.loads(json.dumps(written)) == written


def test_timeline_findings_carry_the_evidence_of_their_severity(
    many_tiny: list[Finding],
) -> None:
    assert [(f.id, f.severity, len(f.rows)) for f in many_tiny] == [
        ("many-tiny-kernels", Severity.CRITICAL, 2),
        ("sync-memcpy", Severity.WARNING, 1),
        ("low-gpu-utilization", Severity.WARNING, 1),
        ("sync-api", Severity.INFO, 1),
    ]
    tiny, _, low, sync = many_tiny
    assert [(evidence_text(e), e.holds) for e in tiny.evidence] == [
        ("short kernels = 40,000 — in 2 launch-bound stretch(es)", None),
        ("GPU busy in these stretches = 15.9 % (< 60)", True),
        ("time in these stretches = 99.7 % (>= 25) — share of the GPU span", True),
    ]
    # Not critical: the lowest region is above 10 %; sync-api is info: 0.011 % of the span.
    assert [(evidence_text(e), e.holds) for e in (*low.evidence, *sync.evidence)] == [
        ("lowest GPU time utilisation = 15.9 % (< 10) — of 1 region(s) under 50 %", False),
        ("time in synchronisation calls = 0.011 % (>= 10) — share of the GPU span", False),
    ]


def test_the_timeline_export_keeps_its_finding_shape(many_tiny: list[Finding]) -> None:
    doc = finding_dict(many_tiny[1])
    assert json.dumps({k: doc[k] for k in ("id", "severity", "title")}) == (
        '{"id": "sync-memcpy", "severity": "warning", '
        '"title": "1 synchronous memcpy call(s) block the host"}'
    )
    assert len(doc["items"]) == 1  # type: ignore[arg-type]


def test_join_evidence_is_numbers_worded_in_render(join: JoinReport) -> None:
    startup = next(i for i in join.ranking if i.family == "start-up")
    assert startup.evidence == (IdleGaps(188, 1_794_524_797),
                                SlowFirstStep("step 0", 1_764_118_604))
    assert evidence_lines(startup.evidence) == [
        "188 gap(s), 1.795 s idle in all", "the first 'step 0' lasts 1.764 s"]
    copies = next(i for i in join.ranking if i.family == "copies")
    assert copies.evidence == (CopyTime(40, 62, 109_568),)
    assert evidence_lines(copies.evidence) == ["40 copies and 62 memsets, 109.6 us of GPU time"]
    first = join.unprofiled[0]
    assert first.evidence == (InstanceSpread(1000, 1056.0, 1056, 1632),
                              Representative(750, 1056, "tiny_ops"))
    assert evidence_lines(first.evidence) == [
        "1,000 instances, median 1.056 us (1.056 us–1.632 us)",
        "representative: instance 750 (1.056 us, in tiny_ops)",
    ]
    kernel = next(i for i in join.ranking if i.kind == "kernel")
    assert kernel.evidence[0] == ProfiledLaunches(12, 120)
    assert evidence_dict(kernel.evidence[0]) == {
        "kind": "ProfiledLaunches", "profiled": 12, "instances": 120}


def test_the_join_export_words_the_evidence(join: JoinReport) -> None:
    at = next(n for n, i in enumerate(join.ranking) if i.kind == "kernel")
    assert worded(join)["ranking"][at]["evidence"][0] == (
        "12 profiled launch(es) of 120 on the timeline")
    assert join.to_dict()["ranking"][at]["evidence"][0] == {
        "kind": "ProfiledLaunches", "profiled": 12, "instances": 120}


def test_the_straggler_verdict_is_a_finding(four_ranks: RunAnalysis) -> None:
    verdict = four_ranks.verdict
    assert (verdict.id, verdict.severity, verdict.subject) == (
        "straggler", Severity.WARNING, "rank 2")
    assert [evidence_text(e) for e in verdict.evidence] == [
        "latest rank = 2",
        "median lateness per step = 32,544,998.5 ns (> 1,163,663.9) — after the others' "
        "median; the threshold is the alignment uncertainty or 1 % of a step",
        "collectives arrived at last = 7 — of 8",
    ]
    assert straggler_note(verdict) == ""
    assert four_ranks.notes == []


def test_no_straggler_within_the_clock_uncertainty(four_ranks: RunAnalysis) -> None:
    """The same lateness, against a clock that cannot tell the ranks 50 ms apart."""
    run = four_ranks
    clock = replace(run.clock, exit_spread_ns=50_000_000.0)
    straggler, verdict = find_straggler(run.ranks, run.collectives, run.step_waits, clock)
    assert straggler is None
    assert (verdict.id, verdict.severity) == ("no-straggler", Severity.INFO)
    assert straggler_note(verdict) == (
        "no straggler: the latest rank (2) arrives a median 32.54 ms after the others' median "
        "per step, within 50 ms (alignment uncertainty or 1 % of a step)."
    )


def test_one_rank_has_no_collective(tmp_path: Path) -> None:
    verdict = _ranks(tmp_path, range(1)).verdict
    assert (verdict.id, verdict.evidence) == ("no-collective", ())
    assert straggler_note(verdict) == (
        "no collective was matched across the ranks, so nobody can be late.")
