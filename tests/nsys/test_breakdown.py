"""HTA's temporal breakdown of a timeline: the one-query union (``ops_breakdown``) against
HTA's merge of the kernel intervals (``temporal_breakdown``) on every sample."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from kernelscope.timeline.analysis.gpu_breakdown import (
    comm_comp_overlap_pct,
    gpu_ops,
    kernel_type,
    kind_runs,
    ops_breakdown,
    temporal_breakdown,
)
from kernelscope.timeline.model.model import TimelineReport


def _typed_ops(report: TimelineReport) -> pl.DataFrame:
    ops = gpu_ops(report.kernels, report.memcpy, report.memset, pl.col("name"))
    return ops.drop_nulls("name").with_columns(
        pl.col("name").map_elements(kernel_type, return_dtype=pl.String).alias("kernel_type"))


def test_union_equals_htas_merge(sample_name: str,
                                 sample_report: Callable[[str], TimelineReport]) -> None:
    report = sample_report(sample_name)
    ops = _typed_ops(report)
    temporal, _ = ops_breakdown(ops.drop("kernel_type"))
    assert temporal == temporal_breakdown(ops, ns_per_unit=1)
    if ops.height:
        assert temporal is not None and temporal.kernel > 0


def test_an_operation_ending_before_it_starts_takes_htas_merge(zoo: TimelineReport) -> None:
    """A union and HTA's merge part ways on such a row (the merge subtracts its length):
    the breakdown is then HTA's."""
    ops = _typed_ops(zoo)
    longest = ops.select((pl.col("hend") - pl.col("hts")).arg_max()).item()
    inverted = ops.with_row_index("_i").with_columns(
        pl.when(pl.col("_i") == longest).then(pl.col("hend")).otherwise(pl.col("hts"))
        .alias("hts"),
        pl.when(pl.col("_i") == longest).then(pl.col("hts")).otherwise(pl.col("hend"))
        .alias("hend"),
    ).drop("_i")
    temporal, _ = ops_breakdown(inverted.drop("kernel_type"))
    assert temporal == temporal_breakdown(inverted, ns_per_unit=1)
    assert temporal != temporal_breakdown(ops, ns_per_unit=1)


def test_overlap_without_runs_equals_overlap_with_them(
        sample_name: str, sample_report: Callable[[str], TimelineReport]) -> None:
    """The communication/computation overlap merges the computation only where
    communication ran: the same number as from every kernel type's runs."""
    ops = _typed_ops(sample_report(sample_name))
    assert comm_comp_overlap_pct(ops) == comm_comp_overlap_pct(ops, kind_runs(ops))
    # no sample has NCCL kernels: every third operation taken as communication
    mixed = ops.with_row_index("_i").with_columns(
        pl.when(pl.col("_i") % 3 == 0).then(pl.lit("COMMUNICATION"))
        .otherwise(pl.col("kernel_type")).alias("kernel_type")).drop("_i")
    overlap = comm_comp_overlap_pct(mixed)
    assert overlap == comm_comp_overlap_pct(mixed, kind_runs(mixed))
    assert overlap is not None or not mixed.height
