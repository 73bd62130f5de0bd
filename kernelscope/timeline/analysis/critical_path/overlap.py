"""A Python pass on a thread of its own while the caller's thread does polars work.

A pass over the replay's events is Python and holds the interpreter's lock; polars gives the
lock up while it computes, so the two run at once on two cores. But a thread that waits for
the lock (polars' caller, each time a query returns) gets it only when the holder gives it
up: a busy Python loop does so when the interpreter's switch interval (5 ms) has passed
since the other began to wait, so each of the hundreds of small queries of a path's sums
would wait up to that long. The passes therefore go over their events in blocks
(``in_blocks``) and give the lock up between two (``time.sleep(0)``): a few hundred times
a pass, at no cost worth measuring, and the queries beside it run about as quickly as
alone. What either thread computes does not depend on the other's timing, so every result
stays the same.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from itertools import chain
from typing import TypeVar

T = TypeVar("T")

BLOCK = 1024
"""Events a pass goes over between two moments it gives the interpreter's lock up."""


BESIDE_EVENTS = 100_000
"""The fewest events for a pass to run on a thread of its own: on a smaller graph the
thread's start and the lock's hand-overs cost more than the overlap saves (the 40,000-kernel
trace: no wall clock saved, ~2 ms more CPU time)."""


@contextmanager
def alongside(work: Callable[[], T], *, in_line: bool = False) -> Iterator[Future[T]]:
    """``work()`` run on a thread of its own while the block runs (its result: the future's
    ``result()``, which raises what it raised); the block's end waits for it. ``in_line``:
    run first, on this thread (a small graph's, where a thread costs more than it saves)."""
    if in_line:
        done: Future[T] = Future()
        done.set_result(work())
        yield done
        return
    with ThreadPoolExecutor(1, thread_name_prefix="critical-path") as pool:
        yield pool.submit(work)


def in_blocks(n: int, part: Callable[[int, int], Iterable[T]], *, backward: bool = False
              ) -> Iterator[T]:
    """The items of ``part(lo, hi)`` for the blocks of ``BLOCK`` places covering 0 to
    ``n`` one after another (the last first where ``backward``; ``part`` then gives its
    block's items last first too), the interpreter's lock given up between two blocks.
    Each part is made when the one before it has been gone through (a view of a list the
    pass changes then reads the values the blocks before wrote)."""

    def parts() -> Iterator[Iterable[T]]:
        starts = range(0, n, BLOCK)
        for lo in reversed(starts) if backward else starts:
            yield part(lo, min(lo + BLOCK, n))
            time.sleep(0)  # the lock given up: a thread waiting for it takes it

    return chain.from_iterable(parts())
