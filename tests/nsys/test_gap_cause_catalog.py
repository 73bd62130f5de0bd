"""Gap causes have one home (``timeline/analysis/gap_cause_catalog.py``): every cause any analysis
gives a real trace has a title, a description and a remedy there, and the views print them."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelscope.export.writer import ExportOptions, render
from kernelscope.kinds.join.analysis.idle import IdleItem
from kernelscope.kinds.nsys.model.opener import open_report
from kernelscope.timeline.analysis.gap_cause_catalog import EXPLAINED, GAP_CAUSES
from kernelscope.timeline.analysis.gap_causes import CAUSES
from kernelscope.timeline.analysis.timeline_data import TimelineData
from tests.conftest import SAMPLES

TRACES = sorted((SAMPLES / "nsys").glob("*.sqlite.xz"))


def test_every_entry_is_complete() -> None:
    assert CAUSES == EXPLAINED
    for cause_id, cause in GAP_CAUSES.items():
        assert cause.id == cause_id
        assert cause.title and cause.description.endswith(".") and cause.remedy.endswith(".")
    for join_bucket in ("start-up", "short-gaps", "copies"):
        assert IdleItem(join_bucket, 1, 1, None).title == GAP_CAUSES[join_bucket].title


@pytest.mark.parametrize("trace", TRACES, ids=lambda p: p.name)
def test_every_cause_given_to_a_sample_gap_is_catalogued(trace: Path) -> None:
    causes = set(TimelineData(open_report(trace)).gaps["cause"].drop_nulls().to_list())
    assert causes <= set(EXPLAINED)


def test_the_timeline_markdown_explains_the_causes_it_lists() -> None:
    text = render(SAMPLES / "nsys" / "zoo.sqlite.xz", ExportOptions(fmt="md"))
    causes = text.index("The causes:")
    legend = text[causes:text.index("## Findings", causes)]
    assert ("- `memcpy`: The feeding thread was stuck in a synchronous copy or memset "
            "(cudaMemcpy, or cudaMemcpyAsync from pageable memory). Try: Use pinned host "
            "memory and cudaMemcpyAsync on a stream so copies overlap compute.") in legend
    assert "- `launch-overhead`: " in legend
