"""Two kernel reports compared: kernels matched across them, and what changed for each pair.

Matching, in this order (each kernel is paired at most once):

1. the pairs asked for by hand (``--pair A=B``, or the TUI): a kernel ID or a name (the
   function name ncu prints, or the demangled name) on each side, their launches in order;
2. the same kernel family (``kinds.ncu.analysis.families``: demangled name and launch
   configuration), launches in launch order;
3. the same function name and launch configuration (a template argument changed:
   ``transpose_smem<0>`` → ``transpose_smem<1>``), in launch order;
4. when one family is left on each side with as many launches (a single-kernel report before
   and after, or one kernel replaced by another) and the two share a function name or a
   launch shape (grid × block), those, in launch order; two unrelated kernels stay
   unmatched.

Everything else is unmatched: listed on its side. A pair carries both kernels' durations, the
speedup (before / after), the bottleneck label's transition, the flags resolved and new, each
pane's key metrics (``kinds.ncu.analysis.metric_changes``) and both roofline points.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from kernelscope.core.errors import ReportError, kernel_filter, safe_text
from kernelscope.kinds.diff.analysis.devices import Device, Devices, device_from
from kernelscope.kinds.diff.analysis.matching import (
    FAMILY,
    HAND,
    NAME,
    ONLY,
    match_kernels,
    parse_pair,
)
from kernelscope.kinds.diff.analysis.summed import Summed, Timed
from kernelscope.kinds.ncu.analysis.analyzed_kernel import AnalyzedKernel
from kernelscope.kinds.ncu.analysis.kernel_analysis import AnalyzedReport, measured_duration
from kernelscope.kinds.ncu.analysis.metric_changes import (
    MetricChange,
    TimeChange,
    metric_changes,
)
from kernelscope.kinds.ncu.analysis.roofline.model import PrecisionPoint


@dataclass(frozen=True)
class KernelPair(Timed):
    """One kernel before and its counterpart after: their durations' change and speedup
    (``Timed``), labels, flags, metrics and roofline points."""

    before: AnalyzedKernel
    after: AnalyzedKernel
    matched_by: str

    @cached_property
    def metrics(self) -> tuple[MetricChange, ...]:
        """Each pane's key metrics before and after (``metric_changes``): made when first
        read (the Markdown reads those of the few pairs it gives a section)."""
        return metric_changes(self.before.summary.metrics, self.after.summary.metrics)

    @cached_property
    def before_ns(self) -> float | None:
        """The before kernel's measured duration (read once: a row reads it several times)."""
        return measured_duration(self.before.summary)

    @cached_property
    def after_ns(self) -> float | None:
        return measured_duration(self.after.summary)

    def compared_ns(self) -> tuple[float | None, float | None]:
        return self.before_ns, self.after_ns

    @property
    def label_change(self) -> str | None:
        """``l1-bound → compute-bound``, or None when the label stayed."""
        old, new = self.before.outline()[0], self.after.outline()[0]
        return None if old == new else f"{old} → {new}"

    @property
    def flags_resolved(self) -> tuple[str, ...]:
        """The flags of the before kernel the after kernel no longer has."""
        now = set(self.after.outline()[1])
        return tuple(flag for flag in self.before.outline()[1] if flag not in now)

    @property
    def flags_new(self) -> tuple[str, ...]:
        """The flags of the after kernel the before kernel did not have."""
        was = set(self.before.outline()[1])
        return tuple(flag for flag in self.after.outline()[1] if flag not in was)

    @property
    def flags_kept(self) -> tuple[tuple[str, str, str], ...]:
        """(flag, severity before, severity after) of the flags both kernels have."""
        now = {f.id: f.severity for f in self.after.diagnosis.flags}
        return tuple((f.id, f.severity, now[f.id]) for f in self.before.diagnosis.flags
                     if f.id in now)

    def roofline_points(self) -> dict[str, tuple[PrecisionPoint | None, PrecisionPoint | None]]:
        """Per precision either kernel did work in: (before point, after point)."""
        old = self.before.outline()[2]
        new = self.after.outline()[2]
        keys = dict.fromkeys([*(old.points if old else {}), *(new.points if new else {})])
        return {
            key: (old.point(key) if old else None, new.point(key) if new else None)
            for key in keys
        }

    @staticmethod
    def _main_point(kernel: AnalyzedKernel) -> PrecisionPoint | None:
        """The kernel's point at the precision it did the most FLOP/s in."""
        roof = kernel.outline()[2]
        points = [p for p in (roof.points.values() if roof else ()) if p.flops_per_s > 0]
        return max(points, key=lambda p: p.flops_per_s) if points else None

    def chart_points(self) -> tuple[str, PrecisionPoint | None, PrecisionPoint | None] | None:
        """Both kernels on one roofline: (precision, before point, after point). The chart is
        the after kernel's main precision (the before kernel's when the after one did no
        floating-point work); a kernel that did no work at that precision is shown at its
        own main precision (FP32 before, tensor after: where the work moved). None when
        neither kernel has a point."""
        old, new = self._main_point(self.before), self._main_point(self.after)
        main = new or old
        if main is None:
            return None
        precision = main.precision
        points = self.roofline_points().get(precision, (None, None))
        before = points[0] if points[0] is not None and points[0].flops_per_s > 0 else old
        after = points[1] if points[1] is not None and points[1].flops_per_s > 0 else new
        return precision, before, after


