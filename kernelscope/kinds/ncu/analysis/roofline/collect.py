"""Which ncu section collects a roofline a report lacks: said once for a chart, a report or a
record, whatever the number of kernels without a point.

A reason a kernel has no point (``Roofline.missing``, or no roofline at all) is either that
the metrics were not collected, which a section fixes, or something the kernel did (no work
at that precision, no traffic measured), which no section changes.
"""

from __future__ import annotations

from collections.abc import Iterable

from kernelscope.kinds.ncu.analysis.roofline.model import Roofline

NOT_COLLECTED = "roofline metrics not collected"
"""The reason of a kernel with no roofline at all."""
SECTIONS = {"tensor": "SpeedOfLight_HierarchicalTensorRooflineChart"}
"""The section of a precision whose metrics the main roofline section does not collect."""
MAIN_SECTION = "SpeedOfLight_RooflineChart"


def lacks_metrics(reason: str) -> bool:
    """The reason is metrics that were not collected (a section would bring them)."""
    return "not collected" in reason


def collect_command(precision: str = "fp32") -> str:
    """``ncu --section SpeedOfLight_RooflineChart`` (``--set full`` collects it too)."""
    return f"ncu --section {SECTIONS.get(precision, MAIN_SECTION)}"


def collect_hint(reasons: Iterable[str], precision: str = "fp32") -> str | None:
    """The command that collects the roofline (``collect_command``) when any of ``reasons``
    is metrics not collected; None otherwise. Said once, however many kernels it covers."""
    if not any(lacks_metrics(r) for r in reasons):
        return None
    return collect_command(precision)



def lacks_roofline(roofline: Roofline | None) -> bool:
    """The kernel has no roofline point because its metrics were not collected."""
    if roofline is None:
        return True
    return not roofline.points and any(lacks_metrics(r) for r in roofline.missing.values())
