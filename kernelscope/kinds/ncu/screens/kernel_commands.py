"""The kernel-report screens' base, and their command-palette commands (ctrl+p).

A :class:`KernelReportScreen` (the kernel list, the detail, the roofline) is made with the
report's state; ``e`` on it exports the whole report once every kernel is loaded. Its palette
offers the report's kernels by ID and name once they are loaded, and what the screen itself
offers (``palette_commands``: the detail's panes, the list's sorts and filter).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path

from textual.command import DiscoveryHit, Hit, Hits, Provider

from kernelscope.kinds.ncu.screens.kernel_state import KernelState
from kernelscope.ui.palette import Command, matching_hits
from kernelscope.ui.session import ExportJob, ReportScreen, ResultT

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
        if isinstance(screen, ReportScreen):
            yield from screen.palette_commands()

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


class KernelReportScreen(ReportScreen[ResultT]):
    """A screen of a kernel report, made with its state; ``e`` exports the whole report once
    every kernel is loaded; the palette jumps to its kernels."""

    COMMANDS = {KernelscopeCommands}

    def __init__(self, state: KernelState, *, id: str) -> None:
        super().__init__(id=id)
        self.state = state

    def can_export(self) -> bool:
        return self.state.loaded_all

    def export_job(self, directory: Path) -> ExportJob:
        return self.state.report_job(directory)

    def render_export(self, job: ExportJob) -> str:
        return self.state.render_job(job)
