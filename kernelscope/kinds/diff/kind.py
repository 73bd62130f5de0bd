"""The diff's registration: ``kernelscope diff BEFORE AFTER``, two kernel reports or two
timelines compared. Every part is imported on first use."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kernelscope.core.options import OpenOptions
from kernelscope.kinds.registry import KindSpec


def _open_diff(paths: Sequence[Path], options: OpenOptions) -> Any:
    from kernelscope.kinds.diff.analysis.inputs import open_pair

    return open_pair(paths, cache_dir=options.cache_dir)


def _analyse_diff(inputs: Any, options: OpenOptions) -> Any:
    return inputs.diff()


KIND = KindSpec(
    name="diff",
    title="before/after diff of two kernel reports or two timelines",
    detect=lambda probe: False,
    open=_open_diff,
    analyse=_analyse_diff,
    summary="kernelscope.kinds.diff.export.diff_export:print_diff_summary",
    renderers={fmt: f"kernelscope.kinds.diff.export.diff_export:render_diff_{fmt}"
               for fmt in ("json", "md", "csv")},
    session="kernelscope.kinds.diff.screens.diff_session:DiffSession",
    subcommand="diff",
    arguments="BEFORE AFTER",
    inputs=(2, 2),
    reads=frozenset({"pairs", "fail_if_slower"}),
    usage="diff BEFORE AFTER: two kernel reports or two timelines compared",
    keys=("Diff (`kernelscope diff BEFORE AFTER`)",
          "kernelscope.kinds.diff.screens.diff_session:DiffSession.help_sections"),
)
