"""Opening: .sqlite / .nsys-rep (compressed or not), the export cache, and every bad input
gives one-sentence ReportError and writes nothing next to the report."""

from __future__ import annotations

import os
import random
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest

from kernelscope.core.errors import ReportError
from kernelscope.core.hooks import OpenCancelled
from kernelscope.kinds.nsys.model import locate
from kernelscope.kinds.nsys.model.locate import find_nsys
from kernelscope.kinds.nsys.model.opener import open_report
from tests.nsys import variants as V
from tests.nsys.oracle import NSYS_SAMPLES
from tests.processes import ended_within

FAKE_NSYS = """#!{python}
import os, shutil, sys, time
args = sys.argv[1:]
with open(os.environ["FAKE_NSYS_LOG"], "a") as log:
    log.write(" ".join(args) + "\\n")
mode = os.environ.get("FAKE_NSYS_MODE", "ok")
if mode == "fail":
    sys.stderr.write("Error: the report is damaged beyond repair\\n")
    sys.exit(3)
if mode == "slow":
    with open(os.environ["FAKE_NSYS_PIDFILE"], "w") as fh:  # (a FIFO the test reads)
        fh.write(str(os.getpid()))
    time.sleep(60)
out = args[args.index("--output") + 1]
report = args[-1]
with open(report, "rb") as fh:
    assert fh.read(28) == b"NVIDIA Tegra Profiler Report", "not an nsys-rep"
shutil.copyfile(os.environ["FAKE_NSYS_SQLITE"], out)
"""


def one_sentence(exc: BaseException) -> str:
    text = str(exc)
    assert text.endswith("."), text
    assert "\n" not in text, text
    return text


@pytest.fixture
def report_dir(tmp_path: Path) -> Path:
    """A directory holding only the report under test (checked unchanged after)."""
    d = tmp_path / "reports"
    d.mkdir()
    return d


def listing(d: Path) -> list[tuple[str, int]]:
    return sorted((p.name, p.stat().st_size) for p in d.iterdir())


