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
    return frame.with_columns(
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
        pl.Series("top_flag", [top_flag(k.diagnosis) for k in chosen], dtype=pl.Utf8),
    )


def _family_share(analyzed: AnalyzedReport, kernel_id: int) -> float | None:
    family = analyzed.family(kernel_id)
    return family.time_share if family is not None else None


def render_ncu_csv(
    analyzed: AnalyzedReport, *, pattern: str | None = None, top: int | None = None
) -> str:
    return kernel_list_frame(analyzed, pattern=pattern, top=top).write_csv()
