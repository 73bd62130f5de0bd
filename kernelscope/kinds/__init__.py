"""Report kinds: the registry (``registry``) and the kinds kernelscope ships (``builtin``).

The registry loads the built-in kinds on first use (it names ``builtin`` only as a string, so
importing the registry imports no kind); a kind of another package is added with
``register(KindSpec(...))``.
"""

from kernelscope.core.lazy_exports import lazy_exports
from kernelscope.core.options import OpenOptions
from kernelscope.kinds.registry import (
    DerivedFormat,
    KindSpec,
    Probe,
    as_paths,
    by_subcommand,
    formats,
    kind_for,
    kinds,
    opened,
    register,
    register_format,
    resolve,
    suffixes,
    unregister,
)

__getattr__ = lazy_exports(__name__, {"BUILTIN": ".builtin"})

__all__ = [
    "BUILTIN",
    "DerivedFormat",
    "KindSpec",
    "OpenOptions",
    "Probe",
    "as_paths",
    "by_subcommand",
    "formats",
    "kind_for",
    "kinds",
    "opened",
    "register",
    "register_format",
    "resolve",
    "suffixes",
    "unregister",
]
