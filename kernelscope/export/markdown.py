"""Small helpers for valid GitHub-flavoured Markdown: escaped cells, tables, fenced blocks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

BLANK = "_(to fill in)_"


def cell(text: object) -> str:
    """Text safe inside a table cell: pipes, backticks and newlines escaped."""
    s = "" if text is None else str(text)
    s = s.replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")
    return " ".join(s.split())


def inline(text: object) -> str:
    """Text safe in a paragraph or heading: Markdown punctuation that could start markup escaped."""
    s = "" if text is None else str(text)
    for ch in ("\\", "`", "*", "_", "[", "]", "<", ">", "|", "#"):
        s = s.replace(ch, "\\" + ch)
    return " ".join(s.split())


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
