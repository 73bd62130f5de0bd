"""plotext, one drawing at a time.

plotext draws on one global figure, so two threads drawing at once (the TUI's export worker and
the UI thread redrawing a chart) would mix their plots. Every kernelscope drawing goes through
:func:`plotext_figure`, which holds a lock for the whole drawing and hands over a cleared figure.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

_LOCK = threading.RLock()


@contextmanager
def plotext_figure(width: int, height: int) -> Iterator[Any]:
    """The plotext module with its figure cleared and sized ``width``×``height`` cells, held
    for this thread until the block ends (build the text inside the block)."""
    with _LOCK:
        plt = _plotext()
        plt.terminal.limit(False, False)  # the caller, not the terminal plotext sees, sizes it
        fig = plt.figure
        fig.clear()
        fig.plot_size(width, height)
        yield plt


_DOCS = "plotext._doc.doc"


def _plotext() -> Any:
    """The plotext module, imported on first drawing (it is not needed to read reports)
    without its documentation: importing plotext builds the text of every method's help and
    writes it into their docstrings, more than half of its import time, which no drawing
    reads. A module of that name without the text stands in while plotext imports, then
    leaves, so an explicit import of it still builds the text. Called under ``_LOCK``: a
    second thread waits for the first's import rather than see the module half made."""
    if "plotext" in sys.modules:
        return sys.modules["plotext"]
    stand_in = ModuleType(_DOCS)
    stand_in.docs = None  # type: ignore[attr-defined]  # plotext.doc, the help, is not built
    sys.modules.setdefault(_DOCS, stand_in)
    try:
        import plotext
    finally:
        if sys.modules.get(_DOCS) is stand_in:
            del sys.modules[_DOCS]
    return plotext
