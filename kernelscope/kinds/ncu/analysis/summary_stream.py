"""``kernelscope summary`` of a kernel report in one streaming pass, at a memory that does not
grow with the report's metrics.

The summary ranks kernel families and shows, for each, its median launch's row and diagnosis
and how many of its launches agree with that launch's bottleneck label. So each kernel is read
and diagnosed as it streams by, and only what the ranking reads stays: its family key (names,
launch shape, duration), its bottleneck label and its process, about 200 bytes a launch,
instead of every kernel's metrics, rules and diagnosis (~20 KB). Once the families are known,
each family's median launch is read again and diagnosed with its family's share of the time,
exactly as ``kernel_analysis.analyze`` diagnoses it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from kernelscope.core.kernel_names import ShortNames
from kernelscope.kinds.ncu.analysis.analyzed_kernel import AnalyzedKernel, found_measured
from kernelscope.kinds.ncu.analysis.diagnosis.engine import label_and_roofline
from kernelscope.kinds.ncu.analysis.families import (
    KernelFamily,
    LaunchKey,
    ReportFamilies,
    families_of,
    launch_key,
)
from kernelscope.kinds.ncu.analysis.kernel_analysis import (
    family_shares,
    measured_duration,
    origin_in_process,
)
from kernelscope.kinds.ncu.model import KernelSummary, NcuReport

Origin = tuple[object, object]
"""A launch's (process id, process name) as its identity holds them."""
_T = TypeVar("_T")


@dataclass(frozen=True)
class StreamedSummary:
    """What ``summary`` prints of a kernel report, read in one pass (the module docstring).
    It answers the questions the summary asks of an ``AnalyzedReport`` the same way."""

    report: NcuReport
    families: ReportFamilies
    total_ns: float
    """The summed duration of the measured kernels (ns)."""
    unmeasured: int
    """How many kernels have no measurement."""
    names: ShortNames
    representatives: Mapping[int, AnalyzedKernel]
    """Each family's median launch, by kernel ID, with its diagnosis and time share."""
    labels: Sequence[str]
    """Each launch's bottleneck label, by kernel ID."""
    origins: Sequence[Origin]
    """Each launch's (process id, process name), by kernel ID."""
    process: str | None = None
    """Only families with a launch in this process (its id, or its name), when set."""

    @property
    def total_text_ns(self) -> float | None:
        """``total_ns``, or None when no kernel was measured (so no total is known)."""
        return self.total_ns if self.unmeasured < len(self.labels) else None

    def kernel(self, kernel_id: int) -> AnalyzedKernel:
        """A family's median launch (the only launches kept whole)."""
        return self.representatives[kernel_id]

    def family_labels(self, family: KernelFamily) -> list[str]:
        """The bottleneck label of each launch of ``family``."""
        return [self.labels[i] for i in family.ids]

    def select_families(self) -> list[KernelFamily]:
        """The families with a launch in ``process`` (all of them when it is not set),
        largest total first."""
        if self.process is None:
            return list(self.families)
        process = self.process
        index_of = self.families.index_of
        wanted = {
            index_of[i]
            for i, (pid, name) in enumerate(self.origins)
            if origin_in_process(pid, name, process)
        }
        return [f for f in self.families if f.index in wanted]


def _interned(seen: dict[_T, _T], value: _T) -> _T:
    """One object for every equal ``value`` (names repeat across thousands of launches)."""
    return seen.setdefault(value, value)


def _label(summary: KernelSummary) -> str:
    """The bottleneck label ``diagnose_summary`` gives the kernel (nothing else is kept)."""
    return label_and_roofline(summary.metrics, summary.sections, unmeasured=summary.unmeasured,
                              measured=found_measured(summary))[0]


def stream_summary(report: NcuReport) -> StreamedSummary:
    """Read, diagnose and rank every kernel of ``report`` keeping ~200 bytes a launch."""
    keys: list[LaunchKey] = []
    labels: list[str] = []
    origins: list[Origin] = []
    demangled: dict[str, None] = {}
    seen: dict[str, str] = {}
    seen_origins: dict[Origin, Origin] = {}
    total, unmeasured = 0.0, 0
    for batch in report.iter_summaries(analyse=_label, rules=False):  # the label needs none
        for summary, label in batch:
            if summary.id != len(keys):
                raise ValueError("iter_summaries yields kernels in ID order")
            kernel_id, name, family_name, grid, block, duration = launch_key(summary)
            keys.append((kernel_id, _interned(seen, name), _interned(seen, family_name),
                         _interned(seen, grid), _interned(seen, block), duration))
            labels.append(_interned(seen, label))
            identity = summary.identity
            origins.append(_interned(seen_origins, (identity.pid, identity.process)))
            demangled.setdefault(identity.name)
            total += duration if duration is not None else 0.0  # measured_duration's
            unmeasured += not summary.measured
    families = families_of(keys)
    del keys
    return StreamedSummary(
        report=report,
        families=families,
        total_ns=total,
        unmeasured=unmeasured,
        names=ShortNames(demangled),
        representatives=_representatives(report, families, total),
        labels=labels,
        origins=origins,
    )


def _representatives(
    report: NcuReport, families: ReportFamilies, total: float
) -> dict[int, AnalyzedKernel]:
    """Each family's median launch read again, to be diagnosed with its own and its family's
    share of the time (as ``analyze`` makes every launch it did not diagnose as it read)."""
    found: dict[int, AnalyzedKernel] = {}
    for family in families:
        kernel_id = family.representative
        summary = report.summary(kernel_id)
        duration = measured_duration(summary)
        share = (duration / total if total > 0 else None) if duration is not None else None
        weighing = family_shares(share, families, kernel_id)
        found[kernel_id] = AnalyzedKernel(summary, None, share, weighing)
    return found
