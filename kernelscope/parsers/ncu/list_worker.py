"""Passes over many kernels in a child process: ``python -m kernelscope.parsers.ncu.list_worker``.

ncu_report keeps every kernel it has opened in memory until the process exits (about 0.8 MB a
kernel on a default-set report), so passes over all kernels (the kernel list, exports) run in
short-lived children that stream plain model objects back; several children split the kernels
between cores.

Input (stdin): one pickled job dict: path, mode ("summary" or "detail"), ids, shard, shards,
metrics (summary mode), extra, source, curves and diagnose (detail mode: a picklable function
of a KernelDetail whose result is sent with it), rules, batch_seconds.
Output (stdout): frames of an 8-byte big-endian length and a pickled list of results
(KernelSummary, KernelDetail or (KernelDetail, diagnose result)), ending with an empty list.
"""

from __future__ import annotations

import os
import pickle
import sys
import time
from typing import Any


def write_frame(out: Any, items: list[Any]) -> None:
    payload = pickle.dumps(items, protocol=pickle.HIGHEST_PROTOCOL)
    out.write(len(payload).to_bytes(8, "big"))
    out.write(payload)
    out.flush()


def _one(ctx: Any, job: dict[str, Any], kernel_id: int, handle: tuple[int, int]) -> Any:
    from kernelscope.parsers.ncu.detail import build_detail, read_source_hotspots
    from kernelscope.parsers.ncu.summary_reader import (
        action_names,
        read_summary,
        summary_from_detail,
    )

    action = ctx.range_by_idx(handle[0]).action_by_idx(handle[1])
    origins = job.get("origins")
    origin = origins[kernel_id] if origins else (None, "")
    if job["mode"] == "summary":
        return read_summary(action, kernel_id, handle, job["metrics"], job["rules"], origin)
    if action is None:
        from kernelscope.parsers.errors import ReportError

        raise ReportError(f"Kernel {kernel_id} of the report cannot be read: it is damaged.")
    detail = build_detail(
        action,
        kernel_id,
        *handle,
        action_names(action, kernel_id),
        job["extra"],
        curves=job["curves"],
        breakdowns=job.get("breakdowns", True),
        tables=job.get("tables", True),
        origin=origin,
    )
    if job.get("source") and detail.has_section("SourceCounters"):
        detail.source = read_source_hotspots(action)
    diagnose = job.get("diagnose")
    if diagnose is None:
        return detail
    if job.get("slim"):
        # Only the list's view of the kernel travels back: its row and sections.
        return (summary_from_detail(detail, metrics=False), diagnose(detail))
    return (detail, diagnose(detail))


def _quiet_native_stderr() -> None:
    """Send what native code writes to file descriptor 2 (ncu_report's log lines about damaged
    records) to /dev/null, keeping Python's own ``sys.stderr`` for the parent to read."""
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
    sys.stderr = os.fdopen(saved, "w", buffering=1, errors="backslashreplace")


ERROR_PREFIX = "kernelscope-report-error: "
"""How a child reports a ReportError to the parent: this prefix, then the sentence."""


def main() -> int:
    job = pickle.load(sys.stdin.buffer)
    _quiet_native_stderr()
    from kernelscope.parsers.errors import ReportError

    try:
        return _run(job)
    except ReportError as exc:
        print(f"{ERROR_PREFIX}{exc}", file=sys.stderr)
        return 3


def _run(job: dict[str, Any]) -> int:
    import ncu_report

    ctx = ncu_report.load_report(job["path"])
    handles: list[tuple[int, int]] = []
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        handles.extend((r, a) for a in range(rng.num_actions() if rng is not None else 0))
    ids = job.get("ids")
    ids = list(range(len(handles))) if ids is None else ids
    out = sys.stdout.buffer
    batch: list[Any] = []
    last = time.perf_counter()
    for kernel_id in ids[job["shard"] :: job["shards"]]:
        batch.append(_one(ctx, job, kernel_id, handles[kernel_id]))
        now = time.perf_counter()
        if now - last >= job.get("batch_seconds", 0.1):
            write_frame(out, batch)
            batch, last = [], now
    if batch:
        write_frame(out, batch)
    write_frame(out, [])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
