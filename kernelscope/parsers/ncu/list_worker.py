"""Passes over many kernels in a child process: ``python -m kernelscope.parsers.ncu.list_worker``.

ncu_report keeps every kernel it has opened in memory until the process exits (about 0.8 MB a
kernel on a default-set report, ~7 MB with ``--set full``), so passes over all kernels (the
kernel list, exports) run in short-lived children that stream plain model objects back;
several children split the kernels between cores, and each child stops once its memory
reaches its budget (``rss_limit_mb``), leaving the rest of its kernels to a fresh child
(``list_pool``), so no process outgrows the budget whatever the report's size.

Input (stdin): one pickled job dict: path, mode ("summary" or "detail"), ids (the kernels this
child reads, in order), rss_limit_mb (default: ``budget_mb()``), max_kernels (a child reads at
most that many), metrics (summary mode), extra, source, curves, all_metrics
and diagnose (detail mode: a picklable function of a KernelDetail whose result is sent with
it), rules, batch_seconds.
Output (stdout): frames of an 8-byte big-endian length and a pickled list of results
(KernelSummary, KernelDetail or (KernelDetail, diagnose result)), one per kernel in the order of
``ids``, ending with an empty list; a child that stopped at its budget has sent results for a
prefix of ``ids`` only.
"""

from __future__ import annotations

import os
import pickle
import resource
import sys
import time
from typing import Any

RSS_LIMIT_MB = 360
"""A child's memory budget: it stops before its resident size would pass this (the parent
then starts a fresh one for the rest), keeping every process under 400 MB. (ncu_report adds
~120 MB at the first kernel a process opens, then ~0.85 MB a kernel of a default-set report
and ~6.6 MB of a ``--set full`` one, measured on H200 reports.)"""


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
    if job.get("all_metrics"):
        from kernelscope.parsers.ncu.detail import read_all_metrics

        detail.all_metrics = read_all_metrics(action)
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


def budget_mb() -> float:
    """The memory budget of a child: ``KERNELSCOPE_WORKER_MB`` when set, else RSS_LIMIT_MB."""
    try:
        return float(os.environ.get("KERNELSCOPE_WORKER_MB", "")) or RSS_LIMIT_MB
    except ValueError:
        return RSS_LIMIT_MB


class _Resident:
    """This process's resident size (MB), read from ``/proc/self/statm`` (~10 µs), falling
    back to the peak from ``getrusage`` where there is no /proc. (getrusage costs ~0.4 ms
    right after ncu_report opens a kernel, a fifth of the opening itself; ncu_report frees
    nothing, so the resident size only grows and equals the peak.)"""

    def __init__(self) -> None:
        try:
            self._fd: int | None = os.open("/proc/self/statm", os.O_RDONLY)
        except OSError:
            self._fd = None
        self._page_mb = (os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096) / 2**20

    def mb(self) -> float:
        if self._fd is not None:
            try:
                return int(os.pread(self._fd, 128, 0).split()[1]) * self._page_mb
            except (OSError, ValueError, IndexError):
                self._fd = None
        return peak_rss_mb()


def peak_rss_mb() -> float:
    """This process's peak resident size so far (MB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _run(job: dict[str, Any]) -> int:
    import ncu_report

    ctx = ncu_report.load_report(job["path"])
    handles: list[tuple[int, int]] = []
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        handles.extend((r, a) for a in range(rng.num_actions() if rng is not None else 0))
    ids = job.get("ids")
    ids = list(range(len(handles))) if ids is None else ids
    limit = job.get("rss_limit_mb") or budget_mb()
    most = job.get("max_kernels") or len(ids)
    out = sys.stdout.buffer
    batch: list[Any] = []
    last = time.perf_counter()
    resident = _Resident()
    rss = resident.mb()
    step = 0.0  # the most one kernel has added so far, past the first (ncu_report's set-up)
    for done, kernel_id in enumerate(ids):
        if done and (rss + 2 * step > limit or done >= most):
            break  # the budget is reached: a fresh child reads the rest
        batch.append(_one(ctx, job, kernel_id, handles[kernel_id]))
        now_rss = resident.mb()
        if done:
            step = max(step, now_rss - rss)
        rss = now_rss
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
