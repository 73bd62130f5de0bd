"""A bounded memo: answers kept by key, all forgotten at once when it is full.

The readers and the diagnosis keep what launches repeat (a launch's shape, a grid's outcome,
a duration's text) in dicts that would otherwise grow with the report. Each keeps at most
``limit`` answers and clears itself when full (a report whose launches are all different
gains nothing from them, and the next answers are kept afresh). A ``Memo`` is a ``dict``, so
a look-up stays the C ``dict.get``; only a new answer goes through :meth:`Memo.keep`.
"""

from __future__ import annotations

from typing import TypeVar

_K = TypeVar("_K")
_V = TypeVar("_V")


class Memo(dict[_K, _V]):
    """A dict of at most ``limit`` answers (see the module)."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def keep(self, key: _K, answer: _V) -> _V:
        """Keep ``answer`` for ``key`` (forgetting every other answer when full) and return it."""
        if len(self) >= self.limit:
            self.clear()
        self[key] = answer
        return answer
