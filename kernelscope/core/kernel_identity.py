"""Who a kernel launch is: its names, launch shape, report handle and process.

Every reader of a kernel takes its name from :attr:`KernelIdentity.name`, the one name
rule: the demangled name, else the function name (a report may store no demangled name;
the kernel list, the diff, the families and the exports then all show the function name).
Plain values only: no polars, no Textual, no rich.
"""

from __future__ import annotations

from dataclasses import dataclass

from kernelscope.core.kept import fields_at_once

Dims = tuple[int, int, int]


def kernel_name(demangled: str | None, function: str | None) -> str:
    """The one name rule: the demangled name, else the function name, else empty."""
    return demangled or function or ""


def format_dims(dims: Dims) -> str:
    """Grid/block dims as ``x×y×z``, dropping trailing 1s (``256`` or ``64×64``)."""
    parts = list(dims)
    while len(parts) > 1 and parts[-1] == 1:
        parts.pop()
    return "×".join(str(p) for p in parts)


@fields_at_once
@dataclass(frozen=True)
class KernelIdentity:
    """One profiled launch's identity, as a report names and shapes it."""

    id: int
    """The kernel's ID in its report (0-based, in launch order)."""
    function: str
    """The function name (``ncu``'s short kernel name, e.g. ``gemm_kernel``)."""
    demangled: str
    """The demangled name as the ncu CLI prints it; empty where the report has none."""
    mangled: str = ""
    """The mangled name (the function name where the report has none)."""
    grid: Dims = (1, 1, 1)
    block: Dims = (1, 1, 1)
    range_idx: int = 0
    action_idx: int = 0
    pid: int | None = None
    """The id of the process that ran the kernel (None when the report does not say)."""
    process: str = ""
    """That process's executable name ("" when the report does not say)."""

    @property
    def name(self) -> str:
        """The kernel's full name: demangled, else the function name."""
        return kernel_name(self.demangled, self.function)

    @property
    def grid_text(self) -> str:
        """The grid as the kernel list prints it (``64``, ``128×4``)."""
        return format_dims(self.grid)

    @property
    def block_text(self) -> str:
        return format_dims(self.block)

    @property
    def shape(self) -> tuple[str, str]:
        """(grid, block) as printed: what tells two shapes of one kernel name apart."""
        return self.grid_text, self.block_text

    @property
    def grid_size(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def block_size(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]


def process_text(identity: KernelIdentity) -> str:
    """The process a launch ran in, as lists print it: ``python (4242)``, ``? (None)`` for a
    report that does not say."""
    return f"{identity.process or '?'} ({identity.pid})"


def dims_text(x: int | None, y: int | None, z: int | None) -> str:
    """Dims read one by one (a timeline's columns) as ``format_dims`` writes them; ``?`` when
    the report does not say."""
    if x is None:
        return "?"
    return format_dims((x, y or 1, z or 1))
