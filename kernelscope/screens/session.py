"""What the app shell holds for the open report: a session of the report's kind.

The app (``kernelscope.tui.app``) knows no kind of report. Once it knows the kind of its
inputs, it makes the kind's session (``KindSpec.session``) with itself as the host, calls
``start()`` and, from then on, asks the session what the help lists, which palette commands
there are, what ``e`` exports and what ``y`` copies. A session keeps the state its screens share
(the open report, what has loaded) and shows its first screen with ``host.show_main_screen``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from kernelscope.core.options import OpenOptions

if TYPE_CHECKING:
    from textual.command import Provider
    from textual.dom import DOMNode
    from textual.screen import Screen
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


def report_stem(path: Path) -> str:
    """``run.ncu-rep.xz`` → ``run``: the stem an export's file name starts with."""
    name = path.name
    for suffix in (".xz", ".gz", ".ncu-rep", ".nsys-rep", ".sqlite"):
        name = name.removesuffix(suffix)
    return name or "report"


class SessionHost(Protocol):
    """What a session may ask of the app that holds it."""

    def show_main_screen(self, screen: Screen[Any]) -> None: ...

    def show_error(self, message: str, *, fatal: bool) -> None: ...

    def worker_failed(self, event: Worker.StateChanged) -> None: ...


class ReportSession(Protocol):
    """A kind's session of an open report, as the app uses it."""

    help_sections: HelpSections
    """Whose keys the help lists after the app's (title, classes)."""
    commands: frozenset[type[Provider]]
    """Command-palette providers offered while the report is open (besides the screens')."""

    def start(self) -> None:
        """Begin opening (in workers) and show the first screen; called on the UI thread."""

    def can_export(self, screen: Screen[Any]) -> bool: ...

    def export_job(self, screen: Screen[Any], directory: Path) -> ExportJob: ...

    def render_export(self, job: ExportJob, screen: Screen[Any]) -> str:
        """The Markdown of ``job`` (called in a thread worker)."""

    def can_copy(self, screen: Screen[Any]) -> bool: ...

    def copy_text(self, screen: Screen[Any]) -> tuple[str, str]:
        """(text for the clipboard, what it is: ``kernel 4's record (12,345 characters)``);
        called in a thread worker."""

    def close(self) -> None: ...


def session_of(node: DOMNode) -> Any:
    """The session of the app ``node`` belongs to (the app holds it as ``session``)."""
    return getattr(node.app, "session", None)


def worker_failed(node: DOMNode, event: Worker.StateChanged) -> None:
    """Let the app turn a failed worker of ``node`` (a screen) into an error screen."""
    cast("SessionHost", node.app).worker_failed(event)
