"""The one exception type the model raises for bad input, and safe text for messages.

Every message is a single sentence meant for the user, so the CLI and the TUI can show it as
it is: control characters (a file name with ANSI escape sequences, a newline) and bytes that
are not UTF-8 (a non-UTF-8 file name) are escaped when the error is made.
"""

from __future__ import annotations

import os
import re

# C0 and C1 control characters and DEL; lone surrogates are what os.fsdecode makes of bytes
# that are not UTF-8.
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    ch = match.group(0)
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte os.fsdecode could not decode
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def safe_text(text: object) -> str:
    """``text`` with control characters and undecodable bytes written as ``\\xNN`` escapes,
    so that printing it can neither drive the terminal nor fail to encode."""
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    return _UNSAFE.sub(_escape, str(text))


class ReportError(Exception):
    """A report could not be opened or read; ``str(exc)`` is one sentence for the user."""

    def __init__(self, message: object = "") -> None:
        super().__init__(safe_text(message))


def kernel_filter(pattern: str | None) -> re.Pattern[str] | None:
    """The compiled ``-k`` kernel filter (None when there is none), with the TUI filter's one
    rule (``core.table.compile_filter``: case-insensitive unless it has a capital letter);
    ReportError, one sentence, when it is not a valid regular expression."""
    if not pattern:  # no filter: the table module (its dataclass made on import) not needed
        return None
    from kernelscope.core.table import compile_filter

    try:
        return compile_filter(pattern)
    except re.error as exc:
        raise ReportError(
            f"The kernel filter {pattern!r} is not a valid regular expression ({exc})."
        ) from exc


DEBUG_ENV = "KERNELSCOPE_DEBUG"
"""Set, an error kernelscope did not foresee shows its traceback instead of one sentence."""


def unexpected_sentence(exc: BaseException) -> str:
    """The one sentence for an error kernelscope did not foresee (a bug to report): its type
    and the first line of its text, cut to 200 characters. The CLI, the TUI and the MCP
    server all say it."""
    first = (str(exc).strip().splitlines() or [""])[0][:200]
    return safe_text(
        f"Unexpected error ({type(exc).__name__}{': ' + first if first else ''}); "
        f"set {DEBUG_ENV}=1 for the traceback and please report it."
    )


def error_sentence(error: BaseException) -> str:
    """One sentence for the user: a ReportError's own, else ``unexpected_sentence``."""
    return str(error) if isinstance(error, ReportError) else unexpected_sentence(error)
