"""The kernelscope app: finds the kind of its inputs in a worker and hands the report to that
kind's session, which shows its screens.

The app knows no kind of report: the registry (``kernelscope.kinds``) says which kind the
inputs are and which session shows it; the session says what the help lists, and the screen
shown says what ``e`` exports and what ``y`` copies (``screens.session.ReportScreen``).
``create_app`` builds the app for the CLI and the tests alike.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import App
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from kernelscope.kinds import KindSpec, as_paths, kind_for
from kernelscope.tui.commands import AppCommands
from kernelscope.ui.collection import started
from kernelscope.ui.keys import key_table
from kernelscope.ui.session import ExportJob, ReportScreen, ReportSession, SessionOptions

# The help, error and loading screens and the bundled sample are imported where they are
# used: a report's first screen comes without them.

LOADING_DELAY_S = 0.3
"""The loading screen shows only once opening has taken this long (or a session says which
step it is on): a report whose first screen is ready sooner is not preceded by a loading
screen for a moment, whose compose and paint cost as much CPU as the list's first rows
(~0.05 s), then gives way at once."""


def default_report_path() -> Path:
    """The sample report bundled with kernelscope (opened when no report is given)."""
    from kernelscope.core.bundled import bundled_sample_path

    return bundled_sample_path()


class BaseScreen(Screen[None]):
    """The app's blank base, under every screen of the report. It is not drawn until a screen
    has covered it once (the report's first screen, the loading screen after
    ``LOADING_DELAY_S``, an error, help): the terminal's first frame is that screen's, not a
    blank one drawn before it (~5 ms of the UI thread's CPU, taken from the worker that reads
    the list's first rows). From then on it draws as any screen (when help opened over it
    closes, say). It reaches into Textual's screen (pinned: ``textual>=8.2.8,<9``)."""

    covered = False

    def on_screen_suspend(self) -> None:
        self.covered = True

    def _compositor_refresh(self) -> None:
        if self.covered:
            super()._compositor_refresh()


class KindFound(Message):
    """The inputs' kind is known: its session takes over."""

    def __init__(self, kind: KindSpec) -> None:
        super().__init__()
        self.kind = kind