@dataclass(frozen=True)
class KernelDiff:
    """Two kernel reports compared (``diff_kernels``): each kernel ``pattern`` selects is in
    one pair or unmatched on its side."""

    before: AnalyzedReport
    after: AnalyzedReport
    pairs: tuple[KernelPair, ...]
    """The matched kernels, by before kernel ID (then after kernel ID)."""
    unmatched_before: tuple[AnalyzedKernel, ...]
    unmatched_after: tuple[AnalyzedKernel, ...]
    pattern: str | None = None
    """The kernel filter (``-k``, a regular expression on names); None: every kernel."""

    @cached_property
    def families(self) -> tuple[TimeChange, ...]:
        """One row per before family and the after family its launches were paired with
        (``_family_changes``), largest time first."""
        return _family_changes(self.before, self.after, self.pairs, self.unmatched_before,
                               self.unmatched_after)

    @property
    def summed(self) -> Summed:
        """The headline: the compared kernels' time (those ``pattern`` selects), per instance
        where the counts differ."""
        olds, news = self.before.select(self.pattern), self.after.select(self.pattern)
        return Summed(_total(olds), _total(news), _count(olds), _count(news), len(self.pairs))

    @property
    def paths(self) -> tuple[Path, Path]:
        """The two inputs (before, after)."""
        return self.before.report.path, self.after.report.path

    @cached_property
    def devices(self) -> Devices:
        """The GPU each report was taken on (``devices``: whether they differ)."""
        def of(report: AnalyzedReport) -> tuple[Device, ...]:
            device = report.report.device
            return (device_from(device.name, device.sm_count, device.attributes),)

        return Devices(of(self.before), of(self.after))

    def short_name(self, kernel: AnalyzedKernel) -> str:
        """``kernel``'s short name in its own report: what that report's kernel list shows
        (``AnalyzedReport.short_name``: its ``ShortNames`` and launch shape)."""
        own = kernel.id < len(self.before.kernels) and self.before.kernel(kernel.id) is kernel
        return (self.before if own else self.after).short_name(kernel)

    def pair_of(self, side: str, kernel_id: int) -> KernelPair | None:
        for pair in self.pairs:
            if (pair.before if side == "before" else pair.after).id == kernel_id:
                return pair
        return None


def _total(kernels: Iterable[AnalyzedKernel]) -> float:
    return float(sum(measured_duration(k.summary) or 0.0 for k in kernels))


def _count(kernels: Iterable[AnalyzedKernel]) -> int:
    return sum(1 for k in kernels if measured_duration(k.summary) is not None)


