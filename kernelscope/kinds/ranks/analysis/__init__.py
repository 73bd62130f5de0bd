"""Many ranks of one run (Nsight Systems or PyTorch profiler traces): per-rank reduction (in
worker processes or on Dask), rank numbers, collectives matched by identity and the clocks
they show (``matching.match_collectives``), straggler and collective waits, cross-rank
kernel families, a utilisation heatmap (docs/ranks.md). The ``kernelscope/ranks/2`` JSON
document is in ``kernelscope.kinds.ranks.export.ranks_json``.

    run = analyse_run(["traces/"])          # a directory of per-rank traces, or the files
    run.straggler.rank                      # render.ranks.straggler_verdict says it
    heatmap(run, width=100)                 # {rank: [GPU busy fraction per column]}

This package's ``__init__`` imports nothing heavy: worker processes import only
``kernelscope.kinds.ranks.analysis.reduce`` or ``kineto_reduce`` (and polars) when they start
their first task.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "analyse_run": "kernelscope.kinds.ranks.analysis.run",
    "analyse": "kernelscope.kinds.ranks.analysis.run",
    "heatmap": "kernelscope.kinds.ranks.analysis.heatmap",
    "ReduceOptions": "kernelscope.kinds.ranks.analysis.reduce",
    "reduce_trace": "kernelscope.kinds.ranks.analysis.reduce",
    "RankSummary": "kernelscope.kinds.ranks.analysis.model",
    "RunAnalysis": "kernelscope.kinds.ranks.analysis.model",
    "Straggler": "kernelscope.kinds.ranks.analysis.model",
    "ClockAlignment": "kernelscope.kinds.ranks.analysis.model",
    "trace_files": "kernelscope.kinds.ranks.analysis.discover",
    "run_files": "kernelscope.kinds.ranks.analysis.discover",
    "match_collectives": "kernelscope.kinds.ranks.analysis.matching",
    "Matching": "kernelscope.kinds.ranks.analysis.matching",
    "RankClock": "kernelscope.kinds.ranks.analysis.matching",
    "reduce_kineto": "kernelscope.kinds.ranks.analysis.kineto_reduce",
    "is_run": "kernelscope.kinds.ranks.analysis.discover",
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_EXPORTS)
