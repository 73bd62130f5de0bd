"""Fewer cyclic garbage collections while the TUI starts and while a report loads.

Loading a report makes many objects that live as long as the report (summaries, their
metrics, the list's cells) and little garbage. With Python's default thresholds the collector
runs every 700 allocations and now and then walks every object of the process (a full
collection): on a 1,000-kernel report that was ~0.2 s of CPU, under the GIL the loading thread
and the UI share. While loading, the youngest generation waits for ``YOUNG_THRESHOLD``
allocations and full collections wait for ``FULL_AFTER`` collections of the middle one; the
thresholds come back when the last load ends.

A process that runs one TUI (the ``kernelscope`` command, not the tests, which run many apps
in one process) also collects nothing from its start to its first screen or its loading
screen (inside :func:`one_app`, until :func:`started`): importing Textual and kernelscope
and making the first screen make objects that live as long as the process, and the
collections meanwhile cost ~0.03–0.05 s of CPU before the first rows (a full one among them).
There, what is alive when the first screen shows and when a load ends is frozen
(``gc.freeze``): no later collection walks it again (the middle generation's collection after
a 1,000-kernel load walked its summaries for ~0.04 s). Such a process waits still longer
while a report loads (``ONE_APP_YOUNG_THRESHOLD``): the young collections under
``YOUNG_THRESHOLD`` (a dozen on the 1,000-kernel report, ~0.015 s of CPU before the list
completes) freed ~3,000 objects, the load's whole cyclic garbage, which is frozen with the
rest instead (kept until the process exits, as what survived a young collection already
was). A far longer load still collects now and then, so what it keeps stays bounded.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 20_000
ONE_APP_YOUNG_THRESHOLD = 1_000_000
"""The youngest generation's threshold while a report loads in a process of one TUI: fifty
times ``YOUNG_THRESHOLD``, under which a 1,000-kernel load collected a dozen times."""
FULL_AFTER = 100

_lock = threading.Lock()
_loads = 0
_saved: tuple[int, int, int] = gc.get_threshold()
_one_app = False
"""Whether this process runs one TUI (inside :func:`one_app`)."""
_started = False
"""In a process of one TUI, whether its first screen showed (:func:`started`): collections
resume then."""


@contextmanager
def one_app() -> Iterator[None]:
    """For the duration, this process runs one TUI: no cyclic collection until
    :func:`started`; from then on, what is alive when the first screen shows and when a load
    ends is frozen. Afterwards (the app ended, or never started) the collector runs as before,
    so a process that calls the command line in process (the tests) keeps its collector."""
    global _one_app, _started
    was_enabled = gc.isenabled()
    _one_app, _started = True, False
    gc.disable()
    try:
        yield
    finally:
        _one_app = _started = False
        if was_enabled:
            gc.enable()


def started() -> None:
    """The first screen (or the loading screen) shows: what is alive now (modules, the app,
    its first screen) is frozen, and collections resume (in a process of one TUI; else nothing
    happens). A slow opening thus runs without collections for its first ~0.3 s only (a
    load going on keeps its raised thresholds)."""
    global _started
    with _lock:
        if _one_app and not _started:
            _started = True
            gc.freeze()
            gc.enable()


@contextmanager
def one_command() -> Iterator[None]:
    """For the duration, this process runs one headless command (an export, a summary, a
    what-if) and then exits: no cyclic collection, and what is alive at its end is frozen,
    so the interpreter's exit walks none of it. Such a command makes objects that live until
    it ends (the report, its frames and analyses) and little cyclic garbage: the peak memory
    of the largest samples' exports is the same without the collector, whose runs cost the
    40,000-kernel trace's JSON export ~0.015 s of CPU and its exit ~0.05 s (a final
    collection over every object, imported modules included). Afterwards the collector runs
    as before (the tests call the command line in process)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the collector's thresholds for the duration, higher in a process of one TUI
    (thread-safe; nested or concurrent loads restore the thresholds the first one found when
    the last one ends, freezing what they loaded in a process of one TUI)."""
    global _loads, _saved
    with _lock:
        if _loads == 0:
            _saved = gc.get_threshold()
            young = ONE_APP_YOUNG_THRESHOLD if _one_app else YOUNG_THRESHOLD
            gc.set_threshold(max(young, _saved[0]), _saved[1], max(FULL_AFTER, _saved[2]))
        _loads += 1
    try:
        yield
    finally:
        with _lock:
            _loads -= 1
            if _loads == 0:
                _load_ended()


def _load_ended() -> None:
    """The last load ended: the thresholds as they were before (in a process of one TUI,
    what the loads made frozen, and collections on once its first screen showed)."""
    gc.set_threshold(*_saved)
    if _one_app:
        gc.freeze()
        if _started:
            gc.enable()
