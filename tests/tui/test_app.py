"""The app around the screens: which screen a file gets, errors, help and the palette."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import pytest
from textual.screen import Screen
from textual.widgets import Input, TabbedContent

from kernelscope.kinds import KindSpec
from kernelscope.kinds.ncu.screens import kernel_session
from kernelscope.kinds.ncu.screens.kernel_detail import KernelDetailScreen
from kernelscope.kinds.ncu.screens.kernel_list import KernelListScreen
from kernelscope.tui import app as app_module
from kernelscope.tui.app import KernelscopeApp, create_app, default_report_path
from kernelscope.ui.error import ErrorScreen
from kernelscope.ui.help import HelpScreen
from kernelscope.ui.loading import LoadingScreen

from .helpers import SAMPLES, drawn, kind_found, screen_text, settle, widget_text


async def error_shown(path: Path) -> str:
    """Open ``path``; assert an error screen comes up and q quits; return its text."""
    app = create_app(path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert "Traceback" not in screen_text(app)
        text = widget_text(app.screen.query_one("#error-message"))
        await pilot.press("escape")  # nothing to go back to
        assert isinstance(app.screen, ErrorScreen)
        await pilot.press("q")
        assert not app.is_running
    # the same sentence as the exit's (status 2); the screen may fold a long path anywhere,
    # so the two are compared without their whitespace
    assert "".join((app.fatal_error or "").split()) == "".join(text.split())
    return " ".join(text.split())


def test_create_app_defaults_to_the_bundled_report(monkeypatch) -> None:
    monkeypatch.setattr(app_module, "default_report_path", default_report_path)
    app = create_app()
    assert isinstance(app, KernelscopeApp)
    assert app.report_path == default_report_path()
    assert app.report_path.exists()
    assert app.report_path.parent.name == "data" and app.report_path.parent.parent.name == (
        "kernelscope"
    )


async def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.ncu-rep"
    path.write_bytes(b"")
    assert "is empty, so it holds no report" in await error_shown(path)


async def test_random_bytes(tmp_path: Path) -> None:
    path = tmp_path / "noise.ncu-rep"
    path.write_bytes(random.Random(4096).randbytes(4096))
    assert "is not an Nsight Compute (.ncu-rep)" in await error_shown(path)


async def test_damaged_kernel_report(tmp_path: Path) -> None:
    path = tmp_path / "damaged.ncu-rep"
    path.write_bytes(b"NVR\x00" + random.Random(4096).randbytes(4096))
    assert "damaged" in await error_shown(path)


async def test_missing_path(tmp_path: Path) -> None:
    assert "no such file" in await error_shown(tmp_path / "nowhere.ncu-rep")


async def test_directory(tmp_path: Path) -> None:
    # A directory opens as the ranks of a run (docs/ranks.md); one without traces is refused.
    assert "holds no Nsight Systems or PyTorch profiler traces" in await error_shown(tmp_path)


@pytest.mark.parametrize("name", ["zoo.nsys-rep.xz", "zoo.sqlite.xz"])
async def test_timeline_reports_go_to_the_timeline(name: str, monkeypatch) -> None:
    path = SAMPLES / "nsys" / name
    if not path.exists():
        pytest.skip(f"no sample {path}")
    from kernelscope.timeline.screens.timeline import TimelineScreen

    calls: list[str] = []
    real = KernelscopeApp.start_session

    def spy(self: KernelscopeApp, kind: KindSpec) -> None:
        calls.append(kind.name)
        real(self, kind)

    monkeypatch.setattr(KernelscopeApp, "start_session", spy)
    app = create_app(path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert calls == ["nsys"]
        if isinstance(app.screen, ErrorScreen):
            # e.g. an .nsys-rep where no nsys is installed to export it: one sentence.
            message = widget_text(app.screen.query_one("#error-message"))
            assert "nsys" in message and "Traceback" not in message
        else:
            assert isinstance(app.screen, TimelineScreen)


async def test_unexpected_worker_error_is_one_line(monkeypatch) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("boom\nsecond line of detail")

    monkeypatch.setattr(kernel_session, "open_ncu_report", broken)
    text = await error_shown(app_module.default_report_path())
    assert "Unexpected error (RuntimeError: boom); set KERNELSCOPE_DEBUG=1" in text
    assert "second line" not in text


def test_the_tui_says_the_one_sentence_and_the_traceback_when_asked(monkeypatch) -> None:
    from kernelscope.core.errors import DEBUG_ENV, ReportError, unexpected_sentence
    from kernelscope.ui.error import error_text

    try:
        raise RuntimeError("boom\nsecond line")
    except RuntimeError as exc:
        error = exc
    monkeypatch.delenv(DEBUG_ENV, raising=False)
    assert error_text(error) == unexpected_sentence(error)
    assert error_text(ReportError("Bad input.")) == "Bad input."
    monkeypatch.setenv(DEBUG_ENV, "1")
    shown = error_text(error)
    assert shown.startswith(unexpected_sentence(error) + "\n\nTraceback (most recent call last)")
    assert error_text(ReportError("Bad input.")) == "Bad input."


async def test_error_in_a_detail_worker_can_be_dismissed(monkeypatch) -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.session.report is not None

        def broken(kernel_id: int) -> None:
            raise ValueError(f"cannot read kernel {kernel_id}")

        monkeypatch.setattr(app.session.report, "detail", broken)
        monkeypatch.setattr(app.session.report, "cached_detail", lambda _kernel_id: None)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        message = widget_text(app.screen.query_one("#error-message"))
        assert "Unexpected error (ValueError: cannot read kernel 0); set KERNELSCOPE" in message
        await pilot.press("escape")
        assert isinstance(app.screen, KernelDetailScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, KernelListScreen)


async def test_help_lists_every_key_and_the_filter_takes_a_question_mark() -> None:
    """? opens the help (every key of the list and the detail), escape closes it, F1 opens
    it too; in the filter field ? is typed, not the help."""
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        markdown = app.screen.markdown
        for screen_type in (KernelListScreen, KernelDetailScreen):
            for binding in screen_type.BINDINGS:
                assert binding.description in markdown, binding
        for words in ("Go to ID", "Next kernel", "Speed Of Light", "Commands", "`1`", "`n`"):
            assert words in markdown
        assert "Kernel list" in screen_text(app)
        await pilot.press("escape")
        assert isinstance(app.screen, KernelListScreen)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen) and app.screen.markdown == markdown
        await pilot.press("escape")
        assert isinstance(app.screen, KernelListScreen)
        await pilot.press("slash", "question_mark")
        assert not isinstance(app.screen, HelpScreen)
        assert app.screen.query_one(Input).value == "?"


async def test_palette_jumps_to_a_kernel_and_a_pane(zoo_rows) -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        target = zoo_rows[-1]
        await pilot.press("ctrl+p")
        await pilot.press(*str(target["id"]))
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, KernelDetailScreen)
        assert screen.kernel_id == target["id"]
        await pilot.press("ctrl+p")
        await pilot.press(*"pane 5")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert screen.query_one(TabbedContent).active == "stalls"
        # From the detail, a kernel jump stays in the detail and keeps the pane.
        await pilot.press("ctrl+p")
        await pilot.press(*f"kernel {zoo_rows[0]['id']}:")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen and screen.kernel_id == zoo_rows[0]["id"]
        assert screen.query_one(TabbedContent).active == "stalls"


@pytest.fixture
def held_open(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Opening the kernel report waits until the test sets this event (the timeout only frees
    a failed test)."""
    gate = threading.Event()
    real_open = kernel_session.open_ncu_report

    def held(path: Path, **kwargs: object) -> object:
        gate.wait(120)
        return real_open(path, **kwargs)

    monkeypatch.setattr(kernel_session, "open_ncu_report", held)
    return gate


