"""The source line doing a kernel's atomics, from its hot spots (when source counters were
collected): what ``atomic-contention`` names as the line to change."""

from __future__ import annotations

from kernelscope.kinds.ncu.model.model import SourceHotspots

_ATOMIC_SASS = ("RED", "ATOM")


def atomic_line(source: SourceHotspots | None) -> tuple[str, float, str] | None:
    """The hottest source line that does atomics (its text names one), with the hottest
    RED/ATOM instruction, by share of the kernel's samples."""
    if source is None or not source.total_samples:
        return None
    lines = [s for s in source.lines if "atomic" in s.text.lower() and s.samples > 0]
    sass = [
        s for s in source.sass if _is_atomic(s.sass) and s.samples > 0
    ]
    if not lines and not sass:
        return None
    total = source.total_samples
    op = _opcode(max(sass, key=lambda s: s.samples).sass) if sass else ""
    if lines:
        top = max(lines, key=lambda s: s.samples)
        where = f"{top.file.rsplit('/', 1)[-1]}:{top.line}"
        note = top.text.strip() + (f" — SASS {op}" if op else "")
        return where, 100.0 * top.samples / total, note
    hot = max(sass, key=lambda s: s.samples)
    return f"{hot.file.rsplit('/', 1)[-1]}:{hot.line}", 100.0 * hot.samples / total, f"SASS {op}"


def _opcode(sass: str) -> str:
    """A SASS instruction's opcode, without its ``@P0`` predicate."""
    words = [w for w in sass.split() if not w.startswith("@")]
    return words[0] if words else ""


def _is_atomic(sass: str) -> bool:
    """Whether a SASS instruction is a RED or ATOM (global, shared or surface)."""
    return _opcode(sass).startswith(_ATOMIC_SASS)
