"""Fewer cyclic garbage collections while a report loads.

Loading a report makes many objects that live as long as the report (summaries, their
metrics, the list's cells) and little garbage. With Python's default thresholds the collector
runs every 700 allocations and now and then walks every object of the process (a full
collection): on a 1,000-kernel report that was ~0.2 s of CPU, under the GIL the loading thread
and the UI share. While loading, the youngest generation waits for ``YOUNG_THRESHOLD``
allocations and full collections wait for ``FULL_AFTER`` collections of the middle one; the
thresholds come back when the last load ends.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 20_000
FULL_AFTER = 100

_lock = threading.Lock()
_loads = 0
_saved: tuple[int, int, int] = gc.get_threshold()


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the collector's thresholds for the duration (thread-safe; nested or concurrent
    loads restore the thresholds the first one found when the last one ends)."""
    global _loads, _saved
    with _lock:
        if _loads == 0:
            _saved = gc.get_threshold()
            gc.set_threshold(max(YOUNG_THRESHOLD, _saved[0]), _saved[1],
                             max(FULL_AFTER, _saved[2]))
        _loads += 1
    try:
        yield
    finally:
        with _lock:
            _loads -= 1
            if _loads == 0:
                gc.set_threshold(*_saved)