async def test_help_opened_while_loading_gives_way_to_the_list(held_open: threading.Event) -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await kind_found(pilot)  # opening is held: the list is not ready
        app.show_loading()  # what the LOADING_DELAY_S timer calls
        await drawn(pilot)
        assert isinstance(app.screen, LoadingScreen)
        assert f"Opening {app.report_path.name}" in screen_text(app)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        held_open.set()
        await settle(pilot)
        assert isinstance(app.screen, KernelListScreen)
        assert len(app.screen_stack) == 2


async def test_a_step_shows_the_loading_screen_at_once(held_open: threading.Event) -> None:
    """A session that says which step it is on is slow enough for the loading screen: it
    shows with the step, without waiting for LOADING_DELAY_S (the report's first screen
    replaces it as ever)."""
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        app.show_step("Decompressing the report")
        await drawn(pilot)
        assert isinstance(app.screen, LoadingScreen)
        assert "Decompressing the report…" in screen_text(app)
        held_open.set()
        await settle(pilot)
        assert isinstance(app.screen, KernelListScreen)
        assert len(app.screen_stack) == 2


async def test_the_blank_base_is_drawn_only_once_a_screen_covered_it(
        held_open: threading.Event, monkeypatch: pytest.MonkeyPatch) -> None:
    """The terminal's first frame is the report's first screen, not the blank base under it;
    once a screen has covered the base (help, here, opened while the report opens), the base
    draws again when it shows (or help's last frame would stay on the terminal)."""
    drawn_screens: list[Screen[object]] = []
    real = Screen._compositor_refresh

    def compositor_refresh(screen: Screen[object]) -> None:
        drawn_screens.append(screen)
        real(screen)

    monkeypatch.setattr(Screen, "_compositor_refresh", compositor_refresh)
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await kind_found(pilot)  # opening is held: the base is the screen
        base = app.screen
        assert isinstance(base, app_module.BaseScreen) and base is app.screen_stack[0]
        await pilot.pause()
        assert base not in drawn_screens
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await drawn(pilot)
        assert app.screen is base and base in drawn_screens
        held_open.set()
        await settle(pilot)
        assert isinstance(app.screen, KernelListScreen)
