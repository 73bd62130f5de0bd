"""One answer in a process of its own: ``python -m kernelscope.mcp.worker``.

The server (``isolation.py``) writes the request as one JSON line to this process's standard
input; the worker writes JSON lines back on its standard output: ``{"progress": [done,
total, message]}`` as the work goes, then ``{"result": ...}``, or ``{"error": sentence}``
with the one sentence the CLI prints for the same input. Anything else that would print
goes to standard error. Then the process exits, and with it every kernel ncu_report opened.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from kernelscope.core.errors import DEBUG_ENV, ReportError, unexpected_sentence

Answer = Callable[[dict[str, Any], int, str, Any], Any]


def _answers() -> dict[str, Answer]:
    from kernelscope.mcp import answers, answers_ncu

    def paths(args: dict[str, Any], key: str) -> list[Path]:
        return [Path(p) for p in args[key]]

    return {
        "summary": lambda a, s, q, p: answers.summary(Path(a["path"]), s, q, p,
                                                      a.get("process")),
        "kernel": lambda a, s, q, p: answers_ncu.kernel_answer(
            Path(a["path"]), a["kernel_id"], a["panes"], a["source"], p),
        "timeline": lambda a, s, q, p: answers.timeline(
            Path(a["path"]), a["section"], a["window_start_ns"], a["window_end_ns"], s, q, p),
        "diff": lambda a, s, q, p: answers.diff(
            Path(a["before"]), Path(a["after"]), a["filter"], a["fail_if_slower_pct"], s, q, p,
            pairs=a.get("pairs", [])),
        "join": lambda a, s, q, p: answers.join(
            Path(a["trace"]), paths(a, "kernel_reports"), s, q, p),
        "ranks": lambda a, s, q, p: answers.ranks(paths(a, "paths"), s, q, p),
        "metrics": lambda a, s, q, p: answers_ncu.metrics_answer(
            Path(a["path"]), a["kernel_id"], a["pattern"], s, q, p),
        "operators": lambda a, s, q, p: answers.operators(
            Path(a["path"]), a["model_flops"], s, q, p),
        "ncu_command": lambda a, s, q, p: answers.ncu_command(
            Path(a["trace"]), a["family"], p),
        "critical_path": lambda a, s, q, p: answers.critical_path(Path(a["path"]), p),
        "whatif": lambda a, s, q, p: answers.whatif(Path(a["trace"]), a["faster"], p),
        "report_record": lambda a, s, q, p: answers.report_record(Path(a["path"]), p),
        "kernel_record": lambda a, s, q, p: answers_ncu.kernel_record(
            Path(a["path"]), a["kernel_id"], p),
    }


def _send(out: TextIO, message: dict[str, Any]) -> None:
    out.write(json.dumps(message, allow_nan=False, default=str) + "\n")
    out.flush()


def answer(request: dict[str, Any], out: TextIO) -> None:
    """Answer ``request`` on ``out``: progress lines, then the result or the error."""
    def progress(done: float, total: float | None, message: str) -> None:
        _send(out, {"progress": [done, total, message]})

    from kernelscope.core.jsonsafe import json_safe

    try:
        work = _answers()[request["tool"]]
        result = work(request["args"], request["start"], request["question"], progress)
        _send(out, {"result": json_safe(result)})
    except ReportError as exc:
        _send(out, {"error": str(exc)})
    except Exception as exc:  # one sentence, never a traceback, as the CLI says it
        if os.environ.get(DEBUG_ENV):
            raise
        _send(out, {"error": unexpected_sentence(exc)})


def main() -> int:
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints go to standard error
    request = json.loads(sys.stdin.readline())
    answer(request, protocol)
    protocol.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
