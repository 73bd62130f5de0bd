"""What a diagnosis could not check, in words: each section neither collected nor stood in for by
its metrics (the roofline's by a point), then the checks skipped for lack of metrics.

The words depend on the report's sections, on which of the stand-in metrics hold a number, on
whether the roofline has a point and on the checks skipped. A report's launches repeat one set
of sections, one list of metric names and the same few skips, so ``notes`` works the words out
once for each and keeps them: by the sections and the metric names it keeps which stand-ins to
read (``_Plan``), and by what those read the words; by the skipped checks, their words.
``plain_notes`` is the same without keeping anything (what a test compares them with).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from kernelscope.core.memo import Memo
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.values import number
from kernelscope.kinds.ncu.analysis.roofline.model import Roofline
from kernelscope.kinds.ncu.model.metrics import Metric

# The sections whose absence the notes mention, with what is lost without them and the metrics
# that stand in for them: a metrics-only report (ncu --metrics) holds some of a section's
# metrics without the section, and every check those allow runs.
SECTION_EFFECTS = (
    (n.SECTION_SOL, "no bottleneck label beyond the launch shape",
     (n.SM_PCT, n.MEM_PCT, n.DRAM_PCT)),
    (n.SECTION_LAUNCH, "no grid, wave or tail checks", (n.GRID_SIZE, n.WAVES)),
    (n.SECTION_OCCUPANCY, "no occupancy checks", (n.THEORETICAL_OCC, n.ACHIEVED_OCC)),
    (n.SECTION_MEMORY_TABLES, "no coalescing, bank-conflict or spill checks",
     (n.LOCAL_LD_REQUESTS, n.GLOBAL_LD_SECTORS, n.SHARED_CONFLICTS)),
    (n.SECTION_MEMORY, "no L2 hit-rate check", (n.L2_HIT,)),
    (n.SECTION_COMPUTE, "no pipe utilisation, so compute-bound cannot be confirmed",
     tuple(name for _, pipe in (*n.BUSY_PIPES, *n.OTHER_PIPES)
           for name in (pipe, n.elapsed_form(pipe)))),
    (n.SECTION_WARP_STATE, "no stall-reason checks", (n.WARP_LATENCY,)),
    (n.SECTION_SOURCE, "no per-line hot spots and no excessive-sector counts",
     (n.EXCESSIVE_SECTORS, n.SPILL_INSTRUCTIONS)),
    (n.SECTION_ROOFLINE, "no roofline point", ()),
)

_SECTION_EFFECTS_SETS = tuple(
    (section, f"Section {section} not collected: {effect}.", names, frozenset(names))
    for section, effect, names in SECTION_EFFECTS
)
"""``SECTION_EFFECTS`` with each section's note and its stand-in metrics as a set as well."""

Skipped = dict[str, tuple[str, ...]]
"""The checks skipped for lack of sections, by flag id: the sections missing."""


def plain_notes(
    sections: Collection[str], skipped: Skipped, metrics: Mapping[str, Metric],
    roofline: Roofline | None,
) -> list[str]:
    """The notes (see the module), worked out afresh."""
    notes = []
    if sections:
        keys = metrics.keys()
        for section, note, names, named in _SECTION_EFFECTS_SETS:
            if section in sections:
                continue
            if section == n.SECTION_ROOFLINE:
                held = _has_point(roofline)
            else:  # none of the names held: not held, without reading a value
                held = not keys.isdisjoint(named) and _reads_number(metrics, names)
            if not held:
                notes.append(note)
    if skipped:
        notes.extend(skipped_notes(skipped))
    return notes


def _has_point(roofline: Roofline | None) -> bool:
    """Whether the roofline stands in for its section: it has a point."""
    return roofline is not None and bool(roofline.points)


def _reads_number(metrics: Mapping[str, Metric], names: tuple[str, ...]) -> bool:
    """Whether one of ``names`` reads a number (a stand-in for its section is held)."""
    return any(number(metrics, name) is not None for name in names)


