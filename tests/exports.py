"""The exports several tests read of the same report, rendered once per test process.

``export_text(path, fmt, top)`` is ``render(path, ExportOptions(fmt=fmt, top=top))``, the text
``kernelscope export`` writes; the same report's Markdown or JSON is read by the Markdown's
own tests, the one-answer check and the consistency rules, on the samples and on the
third-party reports. Only the text is kept (no report, no model), and a ``str`` cannot be
changed by the test that reads it. Give an absolute path: a relative one names the report
relative to the working directory, which a test may change."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from kernelscope.export.writer import ExportOptions, render


@cache
def export_text(path: Path, fmt: str, top: int | None = None) -> str:
    assert path.is_absolute(), path
    return render(path, ExportOptions(fmt=fmt, top=top))


def export_json(path: Path) -> dict[str, Any]:
    """The report's JSON document (a fresh dict each time: a test may change its copy)."""
    loaded: dict[str, Any] = json.loads(export_text(path, "json"))
    return loaded
