"""The sample report bundled with kernelscope (what a bare ``kernelscope`` opens), and how a
report's path is shown: the sample by its name, never by the folder kernelscope is installed in.
"""

from __future__ import annotations

import os
from pathlib import Path

from kernelscope.core.errors import safe_text

SAMPLE_NAME = "sample_zoo_h200.ncu-rep.xz"
"""Twelve kernels of the sample zoo (memory-, compute-, latency- and launch-bound ones),
profiled on an H200: ``samples/ncu/zoo.ncu-rep.xz``."""


def bundled_sample_path() -> Path:
    """Where the bundled sample report is installed: the package's ``data`` folder, found
    from this module's place (``importlib.resources`` answers the same for a package on
    disk, and its import, zipfile's with it, cost every export a few milliseconds)."""
    return Path(__file__).parent.parent / "data" / SAMPLE_NAME


def is_bundled_sample(path: str | os.PathLike[str]) -> bool:
    try:
        return os.path.samefile(path, bundled_sample_path())
    except OSError:
        return False


def shown_path(path: str | os.PathLike[str]) -> str:
    """``path`` as exports print it: as given, except the bundled sample, which is named by
    its file name instead of its place inside the installation."""
    return SAMPLE_NAME if is_bundled_sample(path) else safe_text(path)
