"""One export path for the CLI and the TUI: render a report to text in a format.

Which kind of report it is, and so how it is read and rendered, is the registry's business
(``kernelscope.kinds``): ``render`` asks it for the kind's ``export`` part.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kernelscope.kinds import OpenOptions, as_paths, kind_for, opened
from kernelscope.parsers.errors import ReportError, safe_text

FORMATS = ("json", "md", "csv")


@dataclass(frozen=True)
class ExportOptions:
    fmt: str = "json"
    pattern: str | None = None
    top: int | None = None
    all_metrics: bool = False
    cache_dir: Path | None = None
    workers: int | None = None
    scheduler: str | None = None
    process: str | None = None


def check_pattern(pattern: str | None) -> None:
    if pattern is None:
        return
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ReportError(
            f"The kernel filter {pattern!r} is not a valid regular expression ({exc})."
        ) from exc


def nothing_matched(path: Path, options: ExportOptions) -> ReportError:
    """The error for a kernel filter (name, process) that selects no kernel."""
    what = []
    if options.pattern:
        what.append(f"matches {options.pattern!r}")
    if options.process:
        what.append(f"ran in process {options.process!r}")
    return ReportError(
        f"No kernel of {safe_text(path.name)} {' and '.join(what) or 'is there'}, so there "
        "is nothing to export."
    )


def render(
    inputs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    options: ExportOptions,
    *,
    subcommand: str | None = None,
) -> str:
    """Render the report at ``inputs`` (one path, or the paths a ``subcommand`` kind takes) in
    ``options.fmt``; raises ReportError on bad input."""
    if options.fmt not in FORMATS:
        choices = ", ".join(FORMATS)
        raise ReportError(f"Unknown export format {options.fmt!r}; choose one of {choices}.")
    check_pattern(options.pattern)
    paths = as_paths(inputs)
    kind = kind_for(paths, subcommand)
    if options.fmt not in kind.formats:
        choices = ", ".join(kind.formats)
        raise ReportError(f"A {kind.title} exports as {choices}, not {options.fmt}.")
    open_options = OpenOptions(cache_dir=options.cache_dir, workers=options.workers,
                               scheduler=options.scheduler)
    with opened(kind, paths, open_options) as model:
        return str(kind.part("export")(model, options))


def write_text(text: str, out: str | os.PathLike[str], *, overwrite: bool = True) -> Path:
    """Write ``text`` to ``out``; refuses to overwrite when ``overwrite`` is False."""
    target = Path(out)
    if target.exists() and not overwrite:
        raise ReportError(f"{target} already exists; choose another name.")
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"{target} could not be written ({exc.strerror or exc}).") from exc
    return target
