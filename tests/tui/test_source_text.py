"""The Source page shows the report's embedded source lines and every hot instruction's text
where a disassembler is available, and says in one sentence how to get SASS where none is."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelscope.kinds.ncu.model import NcuReport, open_ncu_report, sass
from kernelscope.kinds.ncu.screens.panes.source import listing_summary
from tests.wild.conftest import require_wild

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


def test_without_a_disassembler_the_page_says_how_to_get_sass(
    monkeypatch: pytest.MonkeyPatch, zoo_path: Path
) -> None:
    """What the Source page's SASS view lists and says above it (``listing_summary``, the
    line the pane shows) when neither ncu-report nor nvdisasm is there."""
    monkeypatch.setattr(sass, "binding_available", lambda: False)
    monkeypatch.setattr(sass.shutil, "which", lambda _name: None)
    with open_ncu_report(zoo_path) as report:  # not the session's: it read the SASS text
        source = report.kernel_source(4)
    assert source is not None and not source.disassembled
    said = listing_summary(source, "sass", 0).plain
    assert "SASS: 50 instructions" in said  # the instructions with counters
    assert "SASS text needs NVIDIA's ncu-report package" in said
    assert "nvdisasm on PATH" in said
    assert len(source.sass) == 50
    assert all(row.text == "" and row.values for row in source.sass if row.hot)
