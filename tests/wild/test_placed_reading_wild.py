"""The bulk reading of a launch's metrics equals reading each name alone on every
third-party kernel report (``tests/ncu/test_placed_reading.py``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.ncu.test_placed_reading import check_report
from tests.wild.conftest import wild_files


@pytest.mark.parametrize("name", wild_files("ncu"))
def test_bulk_reading_equals_one_by_one(
    name: str, wild_plain: Callable[[str, str], Path]
) -> None:
    check_report(wild_plain("ncu", name))
