"""One export path for the CLI and the TUI: render a report to text in a format."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from kernelscope.export.jsonsafe import json_safe
from kernelscope.parsers.detect import ReportKind, detect_kind
from kernelscope.parsers.errors import ReportError

FORMATS = ("json", "md", "csv")


@dataclass(frozen=True)
class ExportOptions:
    fmt: str = "json"
    pattern: str | None = None
    top: int | None = None
    all_metrics: bool = False
    cache_dir: Path | None = None


def check_pattern(pattern: str | None) -> None:
    if pattern is None:
        return
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ReportError(
            f"The kernel filter {pattern!r} is not a valid regular expression ({exc})."
        ) from exc


def render_ncu(path: Path, options: ExportOptions) -> str:
    from kernelscope.export.ncu_json import build_ncu_document
    from kernelscope.parsers.ncu import open_ncu_report

    with open_ncu_report(path) as report:
        if options.fmt == "json":
            doc = build_ncu_document(
                report, pattern=options.pattern, all_metrics=options.all_metrics
            )
            return json.dumps(json_safe(doc), indent=2) + "\n"
    raise ReportError(f"The {options.fmt} format is not available for kernel reports yet.")


def render_timeline(path: Path, options: ExportOptions) -> str:
    raise ReportError(f"The {options.fmt} format is not available for timeline reports yet.")


def render(path: str | os.PathLike[str], options: ExportOptions) -> str:
    """Render the report at ``path`` in ``options.fmt``; raises ReportError on bad input."""
    if options.fmt not in FORMATS:
        choices = ", ".join(FORMATS)
        raise ReportError(f"Unknown export format {options.fmt!r}; choose one of {choices}.")
    check_pattern(options.pattern)
    p = Path(path)
    kind = detect_kind(p)
    if kind is ReportKind.NCU:
        return render_ncu(p, options)
    return render_timeline(p, options)


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
