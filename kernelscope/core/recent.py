"""A cache that keeps the most recently used entries, up to a size."""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class RecentCache(Generic[K, V]):
    """Up to ``size`` entries; using one (``get``) makes it the most recent, adding one past the
    size drops the least recent. Not locked: callers that share it across threads lock."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        """The entry, now the most recent (None when absent)."""
        found = self._items.get(key)
        if found is not None:
            self._items.move_to_end(key)
        return found

    def peek(self, key: K) -> V | None:
        """The entry, leaving the order as it is (None when absent)."""
        return self._items.get(key)

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` as the most recent entry, dropping the least recent past the size."""
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def clear(self) -> None:
        self._items.clear()


__all__ = ["RecentCache"]
