"""One export path for the CLI and the TUI: render a report to text in a format.

Which kind of report it is, and so how it is read and rendered, is the registry's business
(``kernelscope.kinds``): ``render`` asks it for the kind's renderer of the format asked for
(``KindSpec.renderers``): the formats it knows are those the kinds register.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import io
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TextIO

from kernelscope.core.detect import detect_kind
from kernelscope.core.errors import ReportError, kernel_filter, safe_text
from kernelscope.kinds import OpenOptions, as_paths, formats, kind_for, opened
from kernelscope.kinds.registry import is_directory


@dataclass(frozen=True)
class ExportOptions(OpenOptions):
    """The one options object (``core.options.OpenOptions``: cache, workers, process,
    pattern, pairs) and what an export adds to it."""

    fmt: str = "json"
    top: int | None = None
    all_metrics: bool = False
    fail_if_slower: float | None = None
    """A diff fails (exit 1) when the summed kernel time grew by more than this, in %."""


Piece = str | bytes | memoryview
"""A piece of an export's text: text, or its UTF-8 bytes as an encoder wrote them (most of a
kernel's JSON entry, written to a file as they are: neither decoded, nor joined, nor
encoded again)."""


def piece_text(piece: Piece) -> str:
    """The text of one piece."""
    return piece if isinstance(piece, str) else str(piece, "utf-8")


def joined(pieces: Iterable[Piece]) -> str:
    """The text of ``pieces``."""
    return "".join(map(piece_text, pieces))


@dataclass(frozen=True)
class Rendered:
    """An export's text, and why the run fails (exit 1) when it does (``--fail-if-slower``).
    ``pieces``, when given, is the text in pieces to write one by one (a large report's JSON:
    the whole document is never held at once); ``text`` is then empty."""

    text: str
    failure: str | None = None
    pieces: Iterator[Piece] | None = None
    failure_code: int = 1
    """The exit status with ``failure``: 1 (the gate failed), 2 (it could not judge: the
    inputs had nothing to compare)."""

    def full_text(self) -> str:
        """The whole text (joining the pieces: use once)."""
        return self.text if self.pieces is None else joined(self.pieces)

    def write_to(self, out: TextIO) -> None:
        """Write the text to ``out`` piece by piece (use once); into the file under it, where
        it has one and writes UTF-8 with plain newlines, the pieces that are bytes as they
        are (not decoded for ``out`` to encode them again: a large JSON document's bulk)."""
        if self.pieces is None:
            out.write(self.text)
            return
        errors = _utf8_errors(out)
        if errors is None:
            for piece in self.pieces:
                out.write(piece_text(piece))
            return
        out.flush()
        with open(out.fileno(), "wb", buffering=WRITE_BUFFER, closefd=False) as raw:
            _write(self, raw, errors)


def _utf8_errors(out: TextIO) -> str | None:
    """How ``out`` handles text UTF-8 cannot hold, where it is standard output to a file or
    a pipe, writing UTF-8 (and ``os.linesep`` for a newline, as ``_write`` writes it); None
    otherwise (a terminal, a stream in memory, another text file: written as text)."""
    if out is not sys.stdout or not isinstance(out, io.TextIOWrapper):
        return None
    if out.isatty():
        return None
    try:
        out.fileno()
        if codecs.lookup(out.encoding).name != "utf-8":
            return None
    except (OSError, ValueError, LookupError):  # io.UnsupportedOperation is both
        return None
    return out.errors


WRITE_BUFFER = 1 << 20
"""Bytes an export's file gathers before a write call: a large JSON document comes a few
pieces of a kernel's entry (~10-30 kB) at a time, and 8 kB writes took twice the CPU time."""

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
    if options.fmt not in formats():
        choices = ", ".join(formats())
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
                               scheduler=options.scheduler, model_flops=options.model_flops)
    with opened(kind, paths, open_options) as model:
        result = kind.renderer(options.fmt)(model, options)
    return result if isinstance(result, Rendered) else Rendered(str(result))


InputPaths = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (or cannot be looked up)
        return False


def _is_report(path: Path) -> bool:
    try:
        detect_kind(path)
    except (ReportError, OSError):
        return False
    return True