def _family_changes(
    before: AnalyzedReport,
    after: AnalyzedReport,
    pairs: Sequence[KernelPair],
    unmatched_before: Sequence[AnalyzedKernel],
    unmatched_after: Sequence[AnalyzedKernel],
) -> tuple[TimeChange, ...]:
    """One row per before family and the after family its launches were paired with; a
    family of one side alone gets a row with the other side absent."""
    rows: dict[tuple[int | None, int | None], list[list[AnalyzedKernel]]] = {}

    def fam(report: AnalyzedReport, kernel: AnalyzedKernel) -> int | None:
        family = report.family(kernel.id)
        return None if family is None else family.index

    link: dict[int, int] = {}
    for p in pairs:
        b, a = fam(before, p.before), fam(after, p.after)
        if b is not None and a is not None:
            link.setdefault(b, a)
    reverse = {a: b for b, a in link.items()}
    for p in pairs:
        b = fam(before, p.before)
        key = (b, link.get(b)) if b is not None else (None, fam(after, p.after))
        sides = rows.setdefault(key, [[], []])
        sides[0].append(p.before)
        sides[1].append(p.after)
    for k in unmatched_before:
        b = fam(before, k)
        rows.setdefault((b, link.get(b) if b is not None else None), [[], []])[0].append(k)
    for k in unmatched_after:
        a = fam(after, k)
        rows.setdefault((reverse.get(a) if a is not None else None, a), [[], []])[1].append(k)
    out = []
    for (b, a), (olds, news) in rows.items():
        old_name = before.families.families[b].name if b is not None else ""
        new_name = after.families.families[a].name if a is not None else ""
        name = old_name if not new_name or new_name == old_name else (
            new_name if not old_name else f"{old_name} → {new_name}")
        demangled = (before.families.families[b].demangled if b is not None else "",
                     after.families.families[a].demangled if a is not None else "")
        out.append(TimeChange(
            name=name,
            kernels=tuple(dict.fromkeys(d for d in demangled if d)),
            before_ns=_sum(olds),
            after_ns=_sum(news),
            before_count=len(olds),
            after_count=len(news),
        ))
    out.sort(key=lambda f: -max(f.before_ns or 0.0, f.after_ns or 0.0))
    return tuple(out)


def _sum(kernels: Sequence[AnalyzedKernel]) -> float | None:
    if not kernels:
        return None
    return float(sum(measured_duration(k.summary) or 0.0 for k in kernels))


def make_pair(before: AnalyzedKernel, after: AnalyzedKernel, how: str) -> KernelPair:
    return KernelPair(before, after, how)


def diff_kernels(
    before: AnalyzedReport,
    after: AnalyzedReport,
    by_hand: Sequence[tuple[str, str]] = (),
    pattern: str | None = None,
) -> KernelDiff:
    """Compare two analysed kernel reports (only the kernels ``pattern`` selects, if given)."""
    kernel_filter(pattern)
    matched, olds, news = match_kernels(before, after, by_hand, pattern)
    if pattern and not (matched or olds or news):
        raise ReportError(
            f"No kernel of {safe_text(before.report.path.name)} or "
            f"{safe_text(after.report.path.name)} matches {pattern!r}, so there is nothing "
            "to compare."
        )
    pairs = tuple(make_pair(old, new, how) for old, new, how in matched)
    return KernelDiff(before, after, pairs, tuple(olds), tuple(news), pattern)


def with_pair(diff: KernelDiff, before_id: int, after_id: int) -> KernelDiff:
    """``diff`` with kernel ``before_id`` paired by hand with ``after_id`` (both taken out of
    any pair or unmatched list they were in)."""
    old = diff.before.kernel(before_id)
    new = diff.after.kernel(after_id)
    pairs = [p for p in diff.pairs if p.before.id != before_id and p.after.id != after_id]
    freed_old = [p.before for p in diff.pairs
                 if p.after.id == after_id and p.before.id != before_id]
    freed_new = [p.after for p in diff.pairs
                 if p.before.id == before_id and p.after.id != after_id]
    pairs.append(make_pair(old, new, HAND))
    pairs.sort(key=lambda p: (p.before.id, p.after.id))
    olds = sorted([k for k in diff.unmatched_before if k.id != before_id] + freed_old,
                  key=lambda k: k.id)
    news = sorted([k for k in diff.unmatched_after if k.id != after_id] + freed_new,
                  key=lambda k: k.id)
    return replace(diff, pairs=tuple(pairs), unmatched_before=tuple(olds),
                   unmatched_after=tuple(news))


__all__ = [
    "FAMILY",
    "HAND",
    "NAME",
    "ONLY",
    "KernelDiff",
    "KernelPair",
    "diff_kernels",
    "make_pair",
    "match_kernels",
    "parse_pair",
    "with_pair",
]
