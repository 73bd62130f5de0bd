"""A sample's launches read in turn, for the tests of what the reader keeps from one launch
for the next: forward, then back, so each launch is read both after its predecessor (what
the kept readings are made for) and after its successor."""

from __future__ import annotations

from collections.abc import Iterator

from kernelscope.kinds.ncu.model.file_format.result import Result
from kernelscope.kinds.ncu.model.report import NcuReport
from tests.conftest import NCU_SAMPLES


def results_in_turn(name: str, first: int = 30) -> Iterator[tuple[int, Result]]:
    """(kernel id, result) of the sample's first ``first`` launches, forward then back."""
    with NcuReport(NCU_SAMPLES / f"{name}.ncu-rep.xz") as report:
        ids = range(min(report.kernel_count, first))
        for kernel_id in [*ids, *reversed(ids)]:
            yield kernel_id, report._result(kernel_id)
