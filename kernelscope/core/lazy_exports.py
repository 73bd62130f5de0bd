"""Names a package re-exports, imported only when first used (PEP 562).

A package's ``__init__`` that imports its public names eagerly makes every import of any of
its submodules pay for all of them: importing the diagnosis thresholds pulled in the whole
engine and the kernel-report readers. A package lists where each name lives instead, keeps the
imports under ``TYPE_CHECKING`` for the type checker, and sets ``__getattr__ =
lazy_exports(__name__, homes)``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, homes: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that imports ``name`` from the module
    ``homes[name]`` (relative to the package when it starts with a dot) on first use, and
    keeps it in the package's namespace."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(home, package)
        value = getattr(module, name)
        setattr(importlib.import_module(package), name, value)
        return value

    return __getattr__
