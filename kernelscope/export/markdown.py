"""Small helpers for valid GitHub-flavoured Markdown: escaped cells, tables, fenced blocks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

BLANK = "_(to fill in)_"


# The escaping helpers are memoised: a report's records repeat the same remedies, rule
# messages and kernel names many times (a 1,000-launch report has a few dozen kernels).
@lru_cache(maxsize=4096)
def _cell(s: str) -> str:
    s = s.replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")
    return " ".join(s.split())


@lru_cache(maxsize=4096)
def _inline(s: str) -> str:
    for ch in ("\\", "`", "*", "_", "[", "]", "<", ">", "|", "#"):
        s = s.replace(ch, "\\" + ch)
    return " ".join(s.split())


def cell(text: object) -> str:
    """Text safe inside a table cell: pipes, backticks and newlines escaped."""
    return _cell("" if text is None else str(text))


def inline(text: object) -> str:
    """Text safe in a paragraph or heading: Markdown punctuation that could start markup escaped."""
    return _inline("" if text is None else str(text))


def code(text: object) -> str:
    """Inline code that survives backticks inside ``text``."""
    s = " ".join(str(text).split())
    fence = "`"
    while fence in s:
        fence += "`"
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def table(headers: Sequence[str], rows: Iterable[Sequence[object]], align: str = "") -> str:
    """A pipe table; ``align`` is one letter per column (l, r, c), left by default."""
    marks = {"l": "---", "r": "---:", "c": ":---:"}
    spec = [marks.get(align[i] if i < len(align) else "l", "---") for i in range(len(headers))]
    lines = [
        "| " + " | ".join(cell(h) for h in headers) + " |",
        "| " + " | ".join(spec) + " |",
    ]
    for row in rows:
        lines.append("| " + " | ".join(cell(c) for c in row) + " |")
    return "\n".join(lines)


def fenced(text: str, lang: str = "text") -> str:
    """A fenced code block whose fence is longer than any backtick run inside ``text``."""
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{lang}\n{text.rstrip()}\n{fence}"
