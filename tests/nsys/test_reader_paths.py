"""The two ways an export's tables are read give the same frames: the ADBC driver (its
Arrow stream taken by polars, no pyarrow) and, where the driver is missing or fails on a
query, the standard library's sqlite3; the headless commands read the same frames but the
kernels' details, and import no renderer they do not use."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from kernelscope.core.options import OpenOptions
from kernelscope.kinds.nsys.kind import KIND
from kernelscope.kinds.nsys.model.db import ExportDb
from kernelscope.kinds.nsys.model.gpu_metrics_read import catalog
from kernelscope.kinds.nsys.model.load import KERNEL_DETAILS, _plan, load_report
from tests.processes import fresh_command


@pytest.mark.parametrize("name", ["zoo", "gpu_metrics", "graph_replay"])
def test_adbc_and_sqlite3_read_the_same_frames(name: str, sample_sqlite: Callable[[str], Path],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    path = sample_sqlite(name)
    with ExportDb(path) as db:
        tasks = _plan(db, catalog(db))
        by_adbc = db.read_many(tasks)
        assert db._adbc is not None  # the driver read them
    monkeypatch.setitem(sys.modules, "adbc_driver_sqlite", None)  # as where it is missing
    with ExportDb(path) as db:
        by_sqlite3 = db.read_many(tasks)
        assert db._adbc is None
    assert list(by_adbc) == list(by_sqlite3)
    for table, frame in by_adbc.items():
        assert frame.schema == by_sqlite3[table].schema, table
        assert frame.equals(by_sqlite3[table]), table


def test_reading_needs_no_pyarrow(sample_sqlite: Callable[[str], Path],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """pyarrow made unimportable: the driver still reads every table."""
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with ExportDb(sample_sqlite("zoo")) as db:
        for task in _plan(db, catalog(db)):
            frame = db._adbc_frame(task.sql)  # None where the driver could not read it
            assert frame is not None, task.name
            assert frame.height == db.scalar(f'SELECT count(*) FROM "{task.table}"'), task.name


def test_a_timeline_summary_imports_no_pyarrow(sample_sqlite: Callable[[str], Path]) -> None:
    """A fresh ``kernelscope summary`` of a trace reads it without importing pyarrow (whose
    import costs ~0.08 s of CPU on the 2-core development machine)."""
    code, _, imported = fresh_command(["summary", str(sample_sqlite("zoo"))], "pyarrow")
    assert (code, imported) == (0, False)


def test_a_timeline_json_export_imports_no_markdown_renderer(
        sample_sqlite: Callable[[str], Path], tmp_path: Path) -> None:
    """The JSON export of a trace writes no Markdown: its renderer is imported by the
    Markdown export only (a fresh command's imports are part of its time)."""
    argv = ["export", str(sample_sqlite("zoo")), "-f", "json", "-o", str(tmp_path / "z.json")]
    code, _, imported = fresh_command(argv, "kernelscope.timeline.export.timeline_markdown")
    assert (code, imported) == (0, False)


@pytest.mark.parametrize("name", ["zoo", "graph_replay", "timeline_torch"])
def test_a_headless_open_reads_the_same_report_but_the_kernels_details(
        name: str, sample_sqlite: Callable[[str], Path]) -> None:
    """The headless commands open a timeline through the kind (``kernel_details=False``):
    every frame is the screen's, but the kernels without their launch shapes and their short
    and mangled names, which none of those commands read."""
    path = sample_sqlite(name)
    full = load_report(path)
    headless = KIND.part("open")((path,), OpenOptions())
    assert set(KERNEL_DETAILS) <= set(full.kernels.columns)
    assert headless.kernels.equals(full.kernels.drop(KERNEL_DETAILS))
    for frame in ("memcpy", "memset", "cuda_api", "osrt", "nvtx", "overhead", "sync"):
        assert getattr(headless, frame).equals(getattr(full, frame)), frame
    assert (headless.start_ns, headless.end_ns) == (full.start_ns, full.end_ns)
    assert (headless.devices, headless.processes) == (full.devices, full.processes)
