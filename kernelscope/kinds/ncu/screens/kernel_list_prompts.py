"""The kernel list's prompts: the regex filter and the jump to a kernel ID, and its commands
in the palette (a part of ``KernelListScreen``, kept apart so each module stays readable)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from textual.timer import Timer
from textual.widgets import Input

from kernelscope.ui.palette import Command

INSTANT_FILTER_ROWS = 500
"""Up to this many kernels the filter follows every keystroke; beyond, it waits for a pause."""
FILTER_DELAY = 0.25


class ListPrompts:
    """The filter and jump prompts of the kernel list (mixed into ``KernelListScreen``, which
    gives it ``state``, ``rows``, ``columns``, ``pattern``, ``table``, ``view``, ``rebuild``,
    ``resort``, ``set_sort``, ``rebuild_families``, ``action_toggle_families`` and
    ``_message``)."""

    input_mode: str | None = None
    _filter_timer: Timer | None = None

    def palette_commands(self) -> Iterator[Command]:
        for column in self.columns:
            yield Command(f"Sort kernels by {column.title}",
                          partial(self._sort_and_show, column.key), column.tooltip)
        if self.pattern is not None:
            yield Command("Clear the kernel filter", self.action_clear_filter)
        yield Command("Filter kernels by name (regex)", self.action_filter)

    def _sort_and_show(self, key: str) -> None:
        self.set_sort(key)
        self.resort()

    def _open_input(self, mode: str, value: str, placeholder: str) -> None:
        self.input_mode = mode
        restrict = r"[0-9]*" if mode == "jump" else None
        shown = self.query("#list-input")
        if shown:
            field = shown.first(Input)
            field.restrict = restrict
            field.placeholder = placeholder
            field.value = value
            field.cursor_position = len(value)
            field.display = True
        else:  # the first prompt: the list's first paint comes without the input line
            field = Input(value, placeholder, restrict=restrict, id="list-input",
                          select_on_focus=False)
            self.mount(field, before="#list-message")
        field.focus()
        self.refresh_bindings()

    def _close_input(self) -> None:
        self.input_mode = None
        self.query_one("#list-input", Input).display = False
        self.table.focus()
        self.refresh_bindings()

    def action_filter(self) -> None:
        self._open_input("filter", self.rows.filter_text,
                         "regex on the name, bottleneck or flag ids, e.g. gemm|dram")

    def action_jump(self) -> None:
        self._open_input("jump", "", "kernel ID, then enter")

    def action_clear_filter(self) -> None:
        self._cancel_filter_timer()
        mode = self.input_mode
        if mode is not None:
            self._close_input()
        if mode != "jump":
            self.set_filter("")
        self._message()

    def set_filter(self, text: str) -> bool:
        """Filter by the regex ``text``; False (and a message) when it does not compile."""
        try:
            self.rows.set_filter(text)
        except re.error as exc:
            self._message(f"Invalid regular expression: {exc}", "bold red")
            return False
        self._message()
        self.rebuild()
        if self.view == "families":
            self.rebuild_families()
        self.refresh_bindings()
        return True

    def filter_typed(self, value: str) -> None:
        """The filter prompt changed: filter now (a short list) or once typing pauses."""
        if self.input_mode != "filter":
            return
        self._cancel_filter_timer()
        if len(self.state.summaries) <= INSTANT_FILTER_ROWS:
            self.set_filter(value)
        else:  # a long list: filter once typing pauses
            self._filter_timer = self.set_timer(
                FILTER_DELAY, lambda: self.set_filter(value)
            )

    def prompt_submitted(self, value: str) -> None:
        """Enter in the prompt: jump to the ID typed, or filter at once."""
        mode = self.input_mode
        self._close_input()
        if mode == "jump" and value:
            self.jump_to(int(value))
        elif mode == "filter" and self._cancel_filter_timer():
            self.set_filter(value)

    def _cancel_filter_timer(self) -> bool:
        """Stop a pending delayed filter; True if there was one."""
        timer, self._filter_timer = self._filter_timer, None
        if timer is not None:
            timer.stop()
        return timer is not None

    def jump_to(self, kernel_id: int) -> bool:
        """Highlight kernel ``kernel_id`` (clearing a filter that hides it; from the family
        view, in the launch list)."""
        if self.view == "families" and self.state.summary(kernel_id) is not None:
            self.action_toggle_families()
        if self.state.summary(kernel_id) is None:
            count = len(self.state.summaries)
            self._message(f"No kernel with ID {kernel_id} (IDs are 0–{count - 1}).", "bold red")
            return False
        if kernel_id not in self.rows.index:
            self.set_filter("")
        self.table.move_cursor(row=self.rows.index[kernel_id], animate=False)
        self._message()
        return True
