"""A report without the bytes used per sector (most third-party reports: their sets lack
``smsp__sass_average_data_bytes_per_sector_*``) cannot tell the ideal sectors per request:
the Markdown says so and which width it assumes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.exports import export_text
from tests.wild.conftest import require_wild

NCAR = "NCAR__GPU_workshop__MW_Baseline.ncu-rep.xz"


def test_the_ideal_is_said_to_be_assumed(wild_plain: Callable[[str, str], Path]) -> None:
    require_wild()
    text = export_text(wild_plain("ncu", NCAR), "md")
    assert ("Global load, Global store: n/a, the report lacks the bytes used per sector "
            "(smsp__sass_average_data_bytes_per_sector_mem_global_*, --section "
            "MemoryWorkloadAnalysis_Tables).") in text
    assert "Where the ideal is n/a, 4 (4-byte accesses) is assumed for the highlight." in text
