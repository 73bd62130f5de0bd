"""The cross-rank kernel family table: is a kernel slower on one GPU?

A family is every launch of one kernel name (the demangled name, as ``nsys stats`` groups
``cuda_gpu_kern_sum``). Per family and rank: instances, min, median and max duration. A
family's *slowest rank* is the one with the highest median; its ``ratio`` is that median over
the median of the other ranks' medians. A family is **flagged** when the ratio is at least
1.10, it is a compute kernel (NCCL kernels last as long as their wait, so they are left
out), it runs at least three times on that rank, and it takes at least 1 % of the run's
kernel time.

A rank is **slow** when, over the compute families every rank runs, its medians are at least
10 % above the others' (each family's ratio to the median of the other ranks' medians,
weighted by the family's total time): a slower GPU (clocks, power or thermal throttling, a
sick device) or a different input.
"""

from __future__ import annotations

import polars as pl

from kernelscope.kinds.ranks.analysis.model import RankSummary
from kernelscope.kinds.ranks.analysis.thresholds import RANKS_THRESHOLDS

I64 = pl.Int64


def per_rank_families(ranks: dict[int, RankSummary]) -> pl.DataFrame:
    """Columns: rank, name, comm, instances, total_ns, min_ns, med_ns, max_ns."""
    parts = [s.families.with_columns(pl.lit(r, I64).alias("rank"))
             for r, s in ranks.items() if s.families.height]
    if not parts:
        return pl.DataFrame(schema={"rank": I64, "name": pl.String, "comm": pl.Boolean,
                                    "instances": I64, "total_ns": I64, "min_ns": I64,
                                    "med_ns": pl.Float64, "max_ns": I64})
    return pl.concat(parts, how="vertical_relaxed").select(
        "rank", "name", "comm", "instances", "total_ns", "min_ns", "med_ns", "max_ns")


def _others_median(per: pl.DataFrame) -> pl.DataFrame:
    """Add ``others_med``: per family, the median of the other ranks' medians."""
    pairs = per.select("name", "rank", "med_ns").join(
        per.select("name", pl.col("rank").alias("other"), pl.col("med_ns").alias("other_med")),
        on="name").filter(pl.col("rank") != pl.col("other"))
    others = pairs.group_by("name", "rank").agg(pl.col("other_med").median().alias("others_med"))
    return per.join(others, on=["name", "rank"], how="left")


def family_table(per: pl.DataFrame) -> pl.DataFrame:
    """One row per family: name, comm, ranks, instances, total_ns, min_ns, med_ns (median of
    the ranks' medians), max_ns, slowest_rank, ratio, flagged; by total time."""
    if not per.height:
        return pl.DataFrame(schema={"name": pl.String, "comm": pl.Boolean, "ranks": I64,
                                    "instances": I64, "total_ns": I64, "min_ns": I64,
                                    "med_ns": pl.Float64, "max_ns": I64, "slowest_rank": I64,
                                    "ratio": pl.Float64, "flagged": pl.Boolean})
    with_others = _others_median(per)
    grand = float(per.filter(~pl.col("comm"))["total_ns"].sum() or 1)
    slowest = (with_others.sort(["name", "med_ns", "rank"], descending=[False, True, False])
               .group_by("name", maintain_order=True).first()
               .select("name", pl.col("rank").alias("slowest_rank"),
                       (pl.col("med_ns") / pl.col("others_med")).alias("ratio"),
                       pl.col("instances").alias("slowest_instances")))
    table = per.group_by("name").agg(
        pl.col("comm").first(), pl.len().cast(I64).alias("ranks"),
        pl.col("instances").sum(), pl.col("total_ns").sum(), pl.col("min_ns").min(),
        pl.col("med_ns").median(), pl.col("max_ns").max(),
    ).join(slowest, on="name", how="left")
    t = RANKS_THRESHOLDS
    flagged = (~pl.col("comm") & (pl.col("ratio") >= t.slow_ratio)
               & (pl.col("slowest_instances") >= t.min_instances) & (pl.col("ranks") >= 2)
               & (pl.col("total_ns") >= t.min_share * grand))
    return (table.with_columns(flagged.fill_null(False).alias("flagged"))
            .drop("slowest_instances").sort(["total_ns", "name"], descending=[True, False]))


def slow_ranks(per: pl.DataFrame) -> pl.DataFrame:
    """Per rank: ratio (time-weighted ratio of its medians to the others' over the compute
    families every rank runs), families (how many were compared), slow (ratio >= 1.10)."""
    schema = {"rank": I64, "ratio": pl.Float64, "families": I64, "slow": pl.Boolean}
    n = per["rank"].n_unique() if per.height else 0
    if n < 2:
        return pl.DataFrame(schema=schema)
    common = per.filter(~pl.col("comm")).filter(pl.len().over("name") == n)
    if not common.height:
        return pl.DataFrame(schema=schema)
    weights = common.group_by("name").agg(pl.col("total_ns").sum().alias("w"))
    rated = _others_median(common).join(weights, on="name").filter(pl.col("others_med") > 0)
    return (rated.group_by("rank").agg(
        ((pl.col("med_ns") / pl.col("others_med") * pl.col("w")).sum() / pl.col("w").sum())
        .alias("ratio"), pl.len().cast(I64).alias("families"))
        .with_columns((pl.col("ratio") >= RANKS_THRESHOLDS.slow_ratio).alias("slow")).sort("rank")
        .cast(schema))  # type: ignore[arg-type]
