"""Command-palette commands (ctrl+p) whose offer depends on what is on screen.

Kernels are offered by ID and name once they are loaded; panes only on a kernel's detail;
"clear filter" only when the list is filtered. A screen of another engineer (timeline,
roofline) adds its own commands with its own ``Provider`` in its ``COMMANDS``.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from kernelscope.parsers.ncu.panes import PANES
from kernelscope.screens.kernel_detail import KernelDetailScreen
from kernelscope.screens.kernel_list import KernelListScreen
from kernelscope.screens.kernel_state import KernelReportScreen, KernelState
from kernelscope.screens.palette import Command, matching_hits

MAX_KERNEL_HITS = 200
MAX_ID_HITS = 20


class KernelscopeCommands(Provider):
    """Kernel jumps, pane switches, sorting, filtering and help."""

    @property
    def state(self) -> KernelState | None:
        """The kernel report of the screen the palette was opened on (None: another screen,
        such as the help)."""
        screen = self.screen
        return screen.state if isinstance(screen, KernelReportScreen) else None

    def _commands(self) -> Iterator[Command]:
        screen = self.screen
        if isinstance(screen, KernelDetailScreen):
            for spec in PANES:
                yield Command(
                    f"Pane {spec.key}: {spec.title}", partial(screen.action_show_pane, spec.id),
                    f"Show the {spec.title} pane of this kernel.",
                )
            yield Command("Next kernel (n)", screen.action_next_kernel,
                          "The next kernel in the list's order, same pane.")
            yield Command("Previous kernel (p)", screen.action_prev_kernel,
                          "The previous kernel in the list's order, same pane.")
            yield Command("Back to the kernel list", screen.action_back)
        if isinstance(screen, KernelListScreen):
            for column in screen.columns:
                yield Command(
                    f"Sort kernels by {column.title}",
                    partial(self._sort, screen, column.key),
                    column.tooltip,
                )
            if screen.pattern is not None:
                yield Command("Clear the kernel filter", screen.action_clear_filter)
            yield Command("Filter kernels by name (regex)", screen.action_filter)

    @staticmethod
    def _sort(screen: KernelListScreen, key: str) -> None:
        screen.set_sort(key)
        screen.resort()

    def _kernel_commands(self) -> Iterator[Command]:
        state = self.state
        if state is None:
            return
        for summary in state.summaries:
            name = state.short_name(summary)
            yield Command(
                f"Kernel {summary.id}: {name}",
                partial(state.open_kernel, summary.id),
                "Open this kernel's detail.",
            )

    async def discover(self) -> Hits:
        for command in self._commands():
            yield DiscoveryHit(command.text, command.run, help=command.help)

    def _kernel_text(self, state: KernelState, kernel_id: int) -> str:
        summary = state.summary(kernel_id)
        name = state.short_name(summary) if summary else ""
        return f"Kernel {kernel_id}: {name}"

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for hit in matching_hits(matcher, self._commands()):
            yield hit
        digits = query.strip().removeprefix("#")
        state = self.state
        if digits.isdigit() and state is not None:
            # An ID: the kernel with it first, then IDs that start with the digits.
            wanted = int(digits)
            ids = [wanted] if state.summary(wanted) is not None else []
            ids += [s.id for s in state.summaries
                    if s.id != wanted and str(s.id).startswith(digits)][:MAX_ID_HITS]
            for rank, kernel_id in enumerate(ids):
                text = self._kernel_text(state, kernel_id)
                yield Hit(1.0 if rank == 0 and kernel_id == wanted else 0.8 - rank / 1000,
                          text, partial(state.open_kernel, kernel_id), text=text,
                          help="Open this kernel's detail.")
            return
        for hit in matching_hits(
            matcher, self._kernel_commands(), weight=0.9, limit=MAX_KERNEL_HITS
        ):
            yield hit
