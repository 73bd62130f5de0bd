"""What the app shell holds for the open report: a session of the report's kind, and the
screens it shows.

The app (``kernelscope.tui.app``) knows no kind of report. Once it knows the kind of its
inputs, it makes the kind's session (``KindSpec.session``) with itself as the host, calls
``start()`` and asks the session what the help lists (the key tables of the kind). A session
keeps the state its screens share (the open report, what has loaded) and hands it to
each screen when it makes it; it shows its first screen with ``host.show_main_screen``.

What ``e`` exports and ``y`` copies is the business of the screen shown: a
:class:`ReportScreen` says it itself, from the state it was made with, so a screen reused
inside another kind (a kernel or a timeline inside a join) exports what it exports alone.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, cast

from textual.screen import Screen
from textual.worker import get_current_worker

from kernelscope.core.options import OpenOptions
from kernelscope.ui.palette import Command

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode
    from textual.worker import Worker

HelpSections = tuple[tuple[str, tuple["type[DOMNode]", ...]], ...]


@dataclass(frozen=True)
class SessionOptions(OpenOptions):
    """How the app was asked to open its inputs (the one options object,
    ``core.options.OpenOptions``), and the kernel list's columns."""

    extra_columns: Sequence[Any] | None = None
    """Kernel-list columns to show instead of the registered extra ones (kernel reports)."""


@dataclass(frozen=True)
class ExportJob:
    """What ``e`` writes: a scope of the open report (a kernel, the report, a timeline) and the
    file it goes to; ``item`` names the scope's item (a kernel's ID), if any."""

    scope: str
    target: Path
    item: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "target", self.target.with_name(fit_name(self.target.name)))


NAME_MAX = 255
"""The most bytes a file name may take (ext4, XFS, APFS, NTFS in UTF-16 units)."""
KEPT_TAIL = 40
"""The characters a shortened name keeps from its end (what the export is: ``.kernel12.md``)."""


def fit_name(name: str, limit: int = NAME_MAX) -> str:
    """``name`` if the file system takes it, else its start and end joined by ``…`` within
    ``limit`` bytes (an export of a report whose own name is already near the limit)."""
    def size(text: str) -> int:
        return len(os.fsencode(text))

    if size(name) <= limit:
        return name
    tail = name[-KEPT_TAIL:]
    head = name[:-KEPT_TAIL]
    while head and size(head) + size("…") + size(tail) > limit:
        head = head[:-1]
    return f"{head}…{tail}"


def report_stem(path: Path) -> str:
    """``run.ncu-rep.xz`` → ``run``: the stem an export's file name starts with (without a
    compression's ending, then the endings the kinds register, ``KindSpec.suffixes``)."""
    from kernelscope.kinds import suffixes

    name = path.name
    for suffix in (".xz", ".gz", *suffixes()):
        name = name.removesuffix(suffix)
    return name or "report"


class SessionHost(Protocol):
    """What a session may ask of the app that holds it."""

    def show_main_screen(self, screen: Screen[Any]) -> None: ...

    def show_error(self, message: str, *, fatal: bool) -> None: ...

    def worker_failed(self, event: Worker.StateChanged) -> None: ...

    def show_step(self, text: str) -> None:
        """Say which step opening is on (while the loading screen shows)."""


class ReportSession(Protocol):
    """A kind's session of an open report, as the app uses it."""

    @property
    def help_sections(self) -> HelpSections:
        """Whose keys the help lists after the app's (title, classes); a session may name
        its screens only when asked (help is opened), so that they load after its first."""

    def start(self) -> None:
        """Begin opening (in workers) and show the first screen; called on the UI thread."""

    def close(self) -> None: ...


OpenedT = TypeVar("OpenedT")


class OpeningSession(ABC, Generic[OpenedT]):
    """A session that opens its inputs in one thread worker of the app while the loading
    screen shows: the steps it reports show there (:meth:`step`), closing the app cancels it
    (:meth:`cancelled`), a failure goes to the host like any worker's (fatal while nothing is
    shown), and what it opened reaches the UI thread once, in :meth:`opened` (after anything
    handed on with :meth:`show_soon`, in order)."""

    def __init__(self, app: App[Any], paths: Sequence[Path], options: SessionOptions) -> None:
        self.app = app
        self.host = cast(SessionHost, app)
        self.paths = tuple(Path(p) for p in paths)
        self.options = options
        self._worker: Worker[None] | None = None

    def start(self) -> None:
        self._worker = self.app.run_worker(
            self._open, thread=True, exclusive=True, exit_on_error=False, group="open")

    def _open(self) -> None:
        self._worker = get_current_worker()
        opened = self.open()
        if not self.cancelled():
            self.show_soon(self.opened, opened)  # after what the worker handed on before

    def cancelled(self) -> bool:
        """Whether the opening worker was cancelled (the app is closing)."""
        return self._worker is not None and self._worker.is_cancelled

    def step(self, text: str) -> None:
        """Show ``text`` as the step opening is on (called in the worker)."""
        self.app.call_from_thread(self.host.show_step, text)

    def show_soon(self, callback: Callable[..., object], *args: object) -> None:
        """Have the UI thread call ``callback(*args)`` without waiting for it (from the
        worker: a first part of what it opens, while it goes on reading)."""
        self.app.call_later(callback, *args)

    @abstractmethod
    def open(self) -> OpenedT:
        """Open the inputs (in the worker)."""

    @abstractmethod
    def opened(self, opened: OpenedT) -> None:
        """Show what :meth:`open` returned (on the UI thread)."""


ResultT = TypeVar("ResultT")


class ReportScreen(Screen[ResultT]):
    """A screen of an open report that says what ``e`` exports, ``y`` copies and ``?`` shows
    while it is shown (by default: nothing, nothing, the app's help). It gets what it shows when
    it is made; its palette commands are its ``COMMANDS``."""

    def can_export(self) -> bool:
        """Whether ``e`` has something to write now (cheap: asked to draw the footer)."""
        return False

    def export_job(self, directory: Path) -> ExportJob:
        """The scope shown and the file in ``directory`` it goes to."""
        raise RuntimeError("this screen has nothing to export")

    def render_export(self, job: ExportJob) -> str:
        """The Markdown of ``job`` (called in a thread worker)."""
        raise RuntimeError("this screen has nothing to export")

    def can_copy(self) -> bool:
        """Whether ``y`` has something to copy now (cheap: asked to draw the footer)."""
        return False

    def copy_text(self) -> tuple[str, str]:
        """(text for the clipboard, what it is: ``kernel 4's record (12,345 characters)``);
        called in a thread worker."""
        raise RuntimeError("this screen has nothing to copy")

    def palette_commands(self) -> Iterable[Command]:
        """What the command palette offers on this screen besides its providers' own (the
        providers of its ``COMMANDS`` that ask, such as the kernel screens')."""
        return ()

    def help_page(self) -> str | None:
        """What ``?`` shows over this screen (Markdown); None: the app's help, with the keys
        of the open report's kind."""
        return None


def worker_failed(node: DOMNode, event: Worker.StateChanged) -> None:
    """Let the app turn a failed worker of ``node`` (a screen) into an error screen."""
    cast("SessionHost", node.app).worker_failed(event)
