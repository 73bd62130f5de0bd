"""Helpers for the TUI tests: wait for the app to settle, read what the screen shows (or what
a pane's plain functions render)."""

from __future__ import annotations

import asyncio
import contextlib
import html
import io
import re
from collections.abc import Awaitable, Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from textual.app import App
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import DataTable, Input
from textual.worker import WorkerCancelled, WorkerFailed, WorkerState

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples"


def sample(*candidates: str) -> Path | None:
    """The first sample file that exists in the repository's samples/ (or shared/samples)."""
    shared = REPO.parent / "shared" / "samples"
    roots = [SAMPLES, shared, shared / "ncu"]
    for name in candidates:
        for root in roots:
            path = root / name
            if path.exists():
                return path
    return None


Items = Callable[[Iterable[int]], list[Any]]


def batches_by_hand(monkeypatch: Any, plan: Callable[[Any, Items], Iterator[list[Any]]]
                    ) -> None:
    """Open every kernel report with ``plan(report, items)`` as the batches its summaries
    arrive in: ``items(ids)`` reads those launches (with their analysis, when the list asks
    for one), so a test decides what each batch holds and when it comes (each batch is
    handed to the UI thread, however little CPU time reading it took)."""
    from kernelscope.kinds.ncu.screens import kernel_session

    monkeypatch.setattr(kernel_session, "UI_BATCH_CPU_S", 0.0)

    real_open = kernel_session.open_ncu_report

    def opened(path: Path, **kwargs: Any) -> Any:
        report = real_open(path, **kwargs)

        def batches(analyse: Any = None, **_: object) -> Iterator[list[Any]]:
            def items(ids: Iterable[int]) -> list[Any]:
                found = [report.summary(k) for k in ids]
                return found if analyse is None else [(f, analyse(f)) for f in found]

            yield from plan(report, items)

        report.iter_summaries = batches
        return report

    monkeypatch.setattr(kernel_session, "open_ncu_report", opened)


async def settle(pilot: Pilot[object], rounds: int = 3) -> None:
    """Wait until, for ``rounds`` rounds in a row, no worker is pending or running and
    nothing waits to be handled (``_queued``: a message, a ``call_next``, a call after the
    next draw), so what the workers posted is handled and drawn too, and what that draw set
    going (a widget's first Resize redrawing it at its width, a ``call_after_refresh``). A
    failed worker is the app's business: it shows an error screen. A worker a message has
    just asked for is pending until its task starts: it counts as busy, or a screen could be
    taken before a pane's worker began. A round is ``pending_done_now``: the messages queued
    are handled and the screen drawn, with no wait for the machine to look idle (each
    ``pilot.pause()`` slept at least 20 ms, up to 1 s while another thread ran)."""
    app = pilot.app
    idle = 0
    for _ in range(200):
        busy = False
        for worker in list(app.workers):
            if worker.state is WorkerState.PENDING:
                busy = True
            elif worker.state is WorkerState.RUNNING:
                busy = True
                with contextlib.suppress(WorkerFailed, WorkerCancelled):
                    await worker.wait()
        await pending_done_now(pilot)
        idle = 0 if busy or _queued(app) else idle + 1
        if idle >= rounds:
            return


async def kind_found(pilot: Pilot[object]) -> None:
    """Return once the app has found its inputs' kind and handed them to the kind's session
    (``start_session`` has returned): the session's first screen is up, while its own
    reading may still run."""
    app: Any = pilot.app
    if app.session is not None:
        return
    started = asyncio.Event()
    start_session = app.start_session

    def started_session(kind: Any) -> None:
        start_session(kind)
        started.set()

    app.start_session = started_session  # (the kind worker's message calls it as it is then)
    await asyncio.wait_for(started.wait(), Takes.WAIT_S)


class Takes:
    """Every time a kernel session takes the summaries its reading worker handed over
    (``KernelSession.take_arrived``, on the UI thread), and how many were waiting; a test
    awaits what those takes show instead of pausing until the app looks idle."""

    WAIT_S = 120
    """How long a test waits for a take: only a failed test ever waits that long."""

    def __init__(self, monkeypatch: Any) -> None:
        from kernelscope.kinds.ncu.screens.kernel_session import KernelSession

        self.sizes: list[int] = []
        self._taken = asyncio.Event()
        real = KernelSession.take_arrived

        def take_arrived(session: Any, limit: int | None = None) -> None:
            self.sizes.append(len(session._arrived))
            real(session, limit)
            self._taken.set()

        monkeypatch.setattr(KernelSession, "take_arrived", take_arrived)

    async def until(self, done: Callable[[], bool]) -> None:
        """Return once ``done()`` holds, checking it after each take."""
        while not done():
            self._taken.clear()
            await asyncio.wait_for(self._taken.wait(), self.WAIT_S)


def _table_sized(table: DataTable[object]) -> bool:
    """Whether a DataTable has measured its rows: its scrollable size is the one its rows
    and header make (it measures new rows only when its message queue runs empty, so a
    loaded machine can show a table rebuilt but not yet sized)."""
    if not table.columns:
        return True
    header = table.header_height if table.show_header else 0
    rows = sum(row.height for row in table.rows.values())
    width = sum(column.get_render_width(table) for column in table.columns.values())
    size = table.virtual_size
    return size.height == rows + header and size.width >= width


