"""The README's key tables and ``?`` list the same keys from one source: the bindings each
session lists. The README holds exactly what ``python -m kernelscope.tui.key_tables`` writes,
and ``?`` shows, for a kernel report, the same tables (Source keys and Raw filter included)."""

from __future__ import annotations

import pytest

from kernelscope.tui.app import create_app
from kernelscope.tui.key_tables import BEGIN, END, readme_keys
from kernelscope.ui.help import HelpScreen
from tests.conftest import ROOT
from tests.tui.helpers import settle


def readme_block() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text[text.index(BEGIN) + len(BEGIN): text.index(END)].strip()


def test_readme_holds_the_key_tables_the_bindings_make() -> None:
    """Run ``python -m kernelscope.tui.key_tables`` after changing a binding."""
    assert readme_block() == readme_keys(create_app())


def test_readme_lists_the_source_keys_and_the_raw_filter() -> None:
    block = readme_block()
    assert "#### Source page (6)" in block and "#### Raw page (8)" in block
    assert ("| `]` | Next hot | Go to the next hot line (marked ●). |") in block
    assert ("| `/` | Filter | Filter the metrics by a substring or a regular expression on the "
            "name. |") in block


@pytest.mark.asyncio
async def test_help_shows_the_readme_tables_of_its_session() -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        markdown = app.screen.markdown
        kernel_area = readme_block().split("\n### ")[0]  # the first kind's: kernel reports
        for table in kernel_area.split("#### ")[1:]:
            title, body = table.split("\n", 1)
            assert f"### {title}\n\n{body.strip()}" in markdown, title
        assert "**Flags** counts" not in markdown
        assert "**Top flag** its most severe flag" in markdown
