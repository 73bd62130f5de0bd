"""One export path for the CLI and the TUI: render a report to text in a format.

Which kind of report it is, and so how it is read and rendered, is the registry's business
(``kernelscope.kinds``): ``render`` asks it for the kind's ``export`` part.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from kernelscope.kinds import OpenOptions, as_paths, kind_for, opened
from kernelscope.parsers.errors import ReportError, kernel_filter, safe_text

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
    pairs: tuple[tuple[str, str], ...] = ()
    """Kernels paired by hand (BEFORE, AFTER: an ID or a name each), for a diff."""
    fail_if_slower: float | None = None
    """A diff fails (exit 1) when the summed kernel time grew by more than this, in %."""


@dataclass(frozen=True)
class Rendered:
    """An export's text, and why the run fails (exit 1) when it does (``--fail-if-slower``).
    ``pieces``, when given, is the text in pieces to write one by one (a large report's JSON:
    the whole document is never held at once); ``text`` is then empty."""

    text: str
    failure: str | None = None
    pieces: Iterator[str] | None = None
    failure_code: int = 1
    """The exit status with ``failure``: 1 (the gate failed), 2 (it could not judge: the
    inputs had nothing to compare)."""

    def full_text(self) -> str:
        """The whole text (joining the pieces: use once)."""
        return self.text if self.pieces is None else "".join(self.pieces)

    def write_to(self, out: TextIO) -> None:
        """Write the text to ``out`` piece by piece (use once)."""
        if self.pieces is None:
            out.write(self.text)
            return
        for piece in self.pieces:
            out.write(piece)


COMPARING = {"pairs": "--pair", "fail_if_slower": "--fail-if-slower"}
"""Export options only a kind that says it reads them (``KindSpec.reads``) takes."""


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
    return render_checked(inputs, options, subcommand=subcommand).full_text()


def render_checked(
    inputs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    options: ExportOptions,
    *,
    subcommand: str | None = None,
) -> Rendered:
    """``render``, with the kind's verdict on the run (``Rendered.failure``)."""
    if options.fmt not in FORMATS:
        choices = ", ".join(FORMATS)
        raise ReportError(f"Unknown export format {options.fmt!r}; choose one of {choices}.")
    kernel_filter(options.pattern)
    paths = as_paths(inputs)
    kind = kind_for(paths, subcommand)
    if options.fmt not in kind.formats:
        choices = ", ".join(kind.formats)
        raise ReportError(f"A {kind.title} exports as {choices}, not {options.fmt}.")
    for name, flag in COMPARING.items():
        if getattr(options, name) and name not in kind.reads:
            raise ReportError(
                f"{flag} compares two reports: use it with 'kernelscope diff BEFORE AFTER'."
            )
    open_options = OpenOptions(cache_dir=options.cache_dir, workers=options.workers,
                               scheduler=options.scheduler)
    with opened(kind, paths, open_options) as model:
        result = kind.part("export")(model, options)
    return result if isinstance(result, Rendered) else Rendered(str(result))


def write_text(
    text: str | Rendered, out: str | os.PathLike[str], *, overwrite: bool = True
) -> Path:
    """Write ``text`` (or a rendered export, piece by piece) to ``out``; refuses to
    overwrite when ``overwrite`` is False."""
    target = Path(out)
    if target.exists() and not overwrite:
        raise ReportError(f"{target} already exists; choose another name.")
    try:
        with open(target, "w", encoding="utf-8") as f:
            if isinstance(text, Rendered):
                text.write_to(f)
            else:
                f.write(text)
    except OSError as exc:
        raise ReportError(f"{target} could not be written ({exc.strerror or exc}).") from exc
    return target
