"""`e` writes the current scope as Markdown into the working directory (asking before it
replaces a file); `y` copies the current kernel's record to the clipboard."""

from __future__ import annotations

from pathlib import Path

from kernelscope.export.writer import ExportOptions, render
from kernelscope.kinds.ncu.screens.kernel_detail import KernelDetailScreen
from kernelscope.tui.app import create_app
from kernelscope.ui.confirm import ConfirmScreen

from .helpers import notifications, settle

ROOT = Path(__file__).resolve().parents[2]
ZOO = ROOT / "samples" / "ncu" / "zoo_a.ncu-rep.xz"
SMALL = ROOT / "samples" / "ncu" / "small_family.ncu-rep.xz"
TIMELINE = ROOT / "samples" / "nsys" / "zoo.sqlite.xz"


async def opened(pilot) -> None:  # type: ignore[no-untyped-def]
    """Wait for the report: its workers done and their messages handled."""
    await settle(pilot)
    session = pilot.app.session
    assert session is not None and session.loaded_all


async def open_kernel(pilot, kernel_id: int) -> KernelDetailScreen:  # type: ignore[no-untyped-def]
    await opened(pilot)
    await pilot.press("g", *str(kernel_id), "enter", "enter")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, KernelDetailScreen) and screen.detail is not None
    return screen


async def written(pilot, key: str) -> None:  # type: ignore[no-untyped-def]
    """Press ``key`` and wait for what it starts (the export's worker) to finish."""
    await pilot.press(key)
    await settle(pilot)


async def test_e_in_the_list_writes_the_whole_report(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    app = create_app(ZOO)
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(pilot)
        await written(pilot, "e")
        target = tmp_path / "zoo_a.kernelscope.md"
    assert target.read_text() == render(ZOO, ExportOptions(fmt="md"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["zoo_a.kernelscope.md"]


async def test_e_and_y_in_the_detail_write_and_copy_the_kernel(tmp_path, monkeypatch) -> None:
    """e writes the kernel's record (asking before it replaces a file); y copies it to the
    clipboard and writes nothing."""
    monkeypatch.chdir(tmp_path)
    app = create_app(ZOO)
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_kernel(pilot, 4)
        await written(pilot, "e")
        target = tmp_path / "zoo_a.kernel-4.md"
        text = target.read_text()
        assert text.count("## Kernel Profiling Case:") == 1
        assert "(ID 4)" in text and "shared-bank-conflict" in text
        target.write_text("mine")
        await written(pilot, "e")
        assert isinstance(app.screen, ConfirmScreen)
        await written(pilot, "n")
        assert target.read_text() == "mine"
        await written(pilot, "e")
        assert isinstance(app.screen, ConfirmScreen)
        await written(pilot, "y")
        assert target.read_text() == text
        assert not isinstance(app.screen, ConfirmScreen)
        await written(pilot, "y")  # on the detail: copy
    assert copied == [text]  # the record e wrote
    assert sorted(p.name for p in tmp_path.iterdir()) == ["zoo_a.kernel-4.md"]


async def test_e_in_the_timeline_writes_the_timeline(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    app = create_app(TIMELINE, cache_dir=tmp_path / "cache")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert getattr(app.screen, "data", None) is not None
        await written(pilot, "e")
        target = tmp_path / "zoo.timeline.md"
    assert target.read_text() == render(TIMELINE, ExportOptions(fmt="md"))


async def test_e_never_writes_over_an_input_through_a_link(tmp_path, monkeypatch) -> None:
    report = tmp_path / "small.ncu-rep.xz"
    report.write_bytes(SMALL.read_bytes())
    (tmp_path / "small.kernelscope.md").symlink_to(report)
    monkeypatch.chdir(tmp_path)
    app = create_app(report)
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(pilot)
        notes = notifications(app)
        await written(pilot, "e")
        assert not isinstance(app.screen, ConfirmScreen)
    assert notes == [
        f"Export failed: {tmp_path / 'small.kernelscope.md'} is an input of this command, so "
        "it is not written over; choose another output file."
    ]
    assert report.read_bytes() == SMALL.read_bytes()
