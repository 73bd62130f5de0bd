"""A kernel of an analysed report (``kernel_analysis.AnalyzedReport.kernels``): its summary,
its share of the time and its diagnosis, made when first asked for where the reading did not
make it.

A document of a report's families reads two things of every launch, its bottleneck label (how
many of a family's launches agree) and its roofline point (the chart), and everything else
(flags, guard rails, notes) of each family's median launch alone. Both come from the
classification the diagnosis starts from (``engine.label_and_roofline``), about two fifths of
a diagnosis' work, so a launch whose diagnosis nobody asks for is never checked flag by flag;
the roofline asked alone (a document's count of the launches without one) is computed alone
(``engine.roofline_of``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from kernelscope.kinds.ncu.analysis.diagnosis import Diagnosis, diagnose
from kernelscope.kinds.ncu.analysis.diagnosis.engine import (
    Outline,
    label_and_roofline,
    outline_of,
    roofline_of,
)
from kernelscope.kinds.ncu.analysis.roofline.model import Roofline
from kernelscope.kinds.ncu.model import KernelDetail, KernelSummary

Weighing = tuple[float | None, float | None, int]
"""What weighs a kernel's diagnosis (``diagnose``'s ``time_share``, ``family_share`` and
``family_launches``)."""
UNWEIGHED: Weighing = (None, None, 1)

_Part = TypeVar("_Part")


def found_measured(kernel: KernelSummary | KernelDetail) -> bool:
    """Whether the model found the kernel measured: its ``unmeasured`` is
    ``unmeasured_reason`` of these very metrics, so the diagnosis need not read them again
    to find out (``diagnose``'s ``measured``)."""
    return kernel.unmeasured is None and bool(kernel.metrics)


def diagnose_summary(
    summary: KernelSummary, time_share: float | None = None, family_share: float | None = None,
    family_launches: int = 1, *, noted: bool = True,
) -> Diagnosis:
    """The kernel's diagnosis (``found_measured``: not checked again for a measurement),
    weighed by the shares given (``diagnose``; ``noted`` as there)."""
    return diagnose(
        summary.metrics, summary.rules, summary.sections, time_share=time_share,
        family_share=family_share, family_launches=family_launches,
        unmeasured=summary.unmeasured, measured=found_measured(summary), noted=noted,
    )


@dataclass(eq=False, slots=True)
class AnalyzedKernel:
    """A kernel with its share of the summed duration of all kernels in the report (0-1,
    ``time_share``) and its diagnosis: the one given, else ``diagnose_summary`` of its
    summary weighed by ``weighing``, made when first asked for. ``label`` and ``roofline``
    are the diagnosis' where it is made, else the classification's alone (the same)."""

    summary: KernelSummary
    made: Diagnosis | None
    """The diagnosis, once made (or as given)."""
    time_share: float | None
    weighing: Weighing = UNWEIGHED
    _classified: tuple[str, Roofline | None] | None = field(default=None, init=False, repr=False)
    _roofline: tuple[Roofline | None] | None = field(default=None, init=False, repr=False)
    _outline: Outline | None = field(default=None, init=False, repr=False)

    @property
    def diagnosis(self) -> Diagnosis:
        made = self.made
        if made is None:
            made = self.made = diagnose_summary(self.summary, *self.weighing)
        return made

    @property
    def label(self) -> str:
        """The bottleneck label of its diagnosis."""
        made = self.made
        return made.label if made is not None else self._classification()[0]

    @property
    def roofline(self) -> Roofline | None:
        """The roofline of its diagnosis (computed alone where nothing else is asked: a
        third of the classification's work)."""
        made, found = self.made, self._classified
        if made is not None:
            return made.roofline
        if found is not None:
            return found[1]
        alone = self._roofline
        if alone is None:
            s = self.summary
            alone = self._roofline = (roofline_of(s.metrics, unmeasured=s.unmeasured,
                                                  measured=found_measured(s)),)
        return alone[0]

    def row_diagnosis(self) -> Diagnosis:
        """Its diagnosis where made; else one made without the notes of what could not be
        checked, and not kept (``diagnose``'s ``noted``): for a CSV row, which reads the label
        and the flags alone."""
        made = self.made
        if made is not None:
            return made
        return diagnose_summary(self.summary, *self.weighing, noted=False)

    def outline(self) -> Outline:
        """The label, flag ids (in order) and roofline of its diagnosis: the diagnosis' where
        it is made, else worked out without the rest of it (``engine.outline_of``: a diff's
        JSON and CSV read no more of a launch) and kept."""
        made = self.made
        if made is not None:
            return made.label, tuple([flag.id for flag in made.flags]), made.roofline
        found = self._outline
        if found is None:
            found = self._outline = self._of_summary(outline_of)
        return found

    def _classification(self) -> tuple[str, Roofline | None]:
        found = self._classified
        if found is None:
            found = self._classified = self._of_summary(label_and_roofline)
        return found

    def _of_summary(self, part: Callable[..., _Part]) -> _Part:
        """A part of the diagnosis (``engine.label_and_roofline``, ``engine.outline_of``)
        worked out from its summary's metrics and sections alone."""
        s = self.summary
        return part(s.metrics, s.sections, unmeasured=s.unmeasured, measured=found_measured(s))

    @property
    def id(self) -> int:
        return self.summary.id

    @property
    def demangled(self) -> str:
        """The kernel's name by the one rule (demangled, else the function name)."""
        return self.summary.name

    @property
    def duration_ns(self) -> float | None:
        return self.summary.duration_ns

