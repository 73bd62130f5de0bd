"""The exports several tests read of the same report, rendered once per test process.

``export_text(path, fmt, top)`` is ``render(path, ExportOptions(fmt=fmt, top=top))``, the text
``kernelscope export`` writes; the same report's Markdown or JSON is read by the Markdown's
own tests, the one-answer check and the consistency rules, on the samples and on the
third-party reports. Only the text is kept (no report, no model), and only up to
``KEPT_BYTES`` a text (the 1,000-launch sample's JSON, 26 MB, is rendered each time); a
``str`` cannot be changed by the test that reads it. Give an absolute path: a relative one
names the report relative to the working directory, which a test may change."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kernelscope.export.writer import ExportOptions, render

KEPT_BYTES = 4_000_000
_kept: dict[tuple[Path, str, int | None], str] = {}


def export_text(path: Path, fmt: str, top: int | None = None) -> str:
    assert path.is_absolute(), path
    key = (path, fmt, top)
    text = _kept.get(key)
    if text is None:
        text = render(path, ExportOptions(fmt=fmt, top=top))
        if len(text) <= KEPT_BYTES:
            _kept[key] = text
    return text


def export_json(path: Path) -> dict[str, Any]:
    """The report's JSON document (a fresh dict each time: a test may change its copy)."""
    loaded: dict[str, Any] = json.loads(export_text(path, "json"))
    return loaded
