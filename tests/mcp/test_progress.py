"""An answer's progress only grows (MCP asks it of every notification): a kernel report's
answers count the kernels read and then the one step that uses them, and a kernel ID the
report lacks is refused before anything is read."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kernelscope.core.errors import ReportError
from kernelscope.kinds.ncu.export import ncu_answers
from tests.conftest import NCU_SAMPLES

MANY = NCU_SAMPLES / "many_launches.ncu-rep.xz"
Reported = list[tuple[float, float | None, str]]


def _answered(ask: Callable[[Path, Any], object], path: Path = MANY) -> Reported:
    reported: Reported = []
    ask(path, lambda done, total, message: reported.append((done, total, message)))
    return reported


ASKS: dict[str, Callable[[Path, Any], object]] = {
    "summary": ncu_answers.summary,
    "kernel": lambda path, progress: ncu_answers.kernel(path, 7, ["sol"], False, progress),
    "metrics": lambda path, progress: ncu_answers.metrics(path, 7, re.compile("dram"),
                                                          progress),
    "record": lambda path, progress: ncu_answers.record(path, 7, progress),
}


@pytest.mark.parametrize("name", ASKS)
def test_progress_only_grows_to_below_its_total(name: str) -> None:
    reported = _answered(ASKS[name])
    values = [done for done, _, _ in reported]
    assert values == sorted(set(values)), reported  # strictly growing
    assert all(total is None or done < total for done, total, _ in reported), reported
    assert reported[0] == (0, None, "opening many_launches.ncu-rep.xz")


def test_a_report_is_read_then_the_answer_made() -> None:
    reported = _answered(ASKS["kernel"])
    assert reported[-2] == (1000, 1002, "reading kernel 1,000 of 1,000")
    assert reported[-1] == (1001, 1002, "diagnosing kernel 7")


@pytest.mark.parametrize("name", ["kernel", "metrics", "record"])
def test_a_kernel_the_report_lacks_is_refused_before_reading(name: str) -> None:
    reported: Reported = []
    ask = {"kernel": lambda p: ncu_answers.kernel(MANY, 1000, ["sol"], False, p),
           "metrics": lambda p: ncu_answers.metrics(MANY, 1000, re.compile(""), p),
           "record": lambda p: ncu_answers.record(MANY, 1000, p)}[name]
    with pytest.raises(ReportError, match=r"^many_launches\.ncu-rep\.xz has no kernel 1000 "
                                          r"\(its IDs are 0 to 999\)\.$"):
        ask(lambda *step: reported.append(step))
    assert [message for _, _, message in reported] == ["opening many_launches.ncu-rep.xz"]
