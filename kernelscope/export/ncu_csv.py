"""The kernel list as CSV: the key metrics of every (selected) kernel plus its diagnosis."""

from __future__ import annotations

import polars as pl

from kernelscope.export.ncu_markdown import top_flag
from kernelscope.parsers.kernel_analysis import AnalyzedReport
from kernelscope.parsers.ncu import rows_to_frame


def kernel_list_frame(
    analyzed: AnalyzedReport, *, pattern: str | None = None, top: int | None = None
) -> pl.DataFrame:
    chosen = analyzed.select(pattern, top)
    frame = rows_to_frame([k.summary.row for k in chosen]).drop("range_idx", "action_idx")
    short = pl.Series("short_name", [analyzed.short_name(k) for k in chosen], dtype=pl.Utf8)
    frame = frame.insert_column(frame.get_column_index("demangled") + 1, short)
    return frame.with_columns(
        pl.Series("time_share", [k.time_share for k in chosen], dtype=pl.Float64),
        pl.Series("bottleneck", [k.diagnosis.label for k in chosen], dtype=pl.Utf8),
        pl.Series("flags", [len(k.diagnosis.flags) for k in chosen], dtype=pl.Int64),
        pl.Series("top_flag", [top_flag(k.diagnosis) for k in chosen], dtype=pl.Utf8),
    )


def render_ncu_csv(
    analyzed: AnalyzedReport, *, pattern: str | None = None, top: int | None = None
) -> str:
    return kernel_list_frame(analyzed, pattern=pattern, top=top).write_csv()