def _holds(directory: Path, path: Path) -> bool:
    """Whether ``path`` is a report file directly in the input ``directory`` (what a kind that
    takes a directory, a run's traces, reads from it)."""
    return (
        is_directory(directory)
        and _same_file(path.absolute().parent, directory)
        and _is_report(path)
    )


def check_not_an_input(out: str | os.PathLike[str], inputs: InputPaths) -> None:
    """Raise ReportError when writing ``out`` would replace one of ``inputs``: the same path,
    the same file through a link or another hard link (the same device and inode), or a report
    in an input directory. Every command that writes an output file checks this (through
    ``write_text``), so a report that took hours to collect is never lost to ``-o``."""
    target = Path(out)
    if not os.path.lexists(target):
        return
    for given in as_paths(inputs):
        if _same_file(target, given) or _holds(given, target):
            raise ReportError(
                f"{safe_text(target)} is an input of this command, so it is not written over; "
                "choose another output file."
            )


def check_stdout_not_an_input(inputs: InputPaths) -> None:
    """Raise ReportError when standard output is one of ``inputs`` (``>> report.ncu-rep``)."""
    try:
        out = os.fstat(sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # no real file behind stdout (a test's)
        return
    for given in as_paths(inputs):
        with contextlib.suppress(OSError):
            st = os.stat(given)
            if (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino) and stat.S_ISREG(st.st_mode):
                raise ReportError(
                    f"Standard output is the input {safe_text(given)}, so nothing is written "
                    "to it; write to another file."
                )


def write_text(
    text: str | Rendered, out: str | os.PathLike[str], *, inputs: InputPaths,
    overwrite: bool = True,
) -> Path:
    """Write ``text`` (or a rendered export, piece by piece) to ``out``, never over one of
    ``inputs`` (``check_not_an_input``); refuses to overwrite when ``overwrite`` is False.

    A regular file is written into a temporary file beside it that is renamed into place,
    so a failed export leaves no half-written file and an existing one as it was. Text that
    UTF-8 cannot hold (a file name's undecodable bytes) is written as backslash escapes."""
    target = Path(out)
    check_not_an_input(target, inputs)
    if os.path.lexists(target) and not overwrite:
        raise ReportError(f"{safe_text(target)} already exists; choose another name.")
    try:
        if _is_special(target):  # a device or a pipe (-o /dev/null): written into directly
            with open(target, "wb", buffering=WRITE_BUFFER) as f:
                _write(text, f)
        else:
            _replace_atomically(text, Path(os.path.realpath(target)))
    except OSError as exc:
        raise ReportError(
            f"{safe_text(target)} could not be written ({exc.strerror or exc})."
        ) from exc
    return target


def _is_special(path: Path) -> bool:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _write(text: str | Rendered, out: BinaryIO, errors: str = "backslashreplace") -> None:
    """Write ``text`` as a file opened for text would (UTF-8, what it cannot hold as
    ``errors`` says: backslash escapes for an export's file, the platform's line ends), the
    pieces that are bytes as they are."""
    pieces = (text,) if isinstance(text, str) else text.pieces or (text.text,)
    write = out.write if os.linesep == "\n" else _line_ends(out)
    for piece in pieces:
        write(piece.encode("utf-8", errors) if isinstance(piece, str) else piece)


def _line_ends(out: BinaryIO) -> Callable[[bytes | memoryview], object]:
    """``out.write`` with each newline written as the platform's line end."""
    line_end = os.linesep.encode()
    return lambda data: out.write(bytes(data).replace(b"\n", line_end))


def _replace_atomically(text: str | Rendered, target: Path) -> None:
    """Write into a new file in ``target``'s folder, then rename it onto ``target``."""
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "it is a directory")
    # os.urandom, as secrets.token_hex takes it, without importing secrets (hashlib, hmac)
    temporary = target.with_name(f".{target.name[:120]}.{os.getpid()}-{os.urandom(4).hex()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with open(fd, "wb", buffering=WRITE_BUFFER) as f:
            _write(text, f)
        with contextlib.suppress(OSError):  # an existing file keeps its permissions
            os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