class KernelscopeApp(App[None]):
    """Opens ``report_path`` (or the ``inputs`` of a kind's ``subcommand``) and shows it with
    its kind's session; anything it cannot open gets an error screen with one sentence."""

    TITLE = "kernelscope"
    CSS_PATH = "styles.tcss"
    COMMANDS = App.COMMANDS | {AppCommands}
    BINDINGS = key_table("app", (
        ("q", "quit", "Quit", "quit", True, "Quit kernelscope."),
        ("question_mark,f1", "help", "Help", "help", True,
         "Show this help: every key, and what each pane shows."),
        ("e", "export", "Export", "export", True,
         "Write what is shown (this kernel, the report or the timeline) as Markdown into the "
         "working directory."),
        ("y", "copy_record", "Copy record", "copy", True,
         "Send this kernel's case record (Markdown) to the terminal's clipboard (OSC 52: works "
         "over SSH where the terminal allows it; in tmux set -g set-clipboard on); e writes it "
         "to a file."),
    ))

    def __init__(
        self,
        report_path: Path | Sequence[Path],
        *,
        subcommand: str | None = None,
        options: SessionOptions | None = None,
    ) -> None:
        super().__init__()
        self.inputs = as_paths(report_path)
        self.report_path = self.inputs[0]
        self.subcommand = subcommand
        self.options = options if options is not None else SessionOptions()
        self.session: ReportSession | None = None
        self._main_shown = False
        self._loading_timer: Timer | None = None
        self.fatal_error: str | None = None
        """The sentence of the fatal error screen shown, if any (the CLI exits with 2)."""

    def get_default_screen(self) -> Screen[Any]:
        return BaseScreen(id="_default")

    # -- opening ---------------------------------------------------------------------------
    def on_mount(self) -> None:
        self._loading_timer = self.set_timer(LOADING_DELAY_S, self.show_loading)
        self.find_kind()

    def show_loading(self) -> None:
        """Show the loading screen, unless a screen of the report (or an error) already is."""
        if self._loading_timer is not None:
            self._loading_timer.stop()
            self._loading_timer = None
        started()  # (a slow opening runs with collections, in the command's process too)
        if len(self.screen_stack) == 1:  # (help opened meanwhile: it stays above)
            from kernelscope.ui.loading import LoadingScreen

            self.push_screen(LoadingScreen(self.report_path))

    @work(thread=True, exit_on_error=False, group="kind")
    def find_kind(self) -> None:
        """Read the inputs' first bytes: which kind of report they are."""
        self.post_message(KindFound(kind_for(self.inputs, self.subcommand)))

    @on(KindFound)
    def _kind_found(self, event: KindFound) -> None:
        self.start_session(event.kind)

    def start_session(self, kind: KindSpec) -> None:
        """Hand the inputs to ``kind``'s session, which opens them and shows its screens."""
        session: ReportSession = kind.part("session")(self, self.inputs, self.options)
        self.session = session
        session.start()

    # -- screens and errors ----------------------------------------------------------------
    def show_error(self, message: str, *, fatal: bool) -> None:
        """Show ``message``; a fatal one replaces the current screen (only q is left)."""
        from kernelscope.ui.error import ErrorScreen

        screen = ErrorScreen(message, fatal=fatal)
        if fatal:
            self.show_main_screen(screen)
            self._main_shown = False
        else:
            self.push_screen(screen)

    def show_step(self, text: str) -> None:
        """Say which step opening is on (while the loading screen shows)."""
        if self._loading_timer is not None:  # a step of its own: opening takes a while
            self.show_loading()
        from kernelscope.ui.loading import LoadingScreen

        if isinstance(self.screen, LoadingScreen):
            self.screen.show_step(text)

    def show_main_screen(self, screen: Screen[Any]) -> None:
        """Make ``screen`` the one screen above the app's base (closing help or the palette
        opened meanwhile), replacing the loading screen if it shows."""
        if self._loading_timer is not None:
            self._loading_timer.stop()
            self._loading_timer = None
        started()  # (collections resume, in the command's process)
        self._main_shown = True  # (an error screen: False again, ``show_error``)
        while len(self.screen_stack) > 2:
            self.pop_screen()
        if len(self.screen_stack) == 2:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def worker_failed(self, event: Worker.StateChanged) -> None:
        """Turn a failed worker (of the app, a session or a screen) into an error screen:
        fatal while nothing of the report is shown."""
        if event.state is not WorkerState.ERROR or event.worker.error is None:
            return
        from kernelscope.ui.error import error_text

        self.log.error(event.worker.error)
        self.show_error(error_text(event.worker.error), fatal=not self._main_shown)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.worker_failed(event)

    def on_unmount(self) -> None:
        self.workers.cancel_all()
        if self.session is not None:
            with contextlib.suppress(Exception):
                self.session.close()

    # -- actions ---------------------------------------------------------------------------
    def action_help(self) -> None:
        """The help the current screen declares, else the app's with the kind's keys."""
        from kernelscope.ui.help import HelpScreen

        screen = self.screen
        if isinstance(screen, HelpScreen):
            return
        page = screen.help_page() if isinstance(screen, ReportScreen) else None
        self.push_screen(HelpScreen(page if page is not None else self._app_help()))

    def _app_help(self) -> str:
        from kernelscope.ui.help import bindings_of, everywhere, help_markdown

        sections = everywhere(self)
        listed = self.session.help_sections if self.session is not None else ()
        known = {cls for _, classes in listed for cls in classes}
        current = type(self.screen)
        if current not in known and self.screen is not self.screen_stack[0]:  # (the blank base)
            sections.append((getattr(current, "HELP_TITLE", current.__name__), current.BINDINGS))
        sections += bindings_of(listed)
        return help_markdown(self, sections)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        from kernelscope.tui.exporting import copying_screen, exporting_screen

        if action == "copy_record":
            return copying_screen(self.screen) is not None
        if action == "export":
            return exporting_screen(self.screen) is not None
        return True

    def action_export(self) -> None:
        """Export the current scope to a file in the working directory (asks before replacing)."""
        from kernelscope.core.errors import ReportError
        from kernelscope.export.writer import check_not_an_input
        from kernelscope.tui.exporting import exporting_screen
        from kernelscope.ui.confirm import ConfirmScreen

        screen = exporting_screen(self.screen)
        if screen is None:
            return
        job = screen.export_job(Path.cwd())
        try:
            check_not_an_input(job.target, self.inputs)
        except ReportError as exc:
            self.notify(f"Export failed: {exc}", severity="error")
            return
        try:
            exists = job.target.exists()
        except OSError as exc:  # a folder name too long, a loop of links
            self.notify(f"Export failed: {job.target.name} cannot be written "
                        f"({exc.strerror or exc}).", severity="error")
            return
        if not exists:
            self._export(job, screen)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._export(job, screen)

        self.push_screen(ConfirmScreen(f"{job.target.name} exists. Replace it?"), answered)

    @work(thread=True, exclusive=True, exit_on_error=False, group="export")
    def _export(self, job: ExportJob, screen: ReportScreen[Any]) -> None:
        from kernelscope.export.writer import write_text
        from kernelscope.ui.error import error_text

        self.call_from_thread(self.notify, f"Exporting to {job.target.name}…", timeout=2)
        try:
            write_text(screen.render_export(job), job.target, inputs=self.inputs)
        except Exception as exc:  # one sentence, never a traceback
            self.call_from_thread(
                self.notify, f"Export failed: {error_text(exc)}", severity="error"
            )
            return
        self.call_from_thread(self.notify, f"Wrote {job.target}", title="Exported")

    def action_copy_record(self) -> None:
        """Copy what the current screen offers to the clipboard."""
        from kernelscope.tui.exporting import copying_screen

        screen = copying_screen(self.screen)
        if screen is not None:
            self._copy(screen)

    @work(thread=True, exclusive=True, exit_on_error=False, group="export")
    def _copy(self, screen: ReportScreen[Any]) -> None:
        from kernelscope.tui.exporting import export_job

        text, what = screen.copy_text()
        self.call_from_thread(self.copy_to_clipboard, text)
        job = export_job(screen, Path.cwd())
        note = clipboard_note(what, os.environ, job.target.name if job is not None else None)
        self.call_from_thread(self.notify, note, title="Sent with OSC 52", timeout=12)


