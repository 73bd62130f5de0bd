"""``NcuReport.iter_details`` with an analysis reads ``ANALYSED_TOGETHER`` details, then
analyses them in turn: the batches hold the same details, in the same order, with the same
analyses as reading and analysing one at a time, and a cancel stops the reading."""

from __future__ import annotations

from kernelscope.kinds.ncu.analysis.diagnosis import diagnose
from kernelscope.kinds.ncu.model import KernelDetail
from kernelscope.kinds.ncu.model.report import ANALYSED_TOGETHER, open_ncu_report
from tests.conftest import NCU_SAMPLES

MANY = NCU_SAMPLES / "many_launches.ncu-rep.xz"


def _label(detail: KernelDetail) -> tuple[int, str]:
    return detail.id, diagnose(detail.metrics, detail.rules, detail.sections).label


def test_batches_hold_what_one_at_a_time_reads() -> None:
    ids = list(range(0, 1000, 7))  # 143 kernels: four whole batches and a part
    with open_ncu_report(MANY) as report:
        batches = list(report.iter_details(ids, analyse=_label, curves=False))
        one_by_one = [d for batch in report.iter_details(ids, curves=False) for d in batch]
    assert [len(b) for b in batches] == [ANALYSED_TOGETHER] * 4 + [143 - 4 * ANALYSED_TOGETHER]
    items = [item for batch in batches for item in batch]
    assert [detail.id for detail, _ in items] == ids
    assert [analysed for _, analysed in items] == [_label(d) for d in one_by_one]
    assert [detail.metrics for detail, _ in items] == [d.metrics for d in one_by_one]


def test_slim_batches_hold_summaries() -> None:
    with open_ncu_report(MANY) as report:
        (batch,) = report.iter_details([3, 4, 5], analyse=_label, slim=True)
    assert [(head.id, head.metrics, analysed[0]) for head, analysed in batch] == [
        (3, {}, 3), (4, {}, 4), (5, {}, 5)]


def test_a_cancel_stops_the_reading_inside_a_batch() -> None:
    asked: list[int] = []

    def cancelled() -> bool:
        asked.append(1)
        return len(asked) > 40

    with open_ncu_report(MANY) as report:
        batches = list(report.iter_details(list(range(100)), analyse=_label,
                                           cancelled=cancelled))
    assert [len(b) for b in batches] == [ANALYSED_TOGETHER]  # the second batch never made
