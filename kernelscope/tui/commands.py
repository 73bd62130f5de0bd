"""The app's own command-palette commands (each screen adds its own in its ``COMMANDS``)."""

from __future__ import annotations

from collections.abc import Iterator

from textual.command import DiscoveryHit, Hits, Provider

from kernelscope.ui.palette import Command, matching_hits


class AppCommands(Provider):
    """Help, on every screen."""

    def _commands(self) -> Iterator[Command]:
        yield Command("Help: show every key", self.app.action_help, "Open the help (? or F1).")

    async def discover(self) -> Hits:
        for command in self._commands():
            yield DiscoveryHit(command.text, command.run, help=command.help)

    async def search(self, query: str) -> Hits:
        for hit in matching_hits(self.matcher(query), self._commands()):
            yield hit
