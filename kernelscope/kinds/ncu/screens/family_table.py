"""The kernel list's family view: one row per kernel family, ranked by total time, each
expandable into its launches (the method's step 0: what is worth optimising first)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual.binding import Binding

from kernelscope.core.durations import fmt_duration
from kernelscope.core.kernel_names import compact_name, fit_name
from kernelscope.core.shares import fmt_pct
from kernelscope.core.units import NOT_AVAILABLE
from kernelscope.kinds.ncu.model import KernelSummary
from kernelscope.render.table_fit import ColumnFit, fit_columns
from kernelscope.ui.widgets.sized_table import SizedTable

if TYPE_CHECKING:  # (the table is made with the list; its first rows come before these)
    from kernelscope.kinds.ncu.analysis.diagnosis import Diagnosis
    from kernelscope.kinds.ncu.analysis.families import KernelFamily, ReportFamilies

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
WHOLE = 10_000
"""A name width that cuts no name (the first pass, which measures the columns)."""
MARKER = 2
"""The fold marker before a family's name (``▸ ``)."""
PRIORITY = {"share": 1, "launch": 2, "median": 3}
"""Optional columns, left out when the screen is narrow (the highest first)."""
TOP_FLAG_MINIMUM = 12
NAME_MINIMUM = 16 + MARKER
SCROLLBAR = 2


def plan_family_columns(rows: Sequence[Row], width: int) -> dict[str, int]:
    """The columns that fit ``width`` and their widths, from ``rows`` built with whole names
    (``render.table_fit``): names whole where the top flag can give way, else the name
    takes what the others leave."""
    def fits(name_cut: bool) -> list[ColumnFit]:
        out = []
        for i, (key, title, _) in enumerate(COLUMNS):
            natural = max([len(title), *(row.cells[i].cell_len for row in rows)])
            minimum = (NAME_MINIMUM if key == "family" and name_cut
                       else TOP_FLAG_MINIMUM if key == "top_flag" else None)
            out.append(ColumnFit(key, natural, minimum=minimum,
                                 priority=PRIORITY.get(key, 0), grows=name_cut and key == "family"))
        return out

    room = width - SCROLLBAR
    whole = fit_columns(fits(name_cut=False), room, gap=2)
    if sum(whole.values()) + 2 * len(whole) <= room:
        return whole
    return fit_columns(fits(name_cut=True), room, gap=2)


def fitted_cells(row: Row, widths: Mapping[str, int]) -> list[Text]:
    """``row``'s cells in the planned columns, each cut to its width."""
    cells = []
    for (key, _, _), cell in zip(COLUMNS, row.cells, strict=True):
        if key not in widths:
            continue
        if cell.cell_len > widths[key]:
            cell = cell.copy()
            cell.truncate(widths[key], overflow="ellipsis")
        cells.append(cell)
    return cells


class FamilyTable(SizedTable):
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
    from kernelscope.kinds.ncu.render.families import family_label
    from kernelscope.kinds.ncu.render.flag_cells import top_flag_text

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
    from kernelscope.kinds.ncu.render.flag_cells import top_flag_text

    return (
        Text(f"    ID {summary.id}", style="dim", no_wrap=True),
        Text(""),
        _num(fmt_duration(summary.duration_ns)),
        _num(_share(share)),
        Text(""),
        Text(" × ".join(summary.identity.shape)),
        Text(diagnosis.label),
        Text(top_flag_text(diagnosis)),
    )


def family_rows(
    families: ReportFamilies,
    summaries: Mapping[int, KernelSummary],
    expanded: Collection[FamilyKey],
    keep: Callable[[KernelSummary], bool],
    name_width: int,
    diagnose: Callable[[KernelSummary], Diagnosis],
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
