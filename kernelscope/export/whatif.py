"""``kernelscope whatif TRACE --faster REGEX=FACTOR [...]``: every step of a timeline
replayed with some durations divided, as JSON (``kernelscope/whatif/1``) or Markdown."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kernelscope.core.errors import ReportError, safe_text
from kernelscope.export.writer import check_stdout_not_an_input, write_text
from kernelscope.kinds import OpenOptions, kind_for, opened

TIMELINE_KINDS = ("nsys", "kineto")
"""The kinds that are a timeline (what ``whatif``, ``critical-path`` and MCP's timeline
questions read)."""


def whatif_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kernelscope whatif",
        description=(
            "Predict every step's time if some work were faster: the timeline's dependency "
            "graph replayed with the matched durations divided, everything else as measured "
            "(docs/critical_path.md). A folder of per-rank traces is one run: its ranks are "
            "joined at their collectives."),
    )
    p.add_argument("trace", type=Path,
                   help="a timeline (.nsys-rep, its .sqlite, or a PyTorch profiler trace), or "
                   "a folder of per-rank traces of one run")
    p.add_argument("--faster", action="append", required=True, metavar="REGEX=FACTOR",
                   help="divide by FACTOR the time of the kernels, copies, NVTX ranges and CPU "
                   "operators whose name REGEX finds (2 halves them); REGEX=FACTOR@RANK: only "
                   "that rank's, in a run; repeat for more")
    p.add_argument("--format", "-f", choices=tuple(RENDERERS), default="json")
    p.add_argument("-o", "--output", type=Path, default=None, help="output file (default: stdout)")
    p.add_argument("--cache-dir", type=Path, default=None,
                   help="where .nsys-rep SQLite exports are cached")
    return p


def timeline_of(path: Path, cache_dir: Path | None, run: Any) -> Any:
    """``run(data)`` on the timeline at ``path`` (its ``TimelineData``, read only for the
    critical path's graph: ``OpenOptions.graph_only``); ReportError with one sentence for
    anything but one timeline."""
    kind = kind_for([path])
    if kind.name not in TIMELINE_KINDS:
        raise ReportError(f"{safe_text(path)} is not a timeline (an Nsight Systems report or "
                          "its SQLite export, or a PyTorch profiler trace).")
    options = OpenOptions(cache_dir=cache_dir, graph_only=True)
    with opened(kind, [path], options) as model:
        return run(kind.part("analyse")(model, options))


def whatif_answer(path: Path, faster: list[str], cache_dir: Path | None = None
                  ) -> tuple[Any, Any]:
    """The what-if of the trace or run at ``path`` (a ``WhatIf``; a run's carries its
    ranks' ``waits``) and the trace's name shortener (None for a run)."""
    from kernelscope.timeline.analysis.critical_path.whatif import Faster

    changes = [Faster.parse(text) for text in faster]
    if kind_for([path]).name == "ranks":
        return run_whatif_answer(path, changes, cache_dir), None
    return timeline_of(path, cache_dir, lambda data: (data.critical_model.whatif(changes),
                                                       data.short_name))


def run_whatif_answer(path: Path, changes: list[Any], cache_dir: Path | None = None) -> Any:
    """The what-if of the run of per-rank traces at ``path``, with its ranks' waits at the
    collectives (``waits``: rank, calls, measured_ns, predicted_ns)."""
    from kernelscope.kinds.ranks.analysis.run_whatif import run_model

    kind = kind_for([path])
    options = OpenOptions(cache_dir=cache_dir)
    with opened(kind, [path], options) as run:
        model = run_model(run, options)
    answer = model.whatif(changes)
    answer.waits = model.waits(answer.after_start)
    return answer


def whatif_document(path: Path, faster: list[str], cache_dir: Path | None = None
                    ) -> dict[str, Any]:
    """``kernelscope/whatif/1`` of the trace at ``path``."""
    from kernelscope.timeline.export.critical_text import whatif_doc

    result, shorten = whatif_answer(path, faster, cache_dir)
    return whatif_doc(result, path.name, shorten)


def critical_path_document(path: Path, cache_dir: Path | None = None) -> dict[str, Any]:
    """The trace's critical path: its steps (step, name, step_ns) and the path's members."""
    from kernelscope.timeline.export.critical_text import path_doc

    def document(data: Any) -> dict[str, Any]:
        cp = data.critical_path
        return {"trace": path.name,
                "steps": cp.steps.select("step", "name", "step_ns").to_dicts(),
                **path_doc(cp, data.short_name)}

    return dict(timeline_of(path, cache_dir, document))


def _whatif_json(result: Any, name: str, shorten: Any) -> str:
    from kernelscope.export.json_text import dumps
    from kernelscope.timeline.export.critical_text import whatif_doc

    return dumps(whatif_doc(result, name, shorten)) + "\n"


def _whatif_md(result: Any, name: str, shorten: Any) -> str:
    from kernelscope.timeline.export.critical_text import whatif_markdown

    return str(whatif_markdown(result, name, shorten))


RENDERERS: dict[str, Callable[[Any, str, Any], str]] = {"json": _whatif_json, "md": _whatif_md}
"""Format name → the what-if's renderer ``(answer, trace name, name shortener) -> text``, in
the order ``--help`` lists them; as a kind's ``renderers``, no renderer asks which format it
is."""


def render_whatif(path: Path, faster: list[str], fmt: str, cache_dir: Path | None = None
                  ) -> str:
    """The what-if of the trace at ``path`` in ``fmt`` (one of ``RENDERERS``)."""
    result, shorten = whatif_answer(path, faster, cache_dir)
    return RENDERERS[fmt](result, path.name, shorten)


KEPT_PAGES = "dirty_decay_ms:-1"
"""polars' allocator (jemalloc) told to keep the pages it frees for its next allocations."""


def keep_freed_pages() -> None:
    """Have polars' allocator keep the pages it frees, for this process (polars loaded
    after this). polars has it give them back to the system half a second after they are
    freed (``polars/__init__.py``), and a what-if frees and makes columns of a million rows
    all along: on the 300k-kernel trace ~50,000 pages came back as page faults (of
    ~250,000; about 1.5 us of system time each). Only where polars is not loaded yet (its
    allocator reads the setting once, as polars loads) and where the user set none of
    their own (``_RJEM_MALLOC_CONF``, which polars keeps)."""
    if "polars" not in sys.modules and "_RJEM_MALLOC_CONF" not in os.environ:
        os.environ["_RJEM_MALLOC_CONF"] = KEPT_PAGES


def run_whatif(argv: list[str]) -> int:
    keep_freed_pages()  # first: nothing before it loads polars
    args = whatif_parser().parse_args(argv)
    if args.output is None:
        check_stdout_not_an_input([args.trace])
    text = render_whatif(args.trace, args.faster, args.format, args.cache_dir)
    if args.output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        write_text(text, args.output, inputs=[args.trace])
    return 0
