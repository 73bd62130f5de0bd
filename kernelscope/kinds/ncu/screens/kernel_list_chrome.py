"""The kernel list's chrome: its loading bar and its footer, mounted once the list is complete
or a while after its first rows (a part of ``KernelListScreen``, kept apart so each module
stays readable)."""

from __future__ import annotations

from textual.timer import Timer

CHROME_DELAY_S = 1.0
"""The loading bar and the footer are mounted once the list is complete (and drawn), or this
long after its first rows while it still loads (a long load shows its bar and keys from then
on): mounting them while a thousand-launch list loaded took the UI thread ~0.025 s of CPU (the
footer's keys composed, the screen laid out and drawn again) before the list was complete,
and a list complete by then needs no bar at all."""


class ListChrome:
    """The loading bar and the footer of the kernel list (mixed into ``KernelListScreen``,
    which gives it ``done``, ``_show_progress`` and the screen's own methods)."""

    _chrome_mounted = False
    _chrome_timer: Timer | None = None

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
        """The footer, and the loading bar while the list still loads."""
        if self._chrome_mounted:
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
