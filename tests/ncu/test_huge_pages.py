"""Huge pages for the processes that read many kernels (``parsers/ncu/huge_pages.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernelscope.parsers.ncu import huge_pages
from kernelscope.parsers.ncu.huge_pages import (
    TUNABLE,
    is_large_kernel_report,
    reexec_for,
    with_huge_pages,
)
from kernelscope.tui.cli import entry, main

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
LARGE = SAMPLES / "ncu" / "many_launches.ncu-rep.xz"  # 1,000 launches: read in children
SMALL = SAMPLES / "ncu" / "range_nvtx.ncu-rep.xz"  # 15 KB


@pytest.fixture
def thp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(huge_pages, "_available", lambda: True)


class Reexec(Exception):
    pass


@pytest.fixture
def execs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[str], dict[str, str]]]:
    calls: list[tuple[str, list[str], dict[str, str]]] = []

    def execve(path: str, args: list[str], env: dict[str, str]) -> None:
        calls.append((path, list(args), dict(env)))
        raise Reexec

    monkeypatch.setattr(os, "execve", execve)
    return calls


def test_tunable_added(thp: None) -> None:
    assert with_huge_pages({"HOME": "/root"}) == {"HOME": "/root", "GLIBC_TUNABLES": TUNABLE}


def test_tunable_joins_the_users_own(thp: None) -> None:
    env = with_huge_pages({"GLIBC_TUNABLES": "glibc.malloc.arena_max=2"})
    assert env == {"GLIBC_TUNABLES": f"glibc.malloc.arena_max=2:{TUNABLE}"}


@pytest.mark.parametrize(
    "env",
    [
        {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=0"},  # the user's choice stands
        {"GLIBC_TUNABLES": TUNABLE},  # set already: the re-executed command
        {huge_pages.SWITCH_ENV: "0"},
    ],
)
def test_tunable_left_alone(thp: None, env: dict[str, str]) -> None:
    assert with_huge_pages(env) is None


def test_no_tunable_without_transparent_huge_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(huge_pages, "THP_MODE", Path("/nonexistent/enabled"))
    assert with_huge_pages({}) is None


def test_this_machines_mode_is_read() -> None:
    mode = huge_pages.THP_MODE
    if not mode.exists():
        pytest.skip(f"no {mode} here")
    assert huge_pages._available() == ("[never]" not in mode.read_text())


def test_large_kernel_reports(tmp_path: Path) -> None:
    assert is_large_kernel_report(str(LARGE))
    assert not is_large_kernel_report(str(SMALL))
    assert not is_large_kernel_report(str(tmp_path))  # a folder
    assert not is_large_kernel_report(str(tmp_path / "missing.ncu-rep"))
    assert not is_large_kernel_report("-o")
    text = tmp_path / "big.txt"
    text.write_bytes(b"x" * (huge_pages.LARGE_BYTES + 1))  # large, but not a kernel report
    assert not is_large_kernel_report(str(text))
    fifo = tmp_path / "pipe.ncu-rep"
    os.mkfifo(fifo)
    assert not is_large_kernel_report(str(fifo))  # (and does not block opening it)


def test_reexec_for_a_large_report(thp: None, execs: list, monkeypatch) -> None:
    monkeypatch.delenv("GLIBC_TUNABLES", raising=False)
    with pytest.raises(Reexec):
        reexec_for(["summary", str(LARGE)])
    path, args, env = execs[0]
    assert path == sys.executable
    assert args == list(sys.orig_argv)
    assert env["GLIBC_TUNABLES"] == TUNABLE


def test_no_reexec_for_a_small_report(thp: None, execs: list) -> None:
    reexec_for(["summary", str(SMALL)])
    assert execs == []


def test_main_called_in_process_never_reexecutes(thp: None, execs: list, capsys) -> None:
    assert main(["summary", str(LARGE)]) == 0
    assert execs == []
    assert "1000 kernels" in capsys.readouterr().out.replace(",", "")


def test_the_program_reexecutes_for_a_large_report(thp: None, execs: list, monkeypatch,
                                                   capsys) -> None:
    monkeypatch.delenv("GLIBC_TUNABLES", raising=False)
    monkeypatch.setattr(sys, "argv", ["kernelscope", "summary", str(LARGE)])
    assert entry() == 0  # (execve, faked here, raised: the command ran on in this process)
    assert len(execs) == 1 and execs[0][2]["GLIBC_TUNABLES"] == TUNABLE
    assert "1000 kernels" in capsys.readouterr().out.replace(",", "")


def test_the_program_runs_a_small_report_as_it_is(thp: None, execs: list, monkeypatch) -> None:
    monkeypatch.setattr(sys, "argv", ["kernelscope", "summary", str(SMALL)])
    assert entry() == 0
    assert execs == []


def test_the_reexecuted_command_prints_the_same() -> None:
    """The console entry re-executes itself for a large report; what it prints is what the
    command prints without huge pages."""
    cmd = [sys.executable, "-m", "kernelscope", "summary", str(LARGE)]
    env = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"}
    plain = subprocess.run(cmd, capture_output=True, text=True, check=False,
                           env={**env, huge_pages.SWITCH_ENV: "0"})
    huge = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    assert plain.returncode == huge.returncode == 0, huge.stderr
    assert huge.stdout == plain.stdout
    assert huge.stderr == plain.stderr == ""
