"""Reading the GPU metrics of an nsys SQLite export: which metrics it holds (``catalog``) and
the query for the chosen ones' samples (``read_task``); ``gpu_metrics`` builds the model."""

from __future__ import annotations

import polars as pl

from kernelscope.kinds.nsys.model.db import ExportDb, ReadTask
from kernelscope.timeline.model.gpu_metrics import (
    METRICS_TABLE,
    NAMES_TABLE,
    CatalogEntry,
    spec_for,
)


def catalog(db: ExportDb) -> list[CatalogEntry]:
    """The metrics the export holds (empty without GPU metrics)."""
    if not (db.has(METRICS_TABLE) and db.has(NAMES_TABLE)):
        return []
    if not {"typeId", "metricId", "metricName"} <= db.columns(NAMES_TABLE):
        return []
    rows = db.rows(
        f'SELECT DISTINCT typeId, metricId, metricName FROM "{db.table_name(NAMES_TABLE)}"'
    )
    out = []
    for type_id, metric_id, name in rows:
        if not (isinstance(type_id, int) and isinstance(metric_id, int) and isinstance(name, str)):
            continue
        spec = spec_for(name)
        out.append(CatalogEntry(type_id, metric_id, name, type_id & 0xFF,
                                spec.key if spec else None))
    return sorted(out, key=lambda e: (e.device, e.metric_id))


SAMPLE_SCHEMA = {"timestamp": pl.Int64, "type_id": pl.Int64, "metric_id": pl.Int64,
                 "value": pl.Float64}


def read_task(db: ExportDb, entries: list[CatalogEntry]) -> ReadTask | None:
    """The query for the chosen metrics' samples (None when none is chosen)."""
    chosen = [e for e in entries if e.key is not None]
    if not chosen or not {"timestamp", "typeId", "metricId", "value"} <= db.columns(
        METRICS_TABLE
    ):
        return None
    by_type: dict[int, list[int]] = {}
    for e in chosen:
        by_type.setdefault(e.type_id, []).append(e.metric_id)
    where = " OR ".join(
        f"(typeId = {t} AND metricId IN ({', '.join(str(m) for m in sorted(ids))}))"
        for t, ids in sorted(by_type.items())
    )
    table = db.table_name(METRICS_TABLE)
    sql = (f'SELECT timestamp, typeId AS type_id, metricId AS metric_id, value FROM "{table}" '
           f"WHERE ({where})")
    return ReadTask("gpu_metrics", table, sql, SAMPLE_SCHEMA)
