"""What the panes say about a kernel agrees with its diagnosis, on every committed sample.

The Launch, Occupancy, Memory and Warp stalls panes and the Markdown record read the same derived
values and thresholds as the diagnosis (``kinds/ncu/analysis/diagnosis/derived.py``); this test
compares,
kernel by kernel, each pane's reading with the flag, guard rail or skipped check of the diagnosis
that speaks about the same thing.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from kernelscope.kinds.ncu.analysis.diagnosis import DEFAULT_THRESHOLDS as T
from kernelscope.kinds.ncu.analysis.diagnosis import Diagnosis, derived
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.families import kernel_families
from kernelscope.kinds.ncu.analysis.kernel_analysis import diagnose_detail, open_for_analysis
from kernelscope.kinds.ncu.export.ncu_markdown import record_body
from kernelscope.kinds.ncu.model import KernelDetail
from kernelscope.kinds.ncu.model.panes import OCCUPANCY_LIMITS
from kernelscope.kinds.ncu.screens.panes.launch import launch_reading
from kernelscope.kinds.ncu.screens.panes.memory import spill_note
from kernelscope.kinds.ncu.screens.panes.occupancy import binding_limits, occupancy_reading
from kernelscope.kinds.ncu.screens.panes.stalls import reading
from tests.conftest import ncu_sample_paths

STALL_FLAGS = ("barrier-stalls", "long-scoreboard-stalls", "mio-throttle")
# The top stall reasons the samples rank first, as Nsight Compute's metric labels spell them.
STALL_METRIC = ("smsp__average_warps_issue_stalled_", "_per_issue_active.ratio")
STALL_WORDS = {
    "barrier": "Barrier",
    "imc_miss": "IMC Miss",
    "lg_throttle": "LG Throttle",
    "long_scoreboard": "Long Scoreboard",
    "membar": "Membar",
    "mio_throttle": "MIO Throttle",
    "no_instruction": "No Instruction",
    "not_selected": "Not Selected",
    "short_scoreboard": "Short Scoreboard",
    "wait": "Wait",
}
ALL_READ = 64
"""Reports up to this many kernels are checked kernel by kernel; larger ones (1,000 launches of
four kernels) by the median launch of each family."""


@cache
def details(path: Path) -> tuple[tuple[KernelDetail, Diagnosis], ...]:
    with open_for_analysis(path) as report:
        ids = list(range(report.kernel_count))
        if report.kernel_count > ALL_READ:
            summaries = [s for batch in report.iter_summaries() for s in batch]
            ids = sorted(f.representative for f in kernel_families(summaries))
        out = []
        for kernel_id in ids:
            report.source_hotspots(kernel_id)
            detail = report.detail(kernel_id)
            out.append((detail, diagnose_detail(detail)))
        return tuple(out)


SAMPLES = ncu_sample_paths()


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name.split(".")[0] for p in SAMPLES])
def test_panes_and_diagnosis_agree(path: Path) -> None:
    pairs = details(path)
    assert pairs
    for detail, d in pairs:
        where = f"{path.name} kernel {detail.id}"
        _stalls(detail, d, where)
        _memory(detail, d, where)
        _occupancy(detail, d, where)
        _launch(detail, d, where)
        _record(detail, d, where)


def _stalls(detail: KernelDetail, d: Diagnosis, where: str) -> None:
    text = reading(detail).plain
    issue = detail.number(n.ISSUE_ACTIVE)
    raised = [f for f in d.flags if f.id in STALL_FLAGS]
    if issue is None:
        assert "not collected" in text, where
        assert not raised, where
        return
    busy = issue >= T.issue_underused_pct
    assert ("stalls limit throughput" in text) == (not busy), (where, text)
    if busy:
        # The pane says the stalls describe normal waiting: the diagnosis raises none.
        assert not raised, (where, [f.id for f in raised])
    for flag in raised:
        issue_ev = next(e for e in flag.evidence if e.metric == n.ISSUE_ACTIVE)
        assert issue_ev.threshold == T.issue_underused_pct and issue_ev.holds, where
    ranked = derived.top_stalls(derived.ranked_stalls(detail.metrics, detail.stall_reasons), 1)
    if ranked and not busy:
        reason = ranked[0][0].removeprefix(STALL_METRIC[0]).removesuffix(STALL_METRIC[1])
        assert f"the top reason is {STALL_WORDS[reason]} (" in text, (where, text)


def _memory(detail: KernelDetail, d: Diagnosis, where: str) -> None:
    text = spill_note(detail).plain
    spill, local = d.flag("register-spill"), d.flag("local-memory")
    flag = spill or local
    if "register-spill" in d.skipped:
        assert "not collected" in text, (where, text)
        return
    assert "not collected" not in text, (where, text)
    assert not (spill and local), where
    if flag is not None:
        assert text.startswith("Local memory traffic"), where
        # the pane and the flag name the same kind of traffic
        assert ("register spills (" in text) == (spill is not None), (where, text)
        assert ("stack arrays / dynamically indexed locals" in text) == (local is not None), where
    elif text.startswith("No local-memory"):
        local = derived.local_memory(detail.metrics)
        assert local is not None and not local.any, where
    else:  # some traffic, under the flag's threshold
        assert "under the" in text, (where, text)


def _occupancy(detail: KernelDetail, d: Diagnosis, where: str) -> None:
    _, binding = binding_limits(detail)
    by_label = dict(OCCUPANCY_LIMITS)
    flag = d.flag("occupancy-limiter")
    if flag is not None:
        limiting = {e.metric for e in flag.evidence if e.note == "limiting"}
        assert {by_label[label] for label in binding} == limiting, (where, binding, limiting)
    note = occupancy_reading(detail)
    grid_guard = any(g.id == "grid-cannot-fill" for g in d.guard_rails)
    assert (note is not None and "grid cannot fill" in note.plain) == grid_guard, where
    low = d.flag("low-occupancy")
    if grid_guard:
        assert low is not None and low.severity == "info", where


def _launch(detail: KernelDetail, d: Diagnosis, where: str) -> None:
    text = launch_reading(detail) or ""
    tail = d.flag("tail-effect")
    assert ("tail effect" in text) == (tail is not None), (where, text)
    waves = detail.number(n.WAVES)
    assert ("Less than one wave" in text) == (waves is not None and 0 < waves < T.waves_fill), where


def _record(detail: KernelDetail, d: Diagnosis, where: str) -> None:
    body = record_body(detail, d)
    _, binding = binding_limits(detail)
    limits = next(line for line in body.splitlines() if line.startswith("- block limits:"))
    marked = set(re.findall(r"([a-z][a-z ]*) [\d,.]+ \(binding\)", limits))
    assert marked == set(binding), (where, marked, binding)
    ranked = derived.top_stalls(derived.ranked_stalls(detail.metrics, detail.stall_reasons))
    stalls = next(line for line in body.splitlines() if line.startswith("- top stalls"))
    for name, _ in ranked:
        assert derived.stall_reason(name) in stalls, (where, stalls)
