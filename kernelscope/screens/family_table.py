"""The kernel list's family view: one row per kernel family, ranked by total time, each
expandable into its launches (the method's step 0: what is worth optimising first)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable

from kernelscope.parsers.diagnosis import Diagnosis
from kernelscope.parsers.diagnosis.cache import summary_diagnosis
from kernelscope.parsers.diagnosis.verdict import top_flag_text
from kernelscope.parsers.families import KernelFamily, ReportFamilies
from kernelscope.parsers.kernel_names import compact_name, fit_name
from kernelscope.parsers.ncu import KernelSummary
from kernelscope.render.families import family_label
from kernelscope.render.format import NOT_AVAILABLE, fmt_duration, fmt_pct

FAMILY_PREFIX = "f:"
LAUNCH_PREFIX = "k:"

COLUMNS: tuple[tuple[str, str, bool], ...] = (
    ("family", "Family", False),
    ("launches", "Launches", True),
    ("total", "Total", True),
    ("share", "Share %", True),
    ("median", "Median", True),
    ("launch", "Grid × block", False),
    ("bottleneck", "Bottleneck", False),
    ("top_flag", "Top flag", False),
)
"""(key, title, numeric) of each column."""

FamilyKey = tuple[str, str | None, str | None]
OTHER_COLUMNS_WIDTH = 100
"""Roughly what the columns other than the family's name take."""


def fit_name_width(width: int) -> int:
    """The family names' width for a terminal ``width`` (16–72)."""
    return max(16, min(72, width - OTHER_COLUMNS_WIDTH))


class FamilyTable(DataTable[Text]):
    """The family view's table: enter on a family expands or folds it, on a launch opens it."""

    DEFAULT_CSS = """
    FamilyTable {
        height: 1fr;
    }
    """

    BINDINGS = [
        Binding(
            "enter", "select_cursor", "Open/expand", id="families.open",
            tooltip="Expand or fold the highlighted family; open the highlighted launch.",
        ),
    ]


@dataclass(frozen=True)
class Row:
    """One row of the family view: a family, or one of its launches."""

    key: str
    cells: tuple[Text, ...]
    family: KernelFamily
    kernel_id: int | None = None
    """The launch's ID; None on a family's row."""


def _num(text: str) -> Text:
    return Text(text, justify="right")


def _share(value: float | None) -> str:
    return NOT_AVAILABLE if value is None else fmt_pct(value * 100)


def family_cells(
    family: KernelFamily,
    diagnoses: Sequence[Diagnosis],
    representative: Diagnosis,
    expanded: bool,
    name_width: int,
    short: Callable[[str], str] = compact_name,
) -> tuple[Text, ...]:
    """A family's cells: its name (``short``: its short name in the report, fitted to
    ``name_width``, with the fold marker), count, total, share, median, launch shape and the
    verdict of its median launch (with how many launches share the label)."""
    marker = "▾ " if expanded else "▸ "
    if family.count == 1:
        marker = "  "
    return (
        Text(marker + fit_name(family.label(short(family.demangled)), name_width), no_wrap=True),
        _num(f"{family.count:,}"),
        _num(fmt_duration(family.total_duration_ns)),
        _num(_share(family.time_share)),
        _num(fmt_duration(family.median_duration_ns)),
        Text(f"{family.grid} × {family.block}"),
        Text(family_label((d.label for d in diagnoses), representative.label)),
        Text(top_flag_text(representative)),
    )


def launch_cells(
    summary: KernelSummary, share: float | None, diagnosis: Diagnosis
) -> tuple[Text, ...]:
    """A launch's cells under its family: its ID, duration, share and verdict."""
    duration = summary.row.get("duration_ns")
    return (
        Text(f"    ID {summary.id}", style="dim", no_wrap=True),
        Text(""),
        _num(fmt_duration(duration if isinstance(duration, (int, float)) else None)),
        _num(_share(share)),
        Text(""),
        Text(f"{summary.row.get('grid', '')} × {summary.row.get('block', '')}"),
        Text(diagnosis.label),
        Text(top_flag_text(diagnosis)),
    )


def family_rows(
    families: ReportFamilies,
    summaries: Mapping[int, KernelSummary],
    expanded: Collection[FamilyKey],
    keep: Callable[[KernelSummary], bool],
    name_width: int,
    diagnose: Callable[[KernelSummary], Diagnosis] = summary_diagnosis,
    short: Callable[[str], str] = compact_name,
) -> list[Row]:
    """The rows of the family view: every family with a launch ``keep`` accepts, ranked by
    total time, and under each expanded family its kept launches in ID order."""
    rows: list[Row] = []
    for family in families:
        members = [summaries[i] for i in family.ids if i in summaries]
        kept = [s for s in members if keep(s)]
        if not kept:
            continue
        diagnoses = [diagnose(s) for s in members]
        rep = summaries.get(family.representative)
        representative = diagnose(rep) if rep is not None else diagnoses[0]
        is_open = family.key in expanded and family.count > 1
        rows.append(
            Row(
                f"{FAMILY_PREFIX}{family.index}",
                family_cells(family, diagnoses, representative, is_open, name_width, short),
                family,
            )
        )
        if is_open:
            for s in kept:
                share = families.kernel_share(s.id)
                rows.append(
                    Row(f"{LAUNCH_PREFIX}{s.id}", launch_cells(s, share, diagnose(s)), family, s.id)
                )
    return rows
