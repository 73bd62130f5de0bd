"""The kernel list as CSV: the key metrics of every (selected) kernel plus its diagnosis, and
with ``all_metrics`` one more column per metric the report holds for any of them."""

from __future__ import annotations

from typing import Any

import polars as pl

from kernelscope.export.csv_text import LARGEST_EXACT
from kernelscope.export.writer import ExportOptions
from kernelscope.kinds.ncu.analysis.analyzed_kernel import AnalyzedKernel
from kernelscope.kinds.ncu.analysis.kernel_analysis import AnalyzedReport, analysed_in_workers
from kernelscope.kinds.ncu.model import KernelDetail, rows_to_frame
from kernelscope.kinds.ncu.model.metrics import MetricValue
from kernelscope.kinds.ncu.render.flag_cells import flag_cell


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


def kernel_list_frame(
    analyzed: AnalyzedReport,
    *,
    pattern: str | None = None,
    top: int | None = None,
    all_metrics: bool = False,
) -> pl.DataFrame:
    chosen = analyzed.select(pattern, top)
    frame = rows_to_frame([k.summary.row for k in chosen]).drop("range_idx", "action_idx")
    short = pl.Series("short_name", [analyzed.short_name(k) for k in chosen], dtype=pl.Utf8)
    frame = frame.insert_column(frame.get_column_index("demangled") + 1, short)
    if len(analyzed.report.processes) <= 1:
        frame = frame.drop("pid", "process")
    frame = frame.with_columns(
        pl.Series("time_share", [k.time_share for k in chosen], dtype=pl.Float64),
        pl.Series(
            "family", [analyzed.families.index_of.get(k.id) for k in chosen], dtype=pl.Int64
        ),
        pl.Series(
            "family_share",
            [_family_share(analyzed, k.id) for k in chosen],
            dtype=pl.Float64,
        ),
        pl.Series("bottleneck", [k.diagnosis.label for k in chosen], dtype=pl.Utf8),
        pl.Series("flags", [len(k.diagnosis.flags) for k in chosen], dtype=pl.Int64),
        pl.Series("top_flag", [flag_cell(k) for k in chosen], dtype=pl.Utf8),
    )
    if all_metrics:
        frame = frame.with_columns(_metric_columns(analyzed, chosen))
    return frame


def _family_share(analyzed: AnalyzedReport, kernel_id: int) -> float | None:
    family = analyzed.family(kernel_id)
    return family.time_share if family is not None else None


def render_ncu_csv(analyzed: AnalyzedReport, options: ExportOptions) -> str:
    """The kernels ``options`` selects (``pattern``, ``top``) as CSV, with a column per metric
    when it asks for ``all_metrics``."""
    frame = kernel_list_frame(
        analyzed, pattern=options.pattern, top=options.top, all_metrics=options.all_metrics
    )
    return integers_as_integers(frame).write_csv()


def integers_as_integers(frame: pl.DataFrame) -> pl.DataFrame:
    """Float columns as text in which a whole number reads ``16384``, not ``16384.0``
    (a column may hold both: a metric whole in one kernel and not in another)."""
    floats = [name for name, dtype in frame.schema.items() if dtype.is_float()]
    return frame.with_columns(
        pl.when(pl.col(name).is_finite() & (pl.col(name) == pl.col(name).floor())
                & (pl.col(name).abs() < LARGEST_EXACT))
        .then(pl.col(name).cast(pl.Int64).cast(pl.String))
        .otherwise(pl.col(name).cast(pl.String))
        .alias(name)
        for name in floats
    )
