"""Every instruction with counters gets the source line Nsight Compute gives it, from the
cubin's line table alone (no ncu-report, no nvdisasm): against the binding's answers stored
for every sample and third-party report with per-instruction counters, and against the
binding itself where it is installed."""

from __future__ import annotations

import io
import json
import lzma
from functools import cache
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile

from kernelscope.kinds.ncu.model import NcuReport, sass
from kernelscope.kinds.ncu.model.line_table import Entries, read_line_tables
from tests.ncu.line_places import (
    EXPECTED,
    Runs,
    binding_runs,
    expected_runs,
    line_table_runs,
    report_path,
)

STORED = sorted({key.split("#")[0] for key in json.loads(lzma.decompress(EXPECTED.read_bytes()))})
WITH_LINE_TABLES = ["zoo.ncu-rep.xz", "zoo_a.ncu-rep.xz", "thrust_lambdas.ncu-rep.xz",
                    "NCAR__GPU_workshop__MW_Baseline.ncu-rep.xz",
                    "iamcoleman__monte-carlo-pi__vHEAD__profile.ncu-rep.xz"]
"""Relocatable cubins (sm_90, sm_80), a kernel calling functions placed below it (its start
told by its warps), a cubin taken from a loaded image (load addresses, Windows paths)."""


@pytest.fixture(autouse=True)
def _no_disassembler(monkeypatch: pytest.MonkeyPatch) -> None:
    """The places come from the line table alone."""
    monkeypatch.setattr(sass, "binding_available", lambda: False)
    monkeypatch.setattr(sass.shutil, "which", lambda _name: None)


@cache
def ours(name: str) -> dict[str, Runs]:
    """kernelscope's places of a report's PCs, read once for the two tests that compare them
    (the disassembler is off in every test of this file, so both read the same)."""
    return line_table_runs(report_path(name))


@pytest.mark.parametrize("name", STORED)
def test_every_pc_gets_the_line_nsight_compute_gives_it(name: str) -> None:
    assert ours(name) == expected_runs(name)


def test_the_stored_answers_cover_the_samples_built_with_lineinfo() -> None:
    mapped = {name for name in STORED
              if any(place[1] for runs in expected_runs(name).values() for place in runs)}
    assert set(WITH_LINE_TABLES) <= mapped
    assert len(mapped) == 21 and len(STORED) == 31


@pytest.mark.skipif(not sass.binding_available(), reason="ncu-report is not installed")
@pytest.mark.parametrize("name", WITH_LINE_TABLES)
def test_the_binding_gives_the_same_lines_today(name: str, tmp_path: Path) -> None:
    plain = tmp_path / "report.ncu-rep"
    plain.write_bytes(lzma.decompress(report_path(name).read_bytes()))
    assert ours(name) == binding_runs(report_path(name), plain)


def _cubin(name: str, kernel_id: int) -> tuple[bytes, str]:
    with NcuReport(report_path(name)) as report:
        result = report._result(kernel_id)
        refs = result.source_references()
        return report._modules.cubin(result.process.pid, refs[0]), result.names()[2]


def test_an_inlined_call_reads_as_its_call_site() -> None:
    """Two rows at one address (the call site, then the inlined atomicAdd's header line):
    the first is the instruction's line, as in Nsight Compute."""
    cubin, function = _cubin("zoo.ncu-rep.xz", 9)
    lines = read_line_tables(cubin).functions[function]
    assert lines.place(0x110) == ("/work/main/samples/cuda/kernels_zoo.cu", 178)


def test_without_line_table_or_start_nothing_is_placed() -> None:
    cubin, function = _cubin("torch_ops.ncu-rep.xz", 0)
    assert ELFFile(io.BytesIO(cubin)).get_section_by_name(".debug_line") is None
    assert read_line_tables(cubin).functions == {}
    cubin, function = _cubin("NCAR__GPU_workshop__MW_Baseline.ncu-rep.xz", 2)
    tables = read_line_tables(cubin)
    # Three function starts, none whose first instruction ran once per warp: unknown.
    entries = Entries((0x1000, 0x2000, 0x3000), {0x1000: 1.0}, warps=4)
    assert tables.start(function, [0x1000, 0x3000], entries) is None
    assert tables.places(function, [0x1000, 0x3000], None) == {}


def test_a_damaged_cubin_gives_no_lines() -> None:
    cubin, _ = _cubin("zoo.ncu-rep.xz", 0)
    assert read_line_tables(cubin[: len(cubin) // 2]).functions == {}
    assert read_line_tables(b"\x7fELF" + bytes(60)).functions == {}
