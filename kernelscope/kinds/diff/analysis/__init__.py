"""Before and after: two kernel reports or two timelines compared (``kernelscope diff``).

``open_pair(paths)`` opens both inputs (``inputs``); ``DiffInputs.diff()`` builds a
``KernelDiff`` (``kernels``: matched kernels, their speedups, label transitions, flags and
pane metrics) or a ``TimelineDiff`` (``timelines``: per-family time, GPU busy, gaps, NVTX,
copies, findings). Plain objects: the exports and the screens render the same numbers.

The package itself imports nothing, so a kernel diff never loads the timeline modules (polars):
import from the modules.
"""

