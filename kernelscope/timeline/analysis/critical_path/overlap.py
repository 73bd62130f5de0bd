"""A Python pass on a thread of its own while the caller's thread does polars work.

A pass over the replay's events is Python and holds the interpreter's lock; polars gives the
lock up while it computes, so the two run at once on two cores. The thread that asks polars
for the next result waits for the lock after each query, for as long as the other thread
keeps it: the interpreter's switch interval (5 ms by default), which, times the many small
queries of a path's sums, would take back what the overlap gives. The interval is shortened
while the pass runs. What either thread computes does not depend on the other's timing, so
every result stays the same.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")

SWITCH_S = 0.0002
"""The switch interval while a pass runs beside polars work: a query's result waits at most
about this long for the lock."""


@contextmanager
def beside(work: Callable[[], T]) -> Iterator[Future[T]]:
    """``work()`` run on a thread of its own while the block runs (its result: the future's
    ``result()``); the block's end waits for it, and an error it raised is raised by
    ``result()``."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(min(interval, SWITCH_S))
    try:
        with ThreadPoolExecutor(1, thread_name_prefix="critical-path") as pool:
            yield pool.submit(work)
    finally:
        sys.setswitchinterval(interval)
