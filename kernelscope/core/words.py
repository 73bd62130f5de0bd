"""How the text names and counts things: plurals, cut text, CUDA API names."""

from __future__ import annotations

import re

_API_VERSION = re.compile(r"_v\d+$")


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 gap``, ``5 gaps``."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def ellipsis(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters with a trailing ``…`` when it is longer."""
    if width <= 0 or len(text) <= width:
        return text
    return text[: max(0, width - 1)] + "…"


def api_name(name: str) -> str:
    """``cudaMemcpy_v3020`` → ``cudaMemcpy`` (the name ``nsys stats`` prints)."""
    return _API_VERSION.sub("", name)
