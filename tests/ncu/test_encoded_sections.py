"""A result's sections kept encoded in its lean reading (``Result.section_bytes``): the
identifiers read from them (the last launch's compared first) are those of the sections
decoded whole, and so is what ``section_reading`` makes of them."""

from __future__ import annotations

import pytest

from kernelscope.kinds.ncu.model.detail import _read_sections, section_reading
from kernelscope.kinds.ncu.model.report import NcuReport
from tests.conftest import NCU_SAMPLES


@pytest.mark.parametrize("name", ["zoo", "many_launches", "multi_process", "range_replay"])
def test_section_identifiers_in_turn_are_those_decoded_whole(name: str) -> None:
    with NcuReport(NCU_SAMPLES / f"{name}.ncu-rep.xz") as report:
        ids = range(min(report.kernel_count, 30))
        for kernel_id in [*ids, *reversed(ids)]:
            result = report._result(kernel_id)
            whole = result.sections()
            assert result.section_ids() == frozenset(s.identifier for s in whole), kernel_id
            assert section_reading(result) == _read_sections(whole), kernel_id
