"""What the kernel-report screens share: the open report and the kernels' summaries so far.

The kernel list, the detail, the roofline and their palette commands read it through
:func:`kernel_state`; :class:`~kernelscope.screens.kernel_session.KernelSession` (the kernel
report kind's session) fills it from its opening worker.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kernelscope.core.families import shape_tag, with_shape
from kernelscope.parsers.kernel_analysis import time_shares
from kernelscope.parsers.kernel_names import ShortNames
from kernelscope.parsers.ncu import KernelDetail, KernelSummary, NcuReport
from kernelscope.screens.columns import ColumnProvider, list_columns
from kernelscope.screens.session import session_of

if TYPE_CHECKING:
    from textual.dom import DOMNode


class KernelState:
    """An Nsight Compute report being read: its summaries in ID order as batches arrive."""

    def __init__(self, path: Path, extra_columns: Sequence[ColumnProvider] | None = None) -> None:
        self.report_path = Path(path)
        self.columns = list_columns(extra_columns, share=self.time_share)
        self.report: NcuReport | None = None
        self.summaries: list[KernelSummary] = []
        self._by_id: dict[int, KernelSummary] = {}
        self.loaded_all = False
        self.baseline: KernelDetail | None = None
        """The kernel marked with ``b``: every pane shows the deltas against it."""
        self.names = ShortNames()
        """The report's short kernel names (unique among the kernels loaded so far)."""
        self._shapes: dict[str, set[tuple[str, str]]] = {}
        """Per demangled name, the launch configurations (grid, block) loaded so far."""
        self._shares: tuple[int, dict[int, float | None]] | None = None

    def add_summaries(self, batch: list[KernelSummary]) -> set[str]:
        """Keep ``batch``; batches may arrive roughly, not strictly, in ID order (read by child
        processes), and the summaries are kept in ID order. Returns the demangled names whose
        short name changed (a new kernel can make an earlier name ambiguous)."""
        in_order = not self.summaries or min(s.id for s in batch) > self.summaries[-1].id
        self.summaries.extend(batch)
        if not in_order:
            self.summaries.sort(key=lambda s: s.id)
        reshaped: set[str] = set()
        for summary in batch:
            self._by_id[summary.id] = summary
            shapes = self._shapes.setdefault(demangled_of(summary), set())
            if _config(summary) not in shapes:
                shapes.add(_config(summary))
                if len(shapes) > 1:
                    reshaped.add(demangled_of(summary))
        return self.names.add(demangled_of(s) for s in batch) | reshaped

    def short_name(self, summary: KernelSummary) -> str:
        """The kernel's short name, unique among the report's kernels loaded so far, with its
        launch shape where only that tells it from launches of the same name
        (``parsers.families.shape_tag``)."""
        name = demangled_of(summary)
        shape = shape_tag(_config(summary), self._shapes.get(name, ()))
        return with_shape(self.names[name], shape)

    def time_share(self, summary: KernelSummary) -> float | None:
        """The kernel's share of the summed kernel time (0–1); None until every kernel is
        loaded (the sum is not known before)."""
        if not self.loaded_all:
            return None
        if self._shares is None or self._shares[0] != len(self.summaries):
            shares, _ = time_shares(self.summaries)
            by_id = {s.id: share for s, share in zip(self.summaries, shares, strict=True)}
            self._shares = (len(self.summaries), by_id)
        return self._shares[1].get(summary.id)

    def summary(self, kernel_id: int) -> KernelSummary | None:
        return self._by_id.get(kernel_id)

    def device_line(self) -> str:
        """``NVIDIA H200 (CC 9.0, 132 SMs)``."""
        if self.report is None:
            return ""
        device = self.report.device
        facts = []
        if device.compute_capability:
            facts.append(f"CC {device.compute_capability}")
        if device.sm_count:
            facts.append(f"{device.sm_count} SMs")
        return f"{device.name} ({', '.join(facts)})" if facts else device.name

    def title_line(self) -> str:
        """The kernel list's top line: report file, device, kernel count."""
        count = self.report.kernel_count if self.report is not None else 0
        parts = ["kernelscope", self.report_path.name, self.device_line(), f"{count:,} kernels"]
        return " · ".join(p for p in parts if p)

    def open_kernel(self, kernel_id: int, pane: str | None = None) -> None:
        """Show kernel ``kernel_id`` (in the open detail, or from the list); the session does."""
        raise NotImplementedError

    def mark_baseline(self, kernel_id: int, detail: KernelDetail | None = None) -> None:
        """Make kernel ``kernel_id`` the baseline (again on the baseline: clear it); the
        session does."""
        raise NotImplementedError


def _config(summary: KernelSummary) -> tuple[str, str]:
    return summary.identity.shape


def demangled_of(summary: KernelSummary) -> str:
    """The kernel's demangled name (its function name when the report has none)."""
    return summary.name


def kernel_state(node: DOMNode) -> KernelState:
    """The kernel report shown by the app ``node`` belongs to (for a session of several
    reports, such as a join, the one it shows now: its ``active_kernel_state``)."""
    state = session_of(node)
    state = getattr(state, "active_kernel_state", state)
    if not isinstance(state, KernelState):
        raise RuntimeError("no kernel report is open")
    return state
