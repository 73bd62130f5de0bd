"""The ranks' registrations: a run of per-rank traces (Nsight Systems or PyTorch profiler),
found by content (``KIND``), or named (``COMMAND``: ``kernelscope ranks TRACE...``, also one
Nsight Systems trace holding every rank's process). Every part is imported on first use."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from kernelscope.core.options import OpenOptions
from kernelscope.kinds.registry import KindSpec, Probe


def _detect_ranks(probe: Probe) -> bool:
    from kernelscope.kinds.ranks.analysis.discover import looks_like_run

    return looks_like_run(probe.paths)


def _open_ranks(paths: Sequence[Path], options: OpenOptions) -> Any:
    from kernelscope.kinds.ranks.analysis.reduce import ReduceOptions
    from kernelscope.kinds.ranks.analysis.run import analyse_run

    cache = str(options.cache_dir) if options.cache_dir is not None else None
    return analyse_run(paths, options=ReduceOptions(cache_dir=cache), workers=options.workers,
                       scheduler=options.scheduler, keep_traces=True)


def _analyse_ranks(run: Any, options: OpenOptions) -> Any:
    return run  # the run is compared when it is opened


KIND = KindSpec(
    name="ranks",
    title="run of per-rank traces (Nsight Systems or PyTorch profiler)",
    detect=_detect_ranks,
    open=_open_ranks,
    analyse=_analyse_ranks,
    summary="kernelscope.kinds.ranks.export.ranks:print_run_summary",
    renderers={fmt: f"kernelscope.kinds.ranks.export.ranks:render_run_{fmt}"
               for fmt in ("json", "md", "csv")},
    session="kernelscope.kinds.ranks.screens.ranks_session:RanksSession",
    inputs=(1, None),
    usage=("DIR of per-rank timelines, or several (or 'ranks TRACE' for one trace of several "
           "rank processes): the ranks of one run"),
    keys=("Ranks of one run (`kernelscope ranks DIR`)",
          "kernelscope.kinds.ranks.screens.ranks:RanksScreen.help_sections"),
)
"""A directory of per-rank traces, or several traces: the ranks of one run."""

COMMAND = replace(
    KIND, name="ranks-command", title="ranks of one run (kernelscope ranks TRACE...)",
    detect=lambda probe: True, subcommand="ranks", arguments="TRACE...", usage="",
)
"""``kernelscope ranks TRACE``: the same, for one trace holding every rank's process."""
