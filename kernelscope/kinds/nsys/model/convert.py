"""Convert an ``.nsys-rep`` report to SQLite with ``nsys export``, into the cache."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from kernelscope.core.errors import ReportError
from kernelscope.core.hooks import (
    CancelHook,
    OpenCancelled,
    ProgressHook,
    is_cancelled,
    report_progress,
)
from kernelscope.kinds.nsys.model.decompress import uncompressed_name

_POLL_S = 0.1


def manual_export_hint(report: Path, *, compressed: bool = False) -> str:
    """The commands a user can run by hand when kernelscope cannot run nsys itself."""
    name = report.name
    if compressed:
        plain = uncompressed_name(report)
        return (
            f"`xz -dk {name}` (or `gzip -dk`) then "
            f"`nsys export --type sqlite -o out.sqlite {plain}`"
        )
    return f"`nsys export --type sqlite -o out.sqlite {name}`"


def export_command(nsys: Path, report: Path, output: Path) -> list[str]:
    """The argument list (never a shell string) that exports ``report`` to ``output``."""
    return [
        str(nsys),
        "export",
        "--type",
        "sqlite",
        "--force-overwrite",
        "true",
        "--output",
        str(output),
        str(report),
    ]


def _tail(log: Path, limit: int = 300) -> str:
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return ""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1][:limit] if lines else ""


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill the export and the process group it started (it runs in its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.wait()


def run_export(
    nsys: Path,
    report: Path,
    output: Path,
    *,
    display_name: str | None = None,
    progress: ProgressHook | None = None,
    cancel: CancelHook | None = None,
) -> Path:
    """Export ``report`` to ``output`` (atomically: a partial file never has the final name).

    Raises ReportError when nsys fails and OpenCancelled when ``cancel`` fires; either way
    no partial file is left behind.
    """
    name = display_name or report.name
    tag = f"{os.getpid()}-{os.urandom(4).hex()}"
    partial = output.with_name(f".partial-{tag}-{output.name}")
    log = output.with_name(f".partial-{tag}-{output.stem}.log")
    started = time.monotonic()
    try:
        with open(log, "wb") as log_fh:
            try:
                proc = subprocess.Popen(
                    export_command(nsys, report, partial),
                    stdin=subprocess.DEVNULL,
                    stdout=log_fh,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            except OSError as exc:
                raise ReportError(
                    f"{nsys} could not be started to export {name} ({exc.strerror or exc})."
                ) from exc
            try:
                while proc.poll() is None:
                    if is_cancelled(cancel):
                        _kill(proc)
                        raise OpenCancelled(f"Exporting {name} to SQLite was cancelled.")
                    elapsed = time.monotonic() - started
                    report_progress(
                        progress, f"Exporting {name} to SQLite with nsys ({elapsed:.0f} s)", None
                    )
                    time.sleep(_POLL_S)
            except BaseException:
                if proc.poll() is None:
                    _kill(proc)
                raise
        if proc.returncode != 0 or not partial.is_file() or partial.stat().st_size == 0:
            detail = _tail(log) or f"exit status {proc.returncode}"
            raise ReportError(f"nsys export failed on {name} ({detail}).")
        os.replace(partial, output)
    finally:
        partial.unlink(missing_ok=True)
        log.unlink(missing_ok=True)
    return output
