"""Metric units without ncu_report on the third-party reports: `units.unit_for` against the
unit row of every raw page NCU printed for them (`oracle/ncu/*.raw_base.csv.xz`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ncu.units_oracle import unit_mismatches
from tests.wild.conftest import WILD, provenance, require_wild

PAGE_SUFFIX = ".raw_base.csv.xz"


def raw_pages() -> list[str]:
    if WILD is None:
        return ["<no ../shared/wild>"]
    return sorted(p.name for p in (WILD / "oracle" / "ncu").glob(f"*{PAGE_SUFFIX}"))


def ncu_version_of(report: str) -> tuple[int, ...] | None:
    """PROVENANCE.tsv's version of the report: `2022.2.0.0`; `<=2019.x (...)` for the pre-2020
    format (which stores none); `?` where the report does not say."""
    version = provenance()[f"{report}.xz"]["version"].split()[0]
    if version.startswith("<=2019"):
        return (2019,)
    if version[0].isdigit():
        return tuple(int(part) for part in version.split("."))
    return None


def test_every_third_party_raw_page_is_read() -> None:
    require_wild()
    assert len(raw_pages()) == 27


@pytest.mark.parametrize("page", raw_pages())
def test_units_equal_the_raw_page(page: str) -> None:
    root = require_wild()
    report = page.removesuffix(PAGE_SUFFIX)
    path: Path = root / "oracle" / "ncu" / page
    checked, wrong = unit_mismatches(path, ncu_version_of(report))
    assert checked > 200
    assert wrong == [], f"{len(wrong)} of {checked} units differ:\n" + "\n".join(wrong[:40])