def skipped_notes(skipped: Skipped) -> tuple[str, ...]:
    """One note for each set of missing sections, naming the checks it left unrun."""
    by_section: dict[tuple[str, ...], list[str]] = {}
    for flag_id, secs in skipped.items():
        ids = by_section.get(secs)
        if ids is None:
            ids = by_section[secs] = []
        ids.append(flag_id)
    return tuple(f"Not checked for lack of metrics (from {', '.join(secs)}): {', '.join(ids)}."
                 for secs, ids in by_section.items())


def notes(
    sections: Collection[str], skipped: Skipped, metrics: Mapping[str, Metric],
    roofline: Roofline | None,
) -> tuple[str, ...]:
    """``plain_notes``, kept (see the module) for a frozenset of sections and a dict of
    metrics (whose names are its keys); worked out afresh for anything else."""
    if type(sections) is not frozenset or type(metrics) is not dict:
        return tuple(plain_notes(sections, skipped, metrics, roofline))
    said = _section_words(sections, metrics, roofline) if sections else ()
    if not skipped:
        return said
    return (*said, *_skip_words(skipped))


class _Plan:
    """For one set of sections and one list of metric names: each section not collected, with
    its note and the stand-ins for it among the names (None: the roofline's point stands in),
    and the notes kept by what the stand-ins read (one bool a section that has any)."""

    __slots__ = ("asked", "entries", "said")

    def __init__(self, sections: frozenset[str], names: tuple[str, ...]) -> None:
        held = set(names)
        entries: list[tuple[str, tuple[str, ...] | None]] = []
        for section, note, stand_ins, _ in _SECTION_EFFECTS_SETS:
            if section in sections:
                continue
            if section == n.SECTION_ROOFLINE:
                entries.append((note, None))
            else:
                entries.append((note, tuple(name for name in stand_ins if name in held)))
        self.entries = tuple(entries)
        self.asked = tuple(reads for _, reads in entries if reads is None or reads)
        """What each launch reads: the stand-ins of each section that has any, in order."""
        self.said: dict[tuple[bool, ...], tuple[str, ...]] = {}

    def words(self, held: tuple[bool, ...]) -> tuple[str, ...]:
        """The notes of the sections not stood in for, ``held`` saying (in ``asked``'s order)
        whether each section with stand-ins had one read."""
        stood_in = iter(held)
        said = []
        for note, reads in self.entries:
            asked = reads is None or bool(reads)
            if not (asked and next(stood_in)):
                said.append(note)
        return tuple(said)


_PLANS: Memo[tuple[frozenset[str], tuple[str, ...]], _Plan] = Memo(64)
"""A ``_Plan`` by the sections and the metric names."""


def _section_words(
    sections: frozenset[str], metrics: dict[str, Metric], roofline: Roofline | None
) -> tuple[str, ...]:
    """The notes of the sections neither collected nor stood in for (``plain_notes``'s first
    part), through the ``_Plan`` of the sections and the metric names."""
    key = (sections, tuple(metrics))
    plan = _PLANS.get(key)
    if plan is None:
        plan = _PLANS.keep(key, _Plan(sections, key[1]))
    read = []
    for reads in plan.asked:
        read.append(_has_point(roofline) if reads is None else _holds_number(metrics, reads))
    held = tuple(read)
    words = plan.said.get(held)
    if words is None:
        words = plan.said[held] = plan.words(held)
    return words


def _holds_number(metrics: dict[str, Metric], names: tuple[str, ...]) -> bool:
    """``_reads_number`` as a loop (no generator made for the one or two names a launch
    usually reads)."""
    held = False
    for name in names:
        if number(metrics, name) is not None:
            held = True
            break
    return held


_SKIPS: Memo[tuple[str, ...], tuple[Skipped, tuple[str, ...]]] = Memo(256)
"""``skipped_notes`` by the ids of the checks skipped, with the skips they were made of."""


def _skip_words(skipped: Skipped) -> tuple[str, ...]:
    """``skipped_notes`` of ``skipped``, kept: found by the flag ids skipped and used where
    the sections each misses are equal too (a dict compared with the one kept)."""
    key = tuple(skipped)
    kept = _SKIPS.get(key)
    if kept is not None and kept[0] == skipped:
        return kept[1]
    words = skipped_notes(skipped)
    _SKIPS.keep(key, (dict(skipped), words))
    return words
