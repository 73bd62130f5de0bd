"""The notes kept by sections, metric names and skips (``notes.notes``) are the notes worked
out afresh (``notes.plain_notes``): for each launch of the samples, read twice (made, then
read back), and for the same launches with sections taken away, stand-ins made NaN or taken
out, no roofline, and the same checks skipped for other sections."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

from kernelscope.kinds.ncu.analysis.diagnosis import engine
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.notes import notes, plain_notes
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import DEFAULT_THRESHOLDS
from kernelscope.kinds.ncu.model.metrics import Metric
from tests.diagnosis.sample_kernels import REPORTS, first_summaries

_TAKEN = (n.SECTION_SOL, n.SECTION_OCCUPANCY, n.SECTION_LAUNCH, n.SECTION_ROOFLINE,
          n.SECTION_COMPUTE, n.SECTION_WARP_STATE)
"""Sections taken away, one at a time and all together."""
_STAND_INS = (n.ACHIEVED_OCC, n.THEORETICAL_OCC, n.SM_PCT, n.WAVES, n.GRID_SIZE,
              n.WARP_LATENCY)
"""Stand-ins made NaN or taken out."""


def _cases(name: str) -> Iterator[tuple[Any, ...]]:
    """(sections, skipped, metrics, roofline) of each launch and of its variations."""
    for summary in first_summaries(name, 12):
        roofline, facts, guards, _ = engine._classified(summary.metrics, summary.sections,
                                                        DEFAULT_THRESHOLDS)
        _, skipped = engine._checked_flags(facts, DEFAULT_THRESHOLDS, guards, summary.rules)
        sections, metrics = frozenset(summary.sections), dict(summary.metrics)
        yield sections, skipped, metrics, roofline
        yield sections, skipped, metrics, None
        yield sections, {}, metrics, roofline
        yield sections - set(_TAKEN), skipped, metrics, roofline
        for section in _TAKEN:
            yield sections - {section}, skipped, metrics, roofline
        for stand_in in _STAND_INS:
            if stand_in in metrics:
                nan = {**metrics, stand_in: Metric(stand_in, math.nan, "%")}
                yield sections - set(_TAKEN), skipped, nan, roofline
                out = {k: v for k, v in metrics.items() if k != stand_in}
                yield sections - set(_TAKEN), skipped, out, roofline
        if skipped:
            first = next(iter(skipped))
            other = {**skipped, first: (n.SECTION_SOURCE,)}  # the same ids, other sections
            yield sections, other, metrics, roofline


@pytest.mark.parametrize("name", REPORTS)
def test_kept_notes_are_the_plain_notes(name: str) -> None:
    seen = 0
    for sections, skipped, metrics, roofline in _cases(name):
        plain = tuple(plain_notes(sections, skipped, metrics, roofline))
        for _ in range(2):  # made, then read back
            assert notes(sections, skipped, metrics, roofline) == plain
        assert notes(set(sections), skipped, metrics, roofline) == plain  # not kept
        seen += 1
    assert seen > 12


def test_a_stand_in_made_nan_brings_its_note_back() -> None:
    """The kept notes follow what a stand-in reads, not only the names held (the case a key
    of names alone would get wrong)."""
    summary = next(first_summaries("many_launches", 1))
    sections = frozenset(summary.sections) - {n.SECTION_OCCUPANCY}
    metrics = dict(summary.metrics)
    held = [name for name in (n.ACHIEVED_OCC, n.THEORETICAL_OCC) if name in metrics]
    assert held
    note = next(s for s in plain_notes(sections, {}, {}, None) if n.SECTION_OCCUPANCY in s)
    assert note not in notes(sections, {}, metrics, None)
    nan = {**metrics, **{name: Metric(name, math.nan, "%") for name in held}}
    assert note in notes(sections, {}, nan, None)
    assert note not in notes(sections, {}, metrics, None)
