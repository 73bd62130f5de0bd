"""How the kernels of two reports are matched (the order is in ``kernels``' docstring): by
hand, by family, by function name and launch configuration, or as the only ones left."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence

from kernelscope.core.errors import ReportError, safe_text
from kernelscope.core.families import family_key
from kernelscope.core.options import parse_pair
from kernelscope.kinds.ncu.analysis.analyzed_kernel import AnalyzedKernel
from kernelscope.kinds.ncu.analysis.kernel_analysis import AnalyzedReport

HAND = "by hand"
FAMILY = "same family"
NAME = "same name and launch configuration"
ONLY = "the only kernels left"


def _family_key(kernel: AnalyzedKernel) -> tuple[str, ...]:
    """Demangled name and launch configuration: a family and its launch shape."""
    return family_key(kernel.summary.name, kernel.summary.identity.shape)


def _family_keys(report: AnalyzedReport) -> Callable[[AnalyzedKernel], Hashable]:
    """``_family_key`` of the kernels of ``report``, read from its families (grouped by the
    same demangled name and launch shape): made once per family, not once per kernel."""
    keys = [(f.demangled, f.grid, f.block) for f in report.families.families]
    index_of = report.families.index_of

    def key(kernel: AnalyzedKernel) -> Hashable:
        index = index_of.get(kernel.id)
        return _family_key(kernel) if index is None else keys[index]

    return key


def _name_key(kernel: AnalyzedKernel) -> tuple[str, ...]:
    """Function name (without template arguments or parameters) and launch configuration."""
    return (kernel.summary.identity.function, *kernel.summary.identity.shape)


def _alike(old: AnalyzedKernel, new: AnalyzedKernel) -> bool:
    """Whether two kernels share a function name or a launch shape: what "the only kernels
    left" must share to be paired (two unrelated kernels stay unmatched)."""
    a, b = old.summary.identity, new.summary.identity
    return a.function == b.function or a.shape == b.shape


def _group(
    kernels: Iterable[AnalyzedKernel], key: Callable[[AnalyzedKernel], Hashable]
) -> dict[Hashable, list[AnalyzedKernel]]:
    out: dict[Hashable, list[AnalyzedKernel]] = {}
    for k in kernels:
        out.setdefault(key(k), []).append(k)
    return out


def _chosen(report: AnalyzedReport, what: str, side: str) -> list[AnalyzedKernel]:
    """The kernels of ``report`` that ``what`` names: an ID, or a function or demangled name."""
    if what.isdigit():
        kernel_id = int(what)
        if kernel_id >= len(report.kernels):
            raise ReportError(
                f"The {side} report {safe_text(report.report.path.name)} has no kernel with "
                f"ID {kernel_id}."
            )
        return [report.kernel(kernel_id)]
    found = [k for k in report.kernels
             if what in (k.summary.identity.function, k.summary.identity.demangled)]
    if not found:
        raise ReportError(
            f"No kernel of the {side} report {safe_text(report.report.path.name)} is named "
            f"{what!r}."
        )
    return found


def _selected(report: AnalyzedReport, pattern: str | None) -> list[AnalyzedKernel]:
    return report.select(pattern) if pattern else list(report.kernels)


def match_kernels(
    before: AnalyzedReport,
    after: AnalyzedReport,
    by_hand: Sequence[tuple[str, str]] = (),
    pattern: str | None = None,
) -> tuple[list[tuple[AnalyzedKernel, AnalyzedKernel, str]], list[AnalyzedKernel],
           list[AnalyzedKernel]]:
    """(matched (before, after, how), unmatched before, unmatched after), see the docstring."""
    left = {k.id: k for k in _selected(before, pattern)}
    right = {k.id: k for k in _selected(after, pattern)}
    matched: list[tuple[AnalyzedKernel, AnalyzedKernel, str]] = []

    def take(olds: Sequence[AnalyzedKernel], news: Sequence[AnalyzedKernel], how: str) -> None:
        free_old = [k for k in olds if k.id in left]
        free_new = [k for k in news if k.id in right]
        for old, new in zip(free_old, free_new, strict=False):
            matched.append((old, new, how))
            del left[old.id], right[new.id]

    for a, b in by_hand:
        take(_chosen(before, a, "before"), _chosen(after, b, "after"), HAND)
    keys = (((_family_keys(before), _family_keys(after)), FAMILY), ((_name_key, _name_key), NAME))
    for (old_key, new_key), how in keys:
        new_groups = _group(right.values(), new_key)
        for group, olds in _group(left.values(), old_key).items():
            if group in new_groups:
                take(olds, new_groups[group], how)
    olds_left = _group(left.values(), lambda k: before.families.index_of.get(k.id))
    news_left = _group(right.values(), lambda k: after.families.index_of.get(k.id))
    if len(olds_left) == 1 and len(news_left) == 1:
        (olds,), (news,) = olds_left.values(), news_left.values()
        if len(olds) == len(news) and _alike(olds[0], news[0]):
            take(olds, news, ONLY)
    matched.sort(key=lambda m: (m[0].id, m[1].id))
    return matched, sorted(left.values(), key=lambda k: k.id), sorted(
        right.values(), key=lambda k: k.id)


__all__ = ["FAMILY", "HAND", "NAME", "ONLY", "match_kernels", "parse_pair"]
