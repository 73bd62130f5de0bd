"""``kernelscope summary``: a report's essentials as rich tables, or plain text for pipes.

Each kind prints its own (its ``summary`` part: ``kinds/ncu/export/ncu_summary``,
``timeline/export/timeline_summary``, ...); this module finds the kind, opens the report and
holds what every summary shares: the console, the tables' rules, the file's name."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from rich import box
from rich.console import Console
from rich.markup import escape

from kernelscope.core.errors import safe_text
from kernelscope.kinds import OpenOptions, as_paths, kind_for, opened

PLAIN_WIDTH = 100_000
"""Plain output (pipes, files, NO_COLOR) is never cut: tables take the width they need."""


def make_console(file: IO[str] | None = None) -> Console:
    """Colour on a terminal, fitted to its width; plain text (no escapes, ASCII rules) for
    pipes and files, never cut, or on a terminal with NO_COLOR."""
    out = file or sys.stdout
    terminal = out.isatty()
    if not terminal:
        return Console(
            file=out,
            color_system=None,
            force_terminal=False,
            width=PLAIN_WIDTH,
            no_color=True,
            highlight=False,
            emoji=False,
        )
    if "NO_COLOR" in os.environ:
        return Console(file=out, color_system=None, no_color=True, highlight=False, emoji=False)
    return Console(file=out, highlight=False)


def table_box(console: Console) -> box.Box:
    """Heavy rules on a terminal, ASCII ones in plain text (pipes, NO_COLOR)."""
    return box.ASCII2 if console.no_color else box.SIMPLE_HEAVY


def file_name(path: Path) -> str:
    """The file's name, safe for rich markup and for the terminal."""
    return escape(safe_text(path.name))


def print_summary(
    inputs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    file: IO[str] | None = None,
    subcommand: str | None = None,
    options: OpenOptions | None = None,
) -> None:
    """Print the essentials of the report at ``inputs`` (its kind's ``summary`` part; of a
    kernel report, only the kernels of ``options.process``, an id or a name, when given);
    raises ReportError on bad input."""
    paths = as_paths(inputs)
    kind = kind_for(paths, subcommand)
    console = make_console(file)
    options = options if options is not None else OpenOptions()
    with opened(kind, paths, options) as model, console.capture() as captured:
        # held back until it is whole: a report found damaged halfway prints nothing on stdout
        kind.part("summary")(kind.part("analyse")(model, options), console)
    console.file.write(captured.get())
    console.file.flush()
