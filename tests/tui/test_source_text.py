"""The Source page shows the report's embedded source lines and every hot instruction's text
where a disassembler is available, and says in one sentence how to get SASS where none is."""

from __future__ import annotations

import pytest

from kernelscope.kinds.ncu.model import NcuReport, sass
from kernelscope.tui.app import create_app
from tests.wild.conftest import require_wild

from .helpers import settle
from .test_kernel_detail import open_detail, pane_text

MINIWEATHER = "ncu/NCAR__GPU_workshop__MW_Baseline.ncu-rep.xz"
needs_binding = pytest.mark.skipif(
    not sass.binding_available(), reason="ncu-report (the SASS disassembler) is not installed"
)


@needs_binding
def test_every_hot_instruction_has_its_text(zoo: NcuReport) -> None:
    source = zoo.kernel_source(4)
    assert source is not None and source.disassembled
    hot = [row for row in source.sass if row.hot]
    assert len(hot) == 10
    assert all(row.text and row.text != "???" for row in hot)


def test_the_embedded_fortran_source_is_shown_with_its_hot_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A V100 OpenACC report embeds its Fortran file; its hot lines read as in the file, from
    the cubin's line table alone."""
    monkeypatch.setattr(sass, "binding_available", lambda: False)
    monkeypatch.setattr(sass.shutil, "which", lambda _name: None)
    root = require_wild()
    with NcuReport(root / MINIWEATHER) as report:
        source = report.kernel_source(0)
    assert source is not None and source.has_line_info
    fortran = source.files[0]
    assert fortran.path.endswith("/miniWeather_mpi_openacc.F90") and len(fortran.rows) == 893
    hottest = next(row for row in fortran.rows if row.hot == 1)
    assert hottest.line == 400
    assert hottest.text.strip().startswith("sendbuf_l(s,k,ll) = state(s")
    assert all(row.text.strip() for row in fortran.rows if row.hot)


async def test_without_a_disassembler_the_page_says_how_to_get_sass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sass, "binding_available", lambda: False)
    monkeypatch.setattr(sass.shutil, "which", lambda _name: None)
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_detail(pilot, 4, "6")
        await pilot.press("s")
        await settle(pilot)
        text = pane_text(screen)
        assert "SASS text needs NVIDIA's ncu-report package" in text
        assert "nvdisasm on PATH" in text
        pane = screen.active_pane()
        listing = pane.listing  # type: ignore[attr-defined]
        assert listing.sass and len(listing.rows) == 50  # the instructions with counters
        assert all(row.text == "" and row.values for row in listing.rows if row.hot)