def tables_sized(app: App[object]) -> bool:
    """Whether every table of the current screen has measured its rows."""
    return all(_table_sized(table) for table in app.screen.query(DataTable))


SVG_CELL = 20 * 0.61
"""The width of a cell in rich's SVG export (20 px high characters, aspect ratio 0.61)."""
SVG_TEXT = re.compile(
    r'<text class="[^"]*" x="([0-9.]+)" y="[0-9.]+" textLength="[0-9.]+" '
    r'clip-path="url\(#[^)]*-line-([0-9]+)\)">(.*?)</text>'
)


async def pending_done_now(pilot: Pilot[Any]) -> None:
    """What ``pilot.pause()`` does, less its wait for the machine to look idle: every widget
    of the screen handles the messages queued for it (each is asked for a callback after
    them, and the test awaits those callbacks), then the screen is laid out and drawn at once
    (``Screen._on_timer_update``, what the update timer's next tick would do). A test reading
    the screen right after a change then reads what that change shows, however loaded the
    machine, with no wait that depends on time."""
    await pilot._wait_for_screen()
    pilot.app.screen._on_timer_update()


def _queued(app: App[Any]) -> bool:
    """Whether the app or a widget of its screen has work waiting: a message to handle, a
    call after its current message (``call_next``), a call after the screen's next draw
    (``call_after_refresh``)."""
    screen = app.screen
    return bool(screen._callbacks) or any(
        node.message_queue_size or node._next_callbacks
        for node in [app, *screen.walk_children(with_self=True)])


async def drawn(pilot: Pilot[Any], rounds: int = 200) -> None:
    """What ``pilot.pause()`` waited for, with no wait for the machine to look idle: rounds of
    ``pending_done_now`` (every widget handles the messages queued for it, the screen is laid
    out and drawn) until a round leaves nothing waiting, what the draw set going too (a
    Resize a new size sends, a ``call_after_refresh``). Bounded by ``rounds``: a blinking
    cursor's timer never stops."""
    app = pilot.app
    for _ in range(rounds):
        await pending_done_now(pilot)
        if not _queued(app):
            return


async def resized(pilot: Pilot[Any], width: int, height: int) -> None:
    """Resize the terminal and wait until the screen shows the new size: the app hands a
    terminal's Resize to its screen from a timer (``App._check_resize`` after 1/120 s, so a
    burst of them makes one layout), driven here at once; then ``drawn``."""
    await pilot.resize_terminal(width, height)
    if pilot.app._resize_timer is not None:
        pilot.app._check_resize()
    await drawn(pilot)


def screen_text(app: App[object]) -> str:
    """The text on the terminal right now (what a user would read), from the app's own
    screenshot (``App.export_screenshot``): each run of text at its line and column."""
    width, height = app.size
    runs: list[list[tuple[int, str]]] = [[] for _ in range(height)]
    for x, line, text in SVG_TEXT.findall(app.export_screenshot()):
        if int(line) < height:
            runs[int(line)].append((round(float(x) / SVG_CELL), html.unescape(text)))
    lines = []
    for row in runs:
        out, used = [], 0
        for column, text in sorted(row):
            out.append(" " * max(column - used, 0) + text.replace("\xa0", " "))
            used = max(used, column) + cell_len(text)
        lines.append("".join(out) + " " * max(width - used, 0))
    return "\n".join(lines)


def notifications(app: App[object]) -> list[str]:
    """A list that gets the message of every notification the app shows from now on."""
    seen: list[str] = []
    notify = app.notify

    def recording(message: str, *args: Any, **kwargs: Any) -> None:
        seen.append(message)
        notify(message, *args, **kwargs)

    app.notify = recording  # type: ignore[method-assign]
    return seen


def rendered(parts: Iterable[RenderableType], width: int) -> str:
    """The text ``parts`` show one under the other in ``width`` columns (as a Static of that
    width draws them), each line without its trailing blanks: a pane's content read from the
    plain functions that build it, without an app."""
    console = Console(width=width, file=io.StringIO(), color_system=None, record=True)
    console.print(Group(*parts))
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


def widget_text(widget: Widget) -> str:
    """All the text a widget and its shown descendants render, including what is scrolled
    out of view (children top to bottom; side-by-side children one after the other)."""
    children = [child for child in widget.children if child.display]
    if children:
        return "\n".join(widget_text(child) for child in children)
    width, height = widget.size
    lines = widget.render_lines(Region(0, 0, width, height))
    return "\n".join(strip.text.rstrip() for strip in lines)


def keys(*presses: str) -> Callable[[Pilot[object]], Awaitable[None]]:
    """Wait for the report, press ``presses`` (settling after each: a Raw or Source pane's
    worker done and its message handled), wait again; every table then has its widths."""

    async def run(pilot: Pilot[object]) -> None:
        await settle(pilot)
        for key in presses:
            await pilot.press(key)
            await settle(pilot)
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False
        await settle(pilot)
        assert tables_sized(pilot.app), "a table drawn before it measured its rows"

    return run
