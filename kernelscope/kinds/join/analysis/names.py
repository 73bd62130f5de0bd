"""The name two reports agree on for a kernel: its demangled name as the ncu CLI prints it.

nsys keeps the casts of template arguments (``vectorized_elementwise_kernel<(int)4, …,
(unsigned long)2>``) where ``ncu`` prints the bare values (``<4, …, 2>``); both sides are
reduced to the CLI's spelling, with runs of spaces collapsed, before they are compared. Where
both reports hold the mangled name (nsys ``mangledName``, ncu's mangled base) that is compared
first: it is exact.
"""

from __future__ import annotations

import re

from kernelscope.kinds.ncu.model.summary_reader import cli_demangled

_SPACES = re.compile(r"\s+")


def match_name(demangled: str) -> str:
    """``demangled`` in the spelling both reports share."""
    return _SPACES.sub(" ", cli_demangled(demangled)).strip()


def is_mangled(name: str) -> bool:
    """True for an Itanium-mangled symbol (``_Z…``); nsys repeats the demangled name where it
    has no mangled one."""
    return name.startswith("_Z")
