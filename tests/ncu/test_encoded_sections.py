"""A result's sections kept encoded in its lean reading (``Result.section_bytes``): the
identifiers read from them (the last launch's compared first) are those of the sections
decoded whole, and so is what ``section_reading`` makes of them."""

from __future__ import annotations

import pytest

from kernelscope.kinds.ncu.model.detail import _read_sections, section_reading
from tests.ncu.in_turn import results_in_turn


@pytest.mark.parametrize("name", ["zoo", "many_launches", "multi_process", "range_replay"])
def test_section_identifiers_in_turn_are_those_decoded_whole(name: str) -> None:
    for kernel_id, result in results_in_turn(name):
        whole = result.sections()
        assert result.section_ids() == frozenset(s.identifier for s in whole), kernel_id
        assert section_reading(result) == _read_sections(whole), kernel_id
