"""Facts of the report file format that kernelscope's reader relies on, each seen in a real
report, and the reader's handling of damaged and compressed files."""

from __future__ import annotations

import lzma
import tempfile
from pathlib import Path

import pytest

from kernelscope.core.errors import ReportError
from kernelscope.kinds.ncu.model.report import NcuReport
from kernelscope.tui.cli import main
from tests.conftest import NCU_SAMPLES
from tests.wild.conftest import require_wild

RANGES = NCU_SAMPLES / "range_nvtx.ncu-rep.xz"
PROCESSES = NCU_SAMPLES / "multi_process.ncu-rep.xz"
ZOO = NCU_SAMPLES / "zoo.ncu-rep.xz"
PASCAL = "ncu/jhiems__PMKID_Brute-Force__FinalProfile.nsight-cuprof-report.xz"


def test_a_later_string_table_extends_the_first() -> None:
    """The range report stores five derived metric names in the block of its second range;
    the first range already names them by the ids that follow the first table's 529."""
    with NcuReport(RANGES) as report:
        strings = report.layout.strings
        assert len(strings) == 534
        assert strings[529] == "derived__pct_occupancy_per_register_count"
        assert strings[530] == "derived_tempMetric0"
        named = report._result(0).present()
        assert "derived__pct_occupancy_per_register_count" in named
        assert "derived__pct_occupancy_per_barrier_count" in named


def test_the_blocks_of_each_process_carry_its_id_and_name() -> None:
    with NcuReport(PROCESSES) as report:
        pids = [report.key_row(i)["pid"] for i in range(report.kernel_count)]
        names = {p.short_name for p in report.processes}
    assert pids == [6103, 6103, 6103, 6163, 6163, 6163]
    assert names == {"multi_process"}


def test_a_pre_2020_counter_that_went_below_zero_reads_0_as_ncu_prints_it() -> None:
    """The Pascal report stores 2**64 per unit (32 times that in bytes) for atomics it never
    ran: unsigned counters that went below zero. NCU prints 0."""
    root = require_wild()
    with NcuReport(root / PASCAL) as report:
        metrics = report.all_metrics(0)
    assert metrics["tex__m_rd_bytes_global_atom"].value == 0
    assert metrics["tex__m_rd_bytes_global_atom_per_sec"].value == 0
    assert metrics["tex__m_wr_sectors_global_atom"].value == 0
    assert metrics["tex__m_rd_bytes_miss_local_ld_uncached"].value == 117_696


@pytest.fixture
def private_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary directory kernelscope decompresses into, empty, for this test only."""
    folder = tmp_path / "temp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_a_truncated_xz_report_names_the_users_file_and_leaves_nothing_behind(
    tmp_path: Path, private_temp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = tmp_path / "cut.ncu-rep.xz"
    cut.write_bytes(lzma.compress(lzma.decompress(ZOO.read_bytes())[:50_000]))
    with pytest.raises(ReportError) as caught:
        NcuReport(cut)
    assert str(caught.value).startswith(f"{cut} is truncated: it ends inside ")
    assert list(private_temp.iterdir()) == []
    assert main(["export", str(cut)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"kernelscope: {cut} is truncated") and "report.ncu-rep" not in err
    assert list(private_temp.iterdir()) == []


def test_a_compressed_report_removes_its_copy_when_closed(private_temp: Path) -> None:
    report = NcuReport(ZOO)
    assert len(list(private_temp.iterdir())) == 1
    report.close()
    assert list(private_temp.iterdir()) == []
