"""The kernel list's chrome: its loading bar and its footer, mounted once the list is complete
or a while after its first rows (a part of ``KernelListScreen``, kept apart so each module
stays readable)."""

from __future__ import annotations

from collections.abc import Callable

from textual.events import Resize
from textual.timer import Timer

CHROME_DELAY_S = 1.0
"""The loading bar and the footer are mounted once the list is complete (and drawn), or this
long after its first rows while it still loads (a long load shows its bar and keys from then
on): mounting them while a thousand-launch list loaded took the UI thread ~0.025 s of CPU (the
footer's keys composed, the screen laid out and drawn again) before the list was complete,
and a list complete by then needs no bar at all."""


class ListChrome:
    """The loading bar and the footer of the kernel list (mixed into ``KernelListScreen``,
    which gives it ``done``, ``_show_progress`` and the screen's own methods), and when the
    screen is first drawn. It reaches into Textual's screen (pinned: ``textual>=8.2.8,<9``)."""

    _chrome_mounted = False
    _chrome_timer: Timer | None = None
    _frame_shown = False
    _when_drawn: list[Callable[[], object]] | None = None

    def when_drawn(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` on the UI thread once the screen is first drawn (at once if it
        is): as its first frame, with the list's first rows, goes to the terminal, not once
        the layouts after it are done too (``call_after_refresh`` waited for the screen's
        next update, a sixtieth of a second later: ~15 ms in which nothing ran)."""
        if self._frame_shown:
            callback()
            return
        if self._when_drawn is None:
            self._when_drawn = []
        self._when_drawn.append(callback)

    def _compositor_refresh(self) -> None:
        super()._compositor_refresh()  # type: ignore[misc]
        if not self._frame_shown and self.is_active:
            self._frame_shown = True
            for callback in self._when_drawn or ():
                callback()
            self._when_drawn = None

    def laid_out_already(self, event: Resize) -> None:
        """Leave out the Resize a screen sends itself once it is first laid out, of the size
        it is laid out at: Textual's ``Screen._on_resize`` would lay the screen out and draw
        it again (~5 ms of the UI thread while the list's first rows show); this screen has
        no breakpoints for it to apply. A Resize of another size goes on as ever."""
        if event.size == self._compositor.size:
            event.stop()
            event.prevent_default()

    def mount_chrome_later(self) -> None:
        """On mount: the chrome after the first paint if the list is complete already, else
        once it is (``chrome_when_complete``) or ``CHROME_DELAY_S`` from now."""
        if self.done:
            self.call_after_refresh(self._mount_chrome)
        else:
            self._chrome_timer = self.set_timer(CHROME_DELAY_S, self._mount_chrome)

    def chrome_when_complete(self) -> None:
        """The list is complete: the chrome comes after it is drawn, if it has not yet."""
        if not self._chrome_mounted:
            self.call_after_refresh(self._mount_chrome)

    async def _mount_chrome(self) -> None:
        """The footer, and the loading bar while the list still loads (not on a screen the
        closing app took down meanwhile: mounting there raised ``MountError``)."""
        if self._chrome_mounted or not self.is_attached:
            return
        self._chrome_mounted = True
        if self._chrome_timer is not None:
            self._chrome_timer.stop()
        from kernelscope.ui.widgets.footer import Footer

        if not self.done:
            from textual.widgets import ProgressBar

            bar = ProgressBar(id="load-progress", show_eta=False)
            self.query_one("#list-progress").mount(bar, before="#progress-text")
        self.query_one("#footer-space").remove()
        await self.mount(Footer(compact=True))  # every key of the list within 120 columns
        self.refresh_bindings()  # (a footer composes its keys when the bindings are told)
        self._show_progress()
