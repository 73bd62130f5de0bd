"""The order NCU's rule results are read in: the largest estimated speedup first."""

from __future__ import annotations

from collections.abc import Iterable

from kernelscope.kinds.ncu.model.model import RuleResult

TYPE_ORDER = ("ERR", "WRN", "OPT", "INF")


def rules_by_speedup(rules: Iterable[RuleResult]) -> list[RuleResult]:
    """Rule results with an estimated speedup first, largest first; then the others by type
    (errors, warnings, optimisations, information), each group in NCU's order."""
    listed = list(rules)
    rank = {t: i for i, t in enumerate(TYPE_ORDER)}
    return sorted(
        listed,
        key=lambda r: (
            r.speedup_pct is None,
            -(r.speedup_pct or 0.0),
            rank.get(r.type, len(TYPE_ORDER)),
        ),
    )


__all__ = ["TYPE_ORDER", "rules_by_speedup"]
