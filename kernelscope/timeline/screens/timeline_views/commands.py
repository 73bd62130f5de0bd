"""Command-palette commands of the timeline screen: views, gaps, kernels on the timeline."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Protocol, cast

from textual.command import DiscoveryHit, Hits, Provider

from kernelscope.core.durations import fmt_ns
from kernelscope.core.kernel_names import fit_name
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.analysis.timeline_view import Gap
from kernelscope.timeline.screens.timeline_views import VIEWS
from kernelscope.ui.palette import Command, matching_hits

MAX_HITS = 200


class TimelineActions(Protocol):
    """What the commands ask of the timeline screen (whose ``COMMANDS`` they are)."""

    data: TimelineData | None

    def action_show_view(self, view_id: str, remember: bool = True) -> None: ...

    def timeline_reset(self) -> None: ...

    def timeline_gap(self, direction: int) -> None: ...

    def can_export(self) -> bool: ...

    def show_gap(self, gap: Gap) -> None: ...

    def show_kernel(self, name: str) -> None: ...


class TimelineCommands(Provider):
    """Offered only once the report is open."""

    @property
    def timeline(self) -> TimelineActions | None:
        screen = cast(TimelineActions, self.screen)
        return screen if getattr(screen, "data", None) is not None else None

    def _commands(self) -> Iterator[Command]:
        screen = self.timeline
        if screen is None:
            return
        for number, spec in enumerate(VIEWS, start=1):
            yield Command(f"View {number}: {spec.title}",
                          partial(screen.action_show_view, spec.id), spec.tooltip)
        yield Command("Timeline: show the whole run", screen.timeline_reset,
                      "Zoom the timeline out to the whole report.")
        yield Command("Timeline: next large gap", partial(screen.timeline_gap, 1),
                      "Jump to the next large GPU idle gap and explain it.")
        yield Command("Timeline: previous large gap", partial(screen.timeline_gap, -1),
                      "Jump to the previous large GPU idle gap and explain it.")
        if screen.can_export():
            yield Command("Export the report", partial(self.app.run_action, "app.export"),
                          "Write the analysis to a file.")

    def _item_commands(self) -> Iterator[Command]:
        screen = self.timeline
        if screen is None or screen.data is None:
            return
        data = screen.data
        longest = sorted(data.large_gaps, key=lambda g: -g.duration_ns)[:MAX_HITS]
        for gap in longest:
            explanation = data.explanation(gap)
            cause = f" ({explanation.cause})" if explanation is not None else ""
            yield Command(
                f"Gap: GPU {gap.device} idle {fmt_ns(gap.duration_ns)} at "
                f"{fmt_ns(gap.start_ns - data.start_ns)}{cause}",
                partial(screen.show_gap, gap), "Open this gap on the timeline.",
            )
        for name in data.kernels["Name"].head(MAX_HITS).to_list():
            yield Command(f"Kernel on the timeline: {fit_name(data.short_name(str(name)), 60)}",
                          partial(screen.show_kernel, str(name)),
                          "Show every instance of this kernel on the timeline.")

    async def discover(self) -> Hits:
        for command in self._commands():
            yield DiscoveryHit(command.text, command.run, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for hit in matching_hits(matcher, self._commands()):
            yield hit
        for hit in matching_hits(matcher, self._item_commands(), weight=0.9):
            yield hit
