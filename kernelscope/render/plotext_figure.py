"""plotext, one drawing at a time.

plotext draws on one global figure, so two threads drawing at once (the TUI's export worker and
the UI thread redrawing a chart) would mix their plots. Every kernelscope drawing goes through
:func:`plotext_figure`, which holds a lock for the whole drawing and hands over a cleared figure.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_LOCK = threading.RLock()


@contextmanager
def plotext_figure(width: int, height: int) -> Iterator[Any]:
    """The plotext module with its figure cleared and sized ``width``×``height`` cells, held
    for this thread until the block ends (build the text inside the block)."""
    import plotext as plt  # imported on first drawing: it is not needed to read reports

    with _LOCK:
        plt.terminal.limit(False, False)  # the caller, not the terminal plotext sees, sizes it
        fig = plt.figure
        fig.clear()
        fig.plot_size(width, height)
        yield plt
