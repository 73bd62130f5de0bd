"""The diagnosis against ``../shared/wild/labels.json``: blind verdicts for the 103 kernels of
the 27 third-party kernel reports, labelled from NCU's own pages with the seeds' method.

Per kernel: the primary label is among the acceptable ones, every required flag is raised, and
no forbidden flag is raised at warning or above. A kernel where the diagnosis and the label are
known to differ for a reason argued with the metrics goes in ``ARGUED`` with that reason, so the
exception is explicit here and never a special case in the engine. Each report is one test; its
failure lists every miss with the label's own words and what kernelscope said.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from kernelscope.kinds.ncu.analysis.diagnosis import Diagnosis
from kernelscope.kinds.ncu.analysis.kernel_analysis import (
    AnalyzedReport,
    analyze,
    open_for_analysis,
)
from kernelscope.kinds.ncu.render.flag_cells import top_flag_text
from tests.wild.conftest import WILD, require_wild

ARGUED: dict[tuple[str, int], str] = {}
"""(report, NCU kernel ID) → why the label does not hold there, argued with the metrics. Empty:
every label holds."""


def _labels() -> dict[str, dict[str, Any]]:
    if WILD is None:
        return {}
    data = json.loads((WILD / "labels.json").read_text(encoding="utf-8"))
    return {name: kernels for name, kernels in data.items() if name != "about"}


LABELS = _labels()
REPORTS = sorted(LABELS) or ["<no ../shared/wild>"]


@cache
def _analyzed(path: str) -> AnalyzedReport:
    return analyze(open_for_analysis(path), details=True, slim=True)


def misses(label: dict[str, Any], d: Diagnosis) -> list[str]:
    """What does not hold of one kernel's label, in words ([] when it all holds)."""
    out = []
    if d.label not in label["primary"]:
        out.append(f"primary {d.label}, label accepts {' or '.join(label['primary'])}")
    out += [f"{f} not raised" for f in label["flags_required"] if not d.has_flag(f)]
    out += [
        f"{f} raised ({d.flag(f).severity})"  # type: ignore[union-attr]
        for f in label["flags_forbidden"]
        if d.has_flag(f, min_severity="warning")
    ]
    return out


@pytest.mark.parametrize("report", REPORTS)
def test_every_label_of_the_report_holds(
    wild_plain: Callable[[str, str], Path], report: str
) -> None:
    require_wild()
    analyzed = _analyzed(str(wild_plain("ncu", f"{report}.xz")))
    by_id = {k.id: k for k in analyzed.kernels}
    found = []
    for kernel_id, label in LABELS[report].items():
        d = by_id[int(kernel_id)].diagnosis
        missed = misses(label, d)
        argued = ARGUED.get((report, int(kernel_id)))
        if missed and argued is None:
            found.append(
                f"ID {kernel_id} [{label['name']}]: {'; '.join(missed)} "
                f"(kernelscope: {d.label}, top flag {top_flag_text(d)}: {d.bottleneck.summary})"
            )
        assert not (argued and not missed), f"ID {kernel_id} is argued but now holds: drop it"
    assert not found, "\n".join(found)


def test_the_corpus_has_every_labelled_kernel() -> None:
    require_wild()
    assert len(LABELS) == 27
    assert sum(len(kernels) for kernels in LABELS.values()) == 103


def test_a_dominant_wait_stall_names_the_verdict(wild_plain: Callable[[str, str], Path]) -> None:
    """curand's skip-ahead and XORWOW generation: 'wait' holds ~70 % of the cycles between
    issues (fixed-latency dependency chains). Not occupancy-bound, not led by the local-array
    traffic: latency-bound by the wait stalls, which lead."""
    require_wild()
    report = "iamcoleman__monte-carlo-pi__vHEAD__profile.ncu-rep"
    analyzed = _analyzed(str(wild_plain("ncu", f"{report}.xz")))
    for kernel in analyzed.kernels:
        d = kernel.diagnosis
        assert d.label == "latency-bound"
        assert d.bottleneck.decided_by == "wait-stalls"
        assert top_flag_text(d) == "wait-stalls (critical)"
        assert "(wait stalls)" in d.bottleneck.summary


def test_occupancy_stands_down_where_no_speed_of_light_was_collected(
    wild_plain: Callable[[str, str], Path],
) -> None:
    """ESMM's custom-metric report holds occupancy but no Speed Of Light: low occupancy is not
    judged, and the guard rail says which sections to collect."""
    require_wild()
    report = "AveryClapp__ESMM-Research__v049ec61__profile.ncu-rep"
    analyzed = _analyzed(str(wild_plain("ncu", f"{report}.xz")))
    d = analyzed.kernels[4].diagnosis
    flag = d.flag("low-occupancy")
    assert flag is not None and flag.severity == "info"
    guard = next(g for g in d.guard_rails if g.id == "occupancy-not-judged")
    assert guard.text.endswith(
        "Collect SpeedOfLight and WarpStateStats (ncu --section SpeedOfLight --section "
        "WarpStateStats, or --set full)."
    )
