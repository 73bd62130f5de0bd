"""Where SQLite exports of ``.nsys-rep`` reports are kept, and how they are named."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from kernelscope.core.errors import ReportError


def default_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/kernelscope``, else ``~/.cache/kernelscope``."""
    env = os.environ if env is None else env
    base = env.get("XDG_CACHE_HOME")
    root = Path(base).expanduser() if base else Path.home() / ".cache"
    return root / "kernelscope"


def cache_name(report: Path, suffix: str = ".sqlite") -> str:
    """A file name unique to this report's resolved path, size and modification time.

    A report that is rewritten in place gets a new name, so a stale export is never reused.
    """
    resolved = report.resolve()
    st = resolved.stat()
    key = f"{resolved}\0{st.st_size}\0{st.st_mtime_ns}".encode()
    digest = hashlib.sha256(key).hexdigest()[:16]
    stem = resolved.name.split(".")[0][:60] or "report"
    return f"{stem}-{digest}{suffix}"


def ensure_cache_dir(cache_dir: Path) -> Path:
    """Create ``cache_dir`` if needed and check it is writable, else raise ReportError."""
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ReportError(
            f"The cache directory {cache_dir} cannot be created ({reason}); "
            "set XDG_CACHE_HOME to a writable directory."
        ) from exc
    if not cache_dir.is_dir() or not os.access(cache_dir, os.W_OK | os.X_OK):
        raise ReportError(
            f"The cache directory {cache_dir} is not writable; "
            "set XDG_CACHE_HOME to a writable directory."
        )
    return cache_dir
