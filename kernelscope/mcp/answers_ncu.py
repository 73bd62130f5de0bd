"""The answers about one kernel report: its families (``summary``), one kernel's diagnosis
(``kernel``), its raw metrics (``metrics``) and the Markdown case records (resources).

The kind of the report answers (``KindSpec.answers``: for kernel reports,
``kinds/ncu/export/ncu_answers.py``, built by the JSON and Markdown exports' own functions);
this module pages and trims what it gives to what the question needs. These run in the worker
process (``worker.py``), which exits after one answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kernelscope.core.errors import ReportError, kernel_filter, safe_text
from kernelscope.kinds import kind_for
from kernelscope.mcp.paging import page

Progress = Callable[[float, float | None, str], None]
"""(done, total or None, what is being done): reported to the agent as MCP progress."""

RECORD_FAMILIES = 10
"""A report's Markdown record holds the case records of its largest families only."""


def kernel_answers(path: Path) -> Any:
    """What the kind of ``path`` answers about its kernels (its registered ``answers``);
    one sentence for a kind that registers none."""
    kind = kind_for([path])
    if kind.answers is None:
        raise ReportError(f"{safe_text(path.name)} is a {kind.title}, which holds no kernel "
                          "records; this question reads a kernel report.")
    return kind.part("answers")


def ncu_summary(path: Path, start: int, question: str, progress: Progress,
                process: str | None = None) -> dict[str, Any]:
    """The report (without the device's attribute table) and its families, largest first,
    a page at a time; with ``process`` (an id or a name, as ``summary --process``) only the
    families with a launch in it."""
    head, entries = kernel_answers(path).summary(path, progress, process)
    families, paging = page(entries, start, question)
    return {**head, "families": families, "page": paging}


def kernel_answer(path: Path, kernel_id: int, panes: list[str], source: bool,
                  progress: Progress) -> dict[str, Any]:
    """One kernel's entry of the JSON export, with only the ``panes``' metrics (``source``
    adds the hot lines), within ``KERNEL_BYTES``."""
    return within_budget(kernel_answers(path).kernel(path, kernel_id, panes, source, progress))


KERNEL_BYTES = 19_000
"""What a kernel answer may take as JSON; past it, its metrics are cut (the ``metrics`` tool
pages them all)."""


def _json_bytes(value: object) -> int:
    return len(json.dumps(value, default=str).encode())


def within_budget(answer: dict[str, Any], budget: int = KERNEL_BYTES) -> dict[str, Any]:
    """``answer`` with as many of its kernel's metrics, in order, as keep it within
    ``budget`` bytes of JSON, and a note of how many were left out where any were."""
    if _json_bytes(answer) <= budget:
        return answer
    entry = answer["kernel"]
    metrics: dict[str, Any] = entry["metrics"]
    entry["metrics"] = {}
    entry["metrics_cut"] = {"shown": 0, "total": len(metrics),
                            "rest": "call the metrics tool with a pattern: it pages them all"}
    used = _json_bytes(answer)
    for name, value in metrics.items():
        cost = _json_bytes({name: value})
        if used + cost > budget:
            break
        entry["metrics"][name] = value
        used += cost
    entry["metrics_cut"]["shown"] = len(entry["metrics"])
    return answer


def metrics_answer(path: Path, kernel_id: int, pattern: str, start: int, question: str,
                   progress: Progress) -> dict[str, Any]:
    """Every metric of the kernel whose name ``pattern`` matches, with its value and the
    unit ``ncu --page raw`` prints, a page at a time."""
    regex = kernel_filter(pattern) or re.compile("")
    rows = kernel_answers(path).metrics(path, kernel_id, regex, progress)
    chosen, paging = page(rows, start, question)
    return {"path": str(path), "kernel_id": kernel_id, "pattern": pattern,
            "metrics": chosen, "page": paging}


def kernel_record(path: Path, kernel_id: int, progress: Progress) -> str:
    """The Markdown case record of one kernel, as the TUI's export of it writes it."""
    return str(kernel_answers(path).record(path, kernel_id, progress))
