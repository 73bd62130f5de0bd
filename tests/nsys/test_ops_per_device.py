"""``utilization.ops_per_device``: the column's length where every operation ran on one
device gives the counts of the group-by it stands for."""

from __future__ import annotations

import polars as pl
import pytest

from kernelscope.timeline.analysis.utilization import ops_per_device


def _grouped(devices: pl.Series) -> dict[int | None, int]:
    counts = devices.to_frame().group_by("device_id").len()
    return dict(zip(counts["device_id"].to_list(), counts["len"].to_list(), strict=True))


@pytest.mark.parametrize("devices", [
    [3, 3, 3],  # one device: no query
    [0],
    [0, 1, 0, 2],
    [None, 0, 0],
    [None, None],
    [],
])
def test_ops_per_device_gives_the_group_by(devices: list[int | None]) -> None:
    column = pl.Series("device_id", devices, dtype=pl.Int64)
    assert ops_per_device(column) == _grouped(column)
