"""Report kinds: the registry (``registry``) and the kinds kernelscope ships (``builtin``).

Importing this package registers the built-in kinds; a kind of another package is added with
``register(KindSpec(...))``.
"""

from kernelscope.kinds.builtin import BUILTIN
from kernelscope.kinds.registry import (
    KindSpec,
    OpenOptions,
    Probe,
    as_paths,
    by_subcommand,
    kind_for,
    kinds,
    opened,
    register,
    resolve,
    unregister,
)

for _kind in BUILTIN:
    register(_kind)

__all__ = [
    "BUILTIN",
    "KindSpec",
    "OpenOptions",
    "Probe",
    "as_paths",
    "by_subcommand",
    "kind_for",
    "kinds",
    "opened",
    "register",
    "resolve",
    "unregister",
]
