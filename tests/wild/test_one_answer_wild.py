"""One kernel, one answer on the third-party reports: the Diagnosis pane's view object,
``summary``, the Markdown and the MCP kernel answer agree (``tests/ncu/test_one_answer.py``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.ncu.test_one_answer import check_one_answer
from tests.wild.conftest import wild_files


@pytest.mark.parametrize("name", wild_files("ncu"))
def test_every_view_gives_a_wild_kernel_one_answer(
    wild_plain: Callable[[str, str], Path], name: str
) -> None:
    check_one_answer(wild_plain("ncu", name))
