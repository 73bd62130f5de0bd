"""The base of the screens that show a report in tabs: the kernel detail (its panes), the
timeline (its views) and the ranks (their views).

:class:`TabbedScreen` knows its ``TabbedContent`` and the order of its tabs: number keys show
one, ``tab``/``shift+tab`` step through them (wrapping around). :class:`OpeningScreen` is a
tabbed screen that reads its report itself, in one thread worker, with one progress panel, one
cancel (``c``/``escape``) and one error path: a failure while it opens ends on the error screen
(fatal when it is the app's main screen; over another screen it closes and says why), a later
failure goes to the app like any worker's. The views are mounted once the report is read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import ClassVar, cast

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static, TabbedContent
from textual.worker import Worker, WorkerState, get_current_worker

from kernelscope.ui.error import error_text
from kernelscope.ui.session import ReportScreen, ResultT, SessionHost, worker_failed
from kernelscope.ui.widgets.footer import Footer
from kernelscope.ui.widgets.opening import ProgressThrottle, opening_panel, show_progress


class TabbedScreen(ReportScreen[ResultT]):
    """A screen whose content is one ``TabbedContent`` (``#TABS``) of tabs ``TAB_IDS``."""

    TABS: ClassVar[str] = ""
    TAB_IDS: ClassVar[tuple[str, ...]] = ()

    @property
    def tab_box(self) -> TabbedContent:
        return self.query_one(f"#{self.TABS}", TabbedContent)

    @property
    def active_tab(self) -> str:
        return self.tab_box.active or self.TAB_IDS[0]

    def show_tab(self, tab_id: str) -> None:
        """Make ``tab_id`` the active tab."""
        self.tab_box.active = tab_id

    def neighbour_tab(self, step: int) -> str:
        """The tab ``step`` tabs away from the active one (wrapping around)."""
        position = self.TAB_IDS.index(self.active_tab)
        return self.TAB_IDS[(position + step) % len(self.TAB_IDS)]


def view_bindings(scope: str, views: Iterable[tuple[str, str, str]]) -> list[Binding]:
    """The keys of an opening screen's views (``views``: id, title, what the view shows):
    ``1``, ``2``, … show one (``show_view``), ``tab``/``shift+tab`` step through them
    (``step_view``); ids ``SCOPE.view-ID``, ``SCOPE.next-view`` and ``SCOPE.prev-view``."""
    return [
        *(Binding(str(number), f"show_view('{view_id}')", title, show=False,
                  id=f"{scope}.view-{view_id}", tooltip=f"Show view {number}: {shows}")
          for number, (view_id, title, shows) in enumerate(views, start=1)),
        Binding("tab", "step_view(1)", "Next view", show=False, id=f"{scope}.next-view",
                tooltip="Show the next view."),
        Binding("shift+tab", "step_view(-1)", "Previous view", show=False,
                id=f"{scope}.prev-view", tooltip="Show the previous view."),
    ]


def views_help_binding(scope: str) -> Binding:
    """``?``/``f1`` on a screen of views: the app's help (id ``SCOPE.help``)."""
    return Binding("question_mark,f1", "app.help", "Help", id=f"{scope}.help",
                   tooltip="Show the help: what each view shows and every key.")


class OpenProgress(Message):
    """How far opening got; only the latest one waiting in the queue is kept."""

    def __init__(self, text: str, fraction: float | None) -> None:
        super().__init__()
        self.text = text
        self.fraction = fraction

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, OpenProgress)


class OpeningScreen(TabbedScreen[ResultT]):
    """A tabbed screen that reads its report in a worker (``#PREFIX-…`` panel meanwhile)."""

    PREFIX: ClassVar[str] = ""

    def __init__(self, *, id: str, over_another: bool = False) -> None:
        """``over_another``: pushed over another screen (a rank's timeline over the run, a
        join's timeline over the ranking), so a failure to open goes back there instead of
        ending the app."""
        super().__init__(id=id)
        self.over_another = over_another
        self.opening = True
        self._cancel = threading.Event()
        self._throttle = ProgressThrottle()

    def compose_opening(self, title: str, text: str) -> ComposeResult:
        """The screen while the report is read: ``title`` (``#PREFIX-title``), the opening
        panel (``text``: what is read) and the footer."""
        yield Static(title, id=f"{self.PREFIX}-title", classes="screen-title", markup=False)
        yield from opening_panel(self.PREFIX, text)
        yield Footer(compact=True)

    def on_unmount(self) -> None:
        self._cancel.set()

    # -- in the worker ---------------------------------------------------------------------
    def cancel_check(self) -> Callable[[], bool]:
        """Whether the user cancelled (``c``) or the screen or the app closed; make it in
        the worker (any thread may call it then)."""
        worker = get_current_worker()
        return lambda: self._cancel.is_set() or worker.is_cancelled

    def progress(self, text: str, fraction: float | None) -> None:
        """Post (not too often) how far opening got, for the UI thread to show."""
        if self._throttle.due(fraction):
            self.post_message(OpenProgress(text, fraction))

    def step(self, text: str) -> None:
        """Post a step of unknown length, always."""
        self.post_message(OpenProgress(text, None))

    # -- on the UI thread ------------------------------------------------------------------
    @on(OpenProgress)
    def _show_progress(self, event: OpenProgress) -> None:
        if self.opening:
            show_progress(self, self.PREFIX, event.text, event.fraction)

    async def show_views(self, views: Widget) -> None:
        """Replace the opening panel with ``views``."""
        self.opening = False
        await self.query_one(f"#{self.PREFIX}-loading-center").remove()
        await self.mount(views, before=self.query_one(Footer))

    def action_cancel(self) -> None:
        if self.opening:
            self._cancel.set()
            self.query_one(f"#{self.PREFIX}-progress-text", Static).update("Cancelling…")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is not WorkerState.ERROR or event.worker.error is None:
            return
        if not self.opening:
            worker_failed(self, event)
            return
        self.log.error(event.worker.error)
        self.fail(error_text(event.worker.error))

    def fail(self, message: str) -> None:
        """Opening failed: say ``message`` (one sentence) instead of this screen."""
        self.opening = False
        host = cast(SessionHost, self.app)
        if self.over_another:
            if self.is_current:
                self.dismiss()  # back to the screen it was pushed over, with the message
            host.show_error(message, fatal=False)
        else:
            host.show_error(message, fatal=True)
