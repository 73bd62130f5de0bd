"""The model stays UI-free: importing every parser module never pulls in textual or rich."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import kernelscope.parsers


def test_parsers_never_import_textual_or_rich():
    modules = [
        m.name for m in pkgutil.walk_packages(kernelscope.parsers.__path__, "kernelscope.parsers.")
    ]
    assert "kernelscope.parsers.ncu.report" in modules
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in ('textual', 'rich')"
        " or n.startswith(('kernelscope.tui', 'kernelscope.screens')))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"kernelscope.parsers imported UI modules: {out}"
