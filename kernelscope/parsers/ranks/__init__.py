"""Many ranks of one run: per-rank reduction (in worker processes or on Dask), rank numbers
and clock alignment, straggler and collective waits, cross-rank kernel families, a utilisation
heatmap (docs/ranks.md). The ``kernelscope/ranks/1`` JSON document is in
``kernelscope.export.ranks_json``.

    run = analyse_run(["traces/"])          # a directory of per-rank traces, or the files
    run.straggler.rank                      # render.ranks.straggler_verdict says it
    heatmap(run, width=100)                 # {rank: [GPU busy fraction per column]}

This package's ``__init__`` imports nothing heavy: worker processes import only
``kernelscope.parsers.ranks.reduce`` (and polars) when they start their first task.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "analyse_run": "kernelscope.parsers.ranks.run",
    "analyse": "kernelscope.parsers.ranks.run",
    "heatmap": "kernelscope.parsers.ranks.heatmap",
    "ReduceOptions": "kernelscope.parsers.ranks.reduce",
    "reduce_trace": "kernelscope.parsers.ranks.reduce",
    "RankSummary": "kernelscope.parsers.ranks.model",
    "RunAnalysis": "kernelscope.parsers.ranks.model",
    "Straggler": "kernelscope.parsers.ranks.model",
    "ClockAlignment": "kernelscope.parsers.ranks.model",
    "trace_files": "kernelscope.parsers.ranks.discover",
    "is_run": "kernelscope.parsers.ranks.discover",
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_EXPORTS)
