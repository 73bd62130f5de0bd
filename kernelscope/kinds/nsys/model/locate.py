"""Find the ``nsys`` command-line tool that converts ``.nsys-rep`` reports to SQLite."""

from __future__ import annotations

import glob
import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path

# Where NVIDIA installers put nsys, newest version first after sorting.
_INSTALL_GLOBS = (
    "/opt/nvidia/nsight-systems/*/bin/nsys",
    "/usr/local/cuda*/bin/nsys",
    "/opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys",
)


def _version_key(path: str) -> tuple[tuple[int, ...], str]:
    """Sort key: the numbers in the path's version directory, so 2025.3.1 beats 2024.6.2."""
    numbers = tuple(int(n) for n in re.findall(r"\d+", path))
    return numbers, path


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_nsys(env: Mapping[str, str] | None = None) -> Path | None:
    """Return the ``nsys`` executable to use, or None when there is none.

    Looked up in order: ``$NSYS`` (the executable or its directory), ``PATH``, then the
    usual install directories (``/opt/nvidia/nsight-systems/*/bin``, ``/usr/local/cuda*/bin``,
    the copy inside Nsight Compute), newest version first.
    """
    env = os.environ if env is None else env
    explicit = env.get("NSYS")
    if explicit:
        candidate = Path(explicit).expanduser()
        if candidate.is_dir():
            candidate = candidate / "nsys"
        if _is_executable(candidate):
            return candidate
    found = shutil.which("nsys", path=env.get("PATH", ""))
    if found:
        return Path(found)
    for pattern in _INSTALL_GLOBS:
        for hit in sorted(glob.glob(pattern), key=_version_key, reverse=True):
            if _is_executable(Path(hit)):
                return Path(hit)
    return None