def clipboard_note(what: str, environ: Mapping[str, str], file_name: str | None) -> str:
    """What ``y`` can honestly say: the text was sent to the terminal as an OSC 52 escape,
    which the terminal may drop (tmux does by default); how to let it through, and how to
    write the record to a file instead."""
    parts = [f"Sent {what} to the terminal's clipboard (OSC 52); it cannot tell whether "
             "the terminal took it."]
    if environ.get("TMUX"):
        parts.append("In tmux, enable it with: set -g set-clipboard on (in ~/.tmux.conf).")
    elif environ.get("STY"):
        parts.append("GNU screen does not pass OSC 52 on: run kernelscope outside it.")
    else:
        parts.append("Not pasted? Enable OSC 52 clipboard access in your terminal (in tmux: "
                     "set -g set-clipboard on).")
    if file_name is not None:
        parts.append(f"Or press e to write it to {file_name}.")
    return " ".join(parts)


def create_app(
    report: Path | Sequence[Path] | None = None,
    *,
    cache_dir: Path | None = None,
    extra_columns: Sequence[Any] | None = None,
    subcommand: str | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    pattern: str | None = None,
    pairs: Sequence[tuple[str, str]] = (),
) -> KernelscopeApp:
    """The app for ``report`` (the bundled sample when None; several paths for a kind that
    claims ``subcommand``), used by the CLI and the tests.

    ``cache_dir`` is handed to the session (converted Nsight Systems exports);
    ``extra_columns`` (a kernel report's list columns) replaces the registered extra ones
    for this app (the kind reads it from ``SessionOptions``);
    ``workers``/``scheduler`` say where a kind of many inputs (per-rank traces) reduces them.
    ``pattern`` and ``pairs`` choose and pair the kernels of a diff.
    """
    inputs = report if report is not None else default_report_path()
    options = SessionOptions(cache_dir=cache_dir, extra_columns=extra_columns, workers=workers,
                             scheduler=scheduler, pattern=pattern, pairs=tuple(pairs))
    return KernelscopeApp(inputs, subcommand=subcommand, options=options)
