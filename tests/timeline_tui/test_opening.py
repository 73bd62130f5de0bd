"""Opening: progress while a .nsys-rep is exported (through a fake nsys), cancelling, and every
bad input ending on the app's error screen with the model's one sentence."""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
from pathlib import Path

import pytest
from textual.message import Message
from textual.pilot import Pilot

from kernelscope.core.errors import ReportError
from kernelscope.kinds.nsys.model.opener import open_report
from kernelscope.timeline.screens.timeline import TimelineScreen
from kernelscope.ui.tabbed import OpenProgress
from tests.processes import ended_within

from .conftest import ZOO_REP_XZ, ZOO_SQLITE_XZ
from .helpers import (
    drawn,
    error_message,
    flat,
    make_app,
    static_text,
    wait_until_open,
)


def model_sentence(path: Path, cache_dir: Path) -> str:
    with pytest.raises(ReportError) as info:
        open_report(path, cache_dir=cache_dir)
    return str(info.value)


def one_sentence(text: str) -> None:
    assert text.endswith(".") and "\n" not in text, text


async def test_nsys_rep_is_exported_then_shown(fake_nsys: Path, cache_dir: Path) -> None:
    app = make_app(ZOO_REP_XZ, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        screen = app.screen
        assert isinstance(screen, TimelineScreen), getattr(screen, "message", screen)
        assert screen.data is not None
        assert screen.data.report.kernels.height == 63
        assert "zoo.nsys-rep.xz" in static_text(app, "#tl-title")
    exports = [p for p in cache_dir.iterdir() if p.suffix == ".sqlite"]
    assert len(exports) == 1, list(cache_dir.iterdir())


class ProgressSeen:
    """A message hook for ``run_test``: ``wait()`` returns once the screen has been sent an
    ``OpenProgress`` whose text holds ``words`` (posted by the opening worker)."""

    def __init__(self, words: str) -> None:
        self.words = words
        self.event = asyncio.Event()

    def __call__(self, message: Message) -> None:
        if isinstance(message, OpenProgress) and self.words in message.text:
            self.event.set()

    async def wait(self, pilot: Pilot[object]) -> None:
        await asyncio.wait_for(self.event.wait(), 60)  # a bound for a broken export only
        await drawn(pilot)  # the screen handles it


async def test_export_progress_then_cancel(
    fake_nsys: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_NSYS_MODE", "slow")
    exporting = ProgressSeen("Exporting zoo.nsys-rep.xz to SQLite with nsys")
    app = make_app(ZOO_REP_XZ, cache_dir)
    async with app.run_test(size=(120, 36), message_hook=exporting) as pilot:
        await exporting.wait(pilot)
        assert isinstance(app.screen, TimelineScreen)
        assert "Exporting zoo.nsys-rep.xz to SQLite with nsys" in flat(
            static_text(app, "#tl-progress-text"))
        assert "c or escape" in static_text(app, "#tl-cancel-hint")
        await pilot.press("c")
        await wait_until_open(pilot)
        message = error_message(app)
        assert message == "Exporting zoo.nsys-rep.xz to SQLite was cancelled."
        one_sentence(message)
    # Nothing half-written is left in the cache.
    assert not [p for p in cache_dir.rglob("*") if p.is_file()]


async def test_escape_cancels_too(
    fake_nsys: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_NSYS_MODE", "slow")
    exporting = ProgressSeen("Exporting")
    app = make_app(ZOO_REP_XZ, cache_dir)
    async with app.run_test(size=(80, 24), message_hook=exporting) as pilot:
        await exporting.wait(pilot)
        assert "Exporting" in static_text(app, "#tl-progress-text")
        await pilot.press("escape")
        await wait_until_open(pilot)
        assert "cancelled" in error_message(app)


async def written_pid(fifo_fd: int) -> int:
    """The pid the fake nsys writes into the FIFO ``fifo_fd`` reads, once it writes it (the
    event loop wakes on the write; the bound is for a fake that never starts)."""
    loop = asyncio.get_running_loop()
    written: asyncio.Future[None] = loop.create_future()
    loop.add_reader(fifo_fd, lambda: written.done() or written.set_result(None))
    try:
        await asyncio.wait_for(written, 60)
    finally:
        loop.remove_reader(fifo_fd)
    return int(os.read(fifo_fd, 64))


async def test_quitting_mid_export_stops_nsys(
    fake_nsys: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fifo = tmp_path / "nsys.pid"
    os.mkfifo(fifo)
    fifo_fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # (so the fake's open does not wait)
    monkeypatch.setenv("FAKE_NSYS_MODE", "slow")
    monkeypatch.setenv("FAKE_NSYS_PIDFILE", str(fifo))
    app = make_app(ZOO_REP_XZ, cache_dir)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            pid = await written_pid(fifo_fd)  # nsys runs
            await pilot.press("q")
    finally:
        os.close(fifo_fd)
    assert ended_within(pid, 60), f"the fake nsys (pid {pid}) is still running"


async def test_export_failure(
    fake_nsys: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("FAKE_NSYS_MODE", "fail")
    expected = model_sentence(ZOO_REP_XZ, tmp_path / "other-cache")
    assert "nsys export failed" in expected
    app = make_app(ZOO_REP_XZ, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        assert error_message(app) == expected
        one_sentence(expected)
        assert "nsys export failed" in flat(static_text(app, "#error-message"))


async def test_nsys_rep_without_nsys(no_nsys: None, cache_dir: Path, tmp_path: Path) -> None:
    expected = model_sentence(ZOO_REP_XZ, tmp_path / "other-cache")
    app = make_app(ZOO_REP_XZ, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        assert error_message(app) == expected
        assert "nsys" in expected and "export it by hand" in expected


async def test_sqlite_that_is_not_an_nsys_export(tmp_path: Path, cache_dir: Path) -> None:
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE orders (id INTEGER, total REAL)")
    expected = model_sentence(path, cache_dir)
    app = make_app(path, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        assert error_message(app) == expected
        one_sentence(expected)
        assert "not an Nsight Systems export" in expected


async def test_random_bytes(tmp_path: Path, cache_dir: Path) -> None:
    path = tmp_path / "trace.sqlite"
    path.write_bytes(random.Random(4096).randbytes(4096))
    app = make_app(path, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        message = error_message(app)
        one_sentence(message)
        assert path.name in message


async def test_truncated_sqlite(tmp_path: Path, cache_dir: Path) -> None:
    import lzma

    path = tmp_path / "cut.sqlite"
    path.write_bytes(lzma.decompress(ZOO_SQLITE_XZ.read_bytes())[:20_000])
    app = make_app(path, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        one_sentence(error_message(app))
