"""The join's registrations: a timeline and kernel reports of one program, found by content
(``KIND``: ``kernelscope T K...``), or named (``COMMAND``: ``kernelscope join T K...``).
Every part is imported on first use."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from kernelscope.core.options import OpenOptions
from kernelscope.kinds.registry import KindSpec, Probe


def _is_join(probe: Probe) -> bool:
    from kernelscope.kinds.join.analysis import is_join

    return is_join(probe.paths)


def _open_join(paths: Sequence[Path], options: OpenOptions) -> Any:
    from kernelscope.kinds.join.analysis import open_join

    if options.process:
        from kernelscope.core.errors import ReportError

        raise ReportError("--process selects kernels of a kernel report (.ncu-rep) only.")
    return open_join(paths, cache_dir=options.cache_dir)


KIND = KindSpec(
    name="join",
    title="timeline joined with kernel reports",
    detect=_is_join,
    open=_open_join,
    analyse="kernelscope.kinds.join.analysis:analyse_join",
    summary="kernelscope.kinds.join.export.join_export:print_join_summary",
    renderers={fmt: f"kernelscope.kinds.join.export.join_export:render_join_{fmt}"
               for fmt in ("json", "md", "csv")},
    session="kernelscope.kinds.join.screens.join_session:JoinSession",
    inputs=(2, None),
    usage=("TRACE KERNELS...: a timeline with kernel reports of the same program, what to fix "
           "first (also 'join TRACE KERNELS...')"),
    keys=("Join: what to fix first (`kernelscope TRACE KERNELS…`)",
          "kernelscope.kinds.join.screens.join_session:JoinSession.help_sections"),
)
"""A timeline and kernel reports of one program, found by content (``kernelscope T K...``)."""

COMMAND = replace(KIND, name="join-command", subcommand="join", arguments="TRACE KERNELS...",
                  usage="")
"""``kernelscope join TRACE KERNELS...`` (headless with ``--format``)."""
