"""What the command-palette providers share: a plain command and its fuzzy-matched hits."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from textual.command import Hit
from textual.fuzzy import Matcher


class Command(NamedTuple):
    """A command of the palette: its text, what it runs and its help line."""

    text: str
    run: Callable[[], object]
    help: str = ""


def matching_hits(
    matcher: Matcher, commands: Iterable[Command], *, weight: float = 1.0, limit: int | None = None
) -> Iterator[Hit]:
    """A hit for each command whose text matches, its score scaled by ``weight``."""
    hits = 0
    for command in commands:
        score = matcher.match(command.text)
        if score > 0:
            yield Hit(score * weight, matcher.highlight(command.text), command.run,
                      text=command.text, help=command.help)
            hits += 1
            if limit is not None and hits >= limit:
                return
