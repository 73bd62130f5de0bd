"""The kernel list as CSV: the key metrics of every (selected) kernel plus its diagnosis, and
with ``all_metrics`` one more column per metric the report holds for any of them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kernelscope.export.csv_text import LARGEST_EXACT
from kernelscope.export.writer import ExportOptions
from kernelscope.kinds.ncu.analysis.analyzed_kernel import AnalyzedKernel
from kernelscope.kinds.ncu.analysis.kernel_analysis import AnalyzedReport, analysed_in_workers
from kernelscope.kinds.ncu.model import KernelDetail
from kernelscope.kinds.ncu.model.key_frame import FLOAT, INT, KEY_COLUMNS, TEXT
from kernelscope.kinds.ncu.model.metrics import MetricValue
from kernelscope.kinds.ncu.render.flag_cells import flag_cell

if TYPE_CHECKING:
    import polars as pl


def metric_values(detail: KernelDetail) -> dict[str, MetricValue]:
    """Every metric's value of a kernel read with ``all_metrics`` (computed as each kernel
    is read, so the details need not be kept)."""
    return {name: m.value for name, m in (detail.all_metrics or {}).items()}


def _all_values(analyzed: AnalyzedReport, chosen: list[AnalyzedKernel]) -> list[dict[str, Any]]:
    found = analysed_in_workers(
        analyzed.report, [k.id for k in chosen], metric_values,
        source=False, curves=False, breakdowns=False, all_metrics=True,
    )
    return [found[k.id] for k in chosen]


def _metric_columns(analyzed: AnalyzedReport, chosen: list[AnalyzedKernel]) -> list[pl.Series]:
    """One column per metric of the chosen kernels (numbers as floats, text as text; empty
    where a kernel lacks the metric), sorted by metric name."""
    import polars as pl

    values = _all_values(analyzed, chosen)
    names = sorted({name for per in values for name in per})
    columns = []
    for name in names:
        cells = [per.get(name) for per in values]
        numeric = all(v is None or isinstance(v, (int, float)) for v in cells)
        if numeric:
            columns.append(pl.Series(name, cells, dtype=pl.Float64, strict=False))
        else:
            text = [None if v is None else str(v) for v in cells]
            columns.append(pl.Series(name, text, dtype=pl.Utf8))
    return columns


Column = tuple[str, str, list[Any]]
"""A CSV column: its name, how its cells are written (``INT``, ``FLOAT``, ``TEXT``), its
values (None empty)."""


def kernel_list_columns(
    analyzed: AnalyzedReport,
    *,
    pattern: str | None = None,
    top: int | None = None,
    all_metrics: bool = False,
) -> list[Column]:
    """The columns of the kernels ``pattern`` and ``top`` select: the kernel-list frame's
    (without the range and action indices, and the process where the report has one),
    the short name after the demangled name, the shares, family and diagnosis, then with
    ``all_metrics`` one per metric (``_metric_columns``, as text)."""
    chosen = analyzed.select(pattern, top)
    rows = [k.summary.row for k in chosen]
    left_out = {"range_idx", "action_idx"}
    if len(analyzed.report.processes) <= 1:
        left_out |= {"pid", "process"}
    columns: list[Column] = []
    for name, kind in KEY_COLUMNS:
        if name not in left_out:
            columns.append((name, kind, [row.get(name) for row in rows]))
        if name == "demangled":
            columns.append(("short_name", TEXT, [analyzed.short_name(k) for k in chosen]))
    index_of = analyzed.families.index_of
    diagnoses = [k.row_diagnosis() for k in chosen]  # without notes: none is written
    columns += [
        ("time_share", FLOAT, [k.time_share for k in chosen]),
        ("family", INT, [index_of.get(k.id) for k in chosen]),
        ("family_share", FLOAT, [_family_share(analyzed, k.id) for k in chosen]),
        ("bottleneck", TEXT, [d.label for d in diagnoses]),
        ("flags", INT, [len(d.flags) for d in diagnoses]),
        ("top_flag", TEXT, [flag_cell(k, d) for k, d in zip(chosen, diagnoses, strict=True)]),
    ]
    if all_metrics:
        columns += _metric_text_columns(analyzed, chosen)
    return columns


def _metric_text_columns(analyzed: AnalyzedReport, chosen: list[AnalyzedKernel]) -> list[Column]:
    """``_metric_columns`` as polars writes them (``integers_as_integers``), as text."""
    import polars as pl

    series = _metric_columns(analyzed, chosen)
    if not series:
        return []
    frame = integers_as_integers(pl.DataFrame(series))
    return [(name, TEXT, frame.get_column(name).to_list()) for name in frame.columns]


def _family_share(analyzed: AnalyzedReport, kernel_id: int) -> float | None:
    family = analyzed.family(kernel_id)
    return family.time_share if family is not None else None


def render_ncu_csv(analyzed: AnalyzedReport, options: ExportOptions) -> str:
    """The kernels ``options`` selects (``pattern``, ``top``) as CSV, with a column per metric
    when it asks for ``all_metrics``: the text polars' ``write_csv`` writes of the frame
    ``integers_as_integers`` makes of them, written without polars (``csv_cells``)."""
    columns = kernel_list_columns(
        analyzed, pattern=options.pattern, top=options.top, all_metrics=options.all_metrics
    )
    cells = [csv_cells(kind, values) for _, kind, values in columns]
    lines = [",".join(quoted(name) for name, _, _ in columns)]
    lines += [",".join(row) for row in zip(*cells, strict=True)]
    return "\n".join(lines) + "\n"


def csv_cells(kind: str, values: list[Any]) -> list[str]:
    """A column's cells as polars writes them (None empty): an ``INT`` column's integers, a
    ``FLOAT`` column's numbers as ``integers_as_integers`` makes them (``float_text``), a
    ``TEXT`` column's strings ``quoted``. Each text is kept by its value (equal values write
    alike: ``0.0`` and ``-0.0`` both ``0``, ``1`` and ``1.0`` both ``1``), as a report's
    launches repeat their names, shapes, durations and labels."""
    write = _WRITERS[kind]
    said: dict[Any, str] = {None: ""}
    cells = []
    for value in values:
        cell = said.get(value)
        if cell is None:
            cell = said[value] = write(value)
        cells.append(cell)
    return cells


def _int_text(value: Any) -> str:
    return str(int(value))


def _float_text(value: Any) -> str:
    return float_text(float(value))


def float_text(value: float) -> str:
    """A float as ``integers_as_integers`` and polars write it: a finite whole number below
    ``LARGEST_EXACT`` as an integer; else as polars casts it to text, which is Python's
    ``repr`` but for NaN (``NaN``) and the exponents: ``1e-5`` to ``9.9e-5`` in full
    (``0.00001``), smaller ones without the exponent's leading zero (``1e-7``)."""
    if value.is_integer() and -LARGEST_EXACT < value < LARGEST_EXACT:
        return str(int(value))
    text = repr(value)
    at = text.find("e-")
    if at < 0:
        return "NaN" if text == "nan" else text
    exponent, mantissa = int(text[at + 2:]), text[:at]
    if exponent > 5:
        return f"{mantissa}e-{exponent}"
    sign = "-" if mantissa[0] == "-" else ""
    digits = mantissa.lstrip("-").replace(".", "")
    return f"{sign}0.{'0' * (exponent - 1)}{digits}"


def quoted(text: str) -> str:
    """A text cell as polars writes it: quoted (its quotes doubled) where it holds a comma, a
    quote or a line end, or is empty (an empty text, not a missing one)."""
    if not text:
        return '""'
    if "," in text or '"' in text or "\n" in text or "\r" in text:
        return '"' + text.replace('"', '""') + '"'
    return text


_WRITERS = {INT: _int_text, FLOAT: _float_text, TEXT: quoted}
"""How a column's value is written, by how the column is written."""


def integers_as_integers(frame: pl.DataFrame) -> pl.DataFrame:
    """Float columns as text in which a whole number reads ``16384``, not ``16384.0``
    (a column may hold both: a metric whole in one kernel and not in another)."""
    import polars as pl

    floats = [name for name, dtype in frame.schema.items() if dtype.is_float()]
    return frame.with_columns(
        pl.when(pl.col(name).is_finite() & (pl.col(name) == pl.col(name).floor())
                & (pl.col(name).abs() < LARGEST_EXACT))
        .then(pl.col(name).cast(pl.Int64).cast(pl.String))
        .otherwise(pl.col(name).cast(pl.String))
        .alias(name)
        for name in floats
    )