@pytest.fixture
def fake_nsys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sample_sqlite) -> Path:
    """An ``nsys`` on PATH that 'exports' by copying the zoo SQLite (mode via env)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    exe = bindir / "nsys"
    exe.write_text(FAKE_NSYS.format(python=sys.executable))
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", str(bindir))
    monkeypatch.delenv("NSYS", raising=False)
    monkeypatch.setenv("FAKE_NSYS_LOG", str(tmp_path / "nsys.log"))
    monkeypatch.setenv("FAKE_NSYS_SQLITE", str(sample_sqlite("zoo")))
    return exe


def calls(tmp_path: Path) -> list[str]:
    log = tmp_path / "nsys.log"
    return log.read_text().splitlines() if log.exists() else []


@pytest.fixture
def nsys_rep(report_dir: Path) -> Path:
    target = report_dir / "zoo.nsys-rep.xz"
    shutil.copyfile(NSYS_SAMPLES / "zoo.nsys-rep.xz", target)
    return target


def test_sqlite_xz_opens_and_leaves_no_scratch(report_dir: Path, tmp_path: Path) -> None:
    src = report_dir / "zoo.sqlite.xz"
    shutil.copyfile(NSYS_SAMPLES / "zoo.sqlite.xz", src)
    before = listing(report_dir)
    cache = tmp_path / "cache"
    report = open_report(src, cache_dir=cache)
    assert report.kernels.height == 63
    assert report.sqlite_path is None  # the scratch copy is gone
    assert listing(report_dir) == before
    assert list(cache.iterdir()) == []


def test_plain_sqlite_opens_read_only(sample_sqlite) -> None:
    path = sample_sqlite("zoo")  # chmod 444 by the fixture
    before = listing(path.parent)
    report = open_report(path)
    assert report.sqlite_path == path
    assert listing(path.parent) == before


def test_nsys_rep_exported_once_then_cached(fake_nsys: Path, nsys_rep: Path,
                                            tmp_path: Path) -> None:
    before = listing(nsys_rep.parent)
    cache = tmp_path / "cache"
    seen: list[tuple[str, float | None]] = []
    first = open_report(nsys_rep, cache_dir=cache, progress=lambda m, f: seen.append((m, f)))
    assert first.kernels.height == 63
    assert len(calls(tmp_path)) == 1
    args = calls(tmp_path)[0].split()
    assert args[:4] == ["export", "--type", "sqlite", "--force-overwrite"]
    assert any(m.startswith("Decompressing") for m, _ in seen)
    assert any(m.startswith("Exporting") for m, _ in seen)
    second = open_report(nsys_rep, cache_dir=cache)
    assert second.kernels.height == 63
    assert len(calls(tmp_path)) == 1  # reused the cached export
    assert [p.suffix for p in cache.iterdir()] == [".sqlite"]  # no scratch, no partials
    assert listing(nsys_rep.parent) == before
    # Touching the report makes the cached export stale.
    os.utime(nsys_rep, ns=(time.time_ns(), time.time_ns() + 10**9))
    open_report(nsys_rep, cache_dir=cache)
    assert len(calls(tmp_path)) == 2


def test_xdg_cache_home_is_the_default_cache(fake_nsys: Path, nsys_rep: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    open_report(nsys_rep)
    assert len(list((tmp_path / "xdg" / "kernelscope").glob("*.sqlite"))) == 1


def test_no_nsys_found(nsys_rep: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(locate, "find_nsys", lambda env=None: None)
    before = listing(nsys_rep.parent)
    with pytest.raises(ReportError) as err:
        open_report(nsys_rep, cache_dir=tmp_path / "cache")
    text = one_sentence(err.value)
    assert "nsys export --type sqlite -o out.sqlite zoo.nsys-rep" in text
    assert listing(nsys_rep.parent) == before


def test_find_nsys_search_order(tmp_path: Path) -> None:
    exe = tmp_path / "custom" / "nsys"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    assert find_nsys({"NSYS": str(exe), "PATH": ""}) == exe
    assert find_nsys({"NSYS": str(exe.parent), "PATH": ""}) == exe
    assert find_nsys({"PATH": str(exe.parent)}) == exe


def test_unwritable_cache_dir(fake_nsys: Path, nsys_rep: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    before = listing(nsys_rep.parent)
    with pytest.raises(ReportError) as err:
        open_report(nsys_rep, cache_dir=blocker / "cache")
    assert "cache directory" in one_sentence(err.value)
    assert calls(tmp_path) == []
    assert listing(nsys_rep.parent) == before


def test_failing_nsys(fake_nsys: Path, nsys_rep: Path, tmp_path: Path,
                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_NSYS_MODE", "fail")
    cache = tmp_path / "cache"
    before = listing(nsys_rep.parent)
    with pytest.raises(ReportError) as err:
        open_report(nsys_rep, cache_dir=cache)
    text = one_sentence(err.value)
    assert "nsys export failed" in text and "damaged beyond repair" in text
    assert list(cache.iterdir()) == []  # no partial export, no log, no scratch
    assert listing(nsys_rep.parent) == before


def test_cancelled_export(fake_nsys: Path, nsys_rep: Path, tmp_path: Path,
                          monkeypatch: pytest.MonkeyPatch) -> None:
    fifo = tmp_path / "nsys.pid"
    os.mkfifo(fifo)
    monkeypatch.setenv("FAKE_NSYS_MODE", "slow")
    monkeypatch.setenv("FAKE_NSYS_PIDFILE", str(fifo))
    cache = tmp_path / "cache"
    cancel = threading.Event()
    pids: list[int] = []

    def cancel_once_nsys_runs() -> None:
        with open(fifo) as fh:  # (opens when the fake opens it to write)
            pids.append(int(fh.read()))
        cancel.set()

    watcher = threading.Thread(target=cancel_once_nsys_runs, daemon=True)
    watcher.start()
    with pytest.raises(OpenCancelled) as err:
        open_report(nsys_rep, cache_dir=cache, cancel=cancel)
    watcher.join(60)
    assert pids, "the fake nsys never started"
    assert ended_within(pids[0], 30), "nsys was waited for, not killed (the fake sleeps 60 s)"
    assert "cancelled" in one_sentence(err.value)
    assert list(cache.iterdir()) == []



def test_cancel_callable_during_decompression(report_dir: Path, tmp_path: Path) -> None:
    src = report_dir / "zoo.sqlite.xz"
    shutil.copyfile(NSYS_SAMPLES / "zoo.sqlite.xz", src)
    with pytest.raises(OpenCancelled):
        open_report(src, cache_dir=tmp_path / "cache", cancel=lambda: True)
    assert list((tmp_path / "cache").iterdir()) == []


@pytest.mark.parametrize(
    ("name", "content", "phrase"),
    [
        ("random.sqlite", random.Random(4096).randbytes(4096), "is not an"),
        ("notes.sqlite", b"just some text\n" * 10, "is not an"),
        ("empty.sqlite", b"", "is empty"),
        ("broken.sqlite.xz", b"\xfd7zXZ\x00" + b"garbage" * 20, "could not be decompressed"),
    ],
)
def test_bad_files(report_dir: Path, tmp_path: Path, name: str, content: bytes,
                   phrase: str) -> None:
    path = report_dir / name
    path.write_bytes(content)
    before = listing(report_dir)
    with pytest.raises(ReportError) as err:
        open_report(path, cache_dir=tmp_path / "cache")
    assert phrase in one_sentence(err.value)
    assert listing(report_dir) == before


def test_sqlite_that_is_not_nsys(report_dir: Path) -> None:
    path = V.not_nsys(report_dir / "people.sqlite")
    before = listing(report_dir)
    with pytest.raises(ReportError) as err:
        open_report(path)
    assert "not an Nsight Systems export" in one_sentence(err.value)
    assert listing(report_dir) == before


def test_truncated_sqlite(report_dir: Path, sample_sqlite) -> None:
    path = report_dir / "cut.sqlite"
    path.write_bytes(sample_sqlite("zoo").read_bytes()[:8192])
    before = listing(report_dir)
    with pytest.raises(ReportError) as err:
        open_report(path)
    one_sentence(err.value)
    assert listing(report_dir) == before


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ReportError) as err:
        open_report(tmp_path / "nope.sqlite")
    assert "no such file" in one_sentence(err.value)


def test_ncu_report_is_refused() -> None:
    ncu = Path(__file__).resolve().parents[2] / "samples" / "ncu" / "zoo_a.ncu-rep.xz"
    if not ncu.exists():
        pytest.skip("no ncu sample")
    with pytest.raises(ReportError) as err:
        open_report(ncu)
    assert "Nsight Compute" in one_sentence(err.value)


def test_cancel_while_reading_tables(sample_sqlite) -> None:
    calls_seen: list[int] = []

    def cancel() -> bool:
        calls_seen.append(1)
        return len(calls_seen) > 2  # let a couple of chunks through, then stop

    with pytest.raises(OpenCancelled) as err:
        open_report(sample_sqlite("zoo"), cancel=cancel)
    assert "cancelled" in one_sentence(err.value)


def test_gzip_sqlite(report_dir: Path, tmp_path: Path, sample_sqlite) -> None:
    import gzip

    path = report_dir / "zoo.sqlite.gz"
    path.write_bytes(gzip.compress(sample_sqlite("zoo").read_bytes()))
    before = listing(report_dir)
    assert open_report(path, cache_dir=tmp_path / "cache").kernels.height == 63
    assert listing(report_dir) == before


def test_nsys_env_variable_wins(fake_nsys: Path, nsys_rep: Path, tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    monkeypatch.setenv("NSYS", str(fake_nsys))
    assert open_report(nsys_rep, cache_dir=tmp_path / "cache").kernels.height == 63
    assert len(calls(tmp_path)) == 1
