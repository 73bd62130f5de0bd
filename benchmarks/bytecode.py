"""Compile kernelscope's modules to bytecode before a benchmark times fresh processes.

An installed package has its bytecode (pip compiles it), and a source checkout writes it on
the first import, unless ``PYTHONDONTWRITEBYTECODE`` is set (as on the machines these
benchmarks run on), when every fresh process would compile ~100 modules again (~0.1 s) and
the benchmark would time the compiler instead of the tool.
"""

from __future__ import annotations

import compileall
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "kernelscope"


def compile_package() -> None:
    compileall.compile_dir(PACKAGE, quiet=1)
