"""``orders.op_sort_keys`` and ``findings._in_stream_order``: sorting the GPU operations by
start alone, or not at all, gives the rows of the sort by device, stream and start."""

from __future__ import annotations

import polars as pl
import pytest

from kernelscope.timeline.analysis.critical_path.orders import op_sort_keys
from kernelscope.timeline.analysis.findings import _in_stream_order

FULL = ["device_id", "stream_id", "start"]


def _ops(device: list[int | None], stream: list[int | None], start: list[int | None]
         ) -> pl.DataFrame:
    return pl.DataFrame({"device_id": device, "stream_id": stream, "start": start,
                         "row": list(range(len(start)))},
                        schema={"device_id": pl.Int64, "stream_id": pl.Int64,
                                "start": pl.Int64, "row": pl.Int64})


CASES = {  # the tables, and whether every operation ran on one stream of one device
    "one lane, ties and a null start": ([_ops([0, 0, 0], [7, 7, 7], [5, 3, 3]),
                                         _ops([0, 0], [7, 7], [None, 3])], True),
    "one lane, an empty table": ([_ops([1, 1], [2, 2], [9, 1]), _ops([], [], [])], True),
    "two streams": ([_ops([0, 0, 0], [7, 8, 7], [5, 3, 1]), _ops([0], [7], [2])], False),
    "two devices across tables": ([_ops([0, 0], [7, 7], [5, 3]), _ops([1], [7], [2])], False),
    "device and stream swapped across tables": ([_ops([0, 0], [7, 7], [5, 3]),
                                                 _ops([7], [0], [2])], False),
    "a null stream": ([_ops([0, 0], [7, None], [5, 3])], False),
}


@pytest.mark.parametrize(("frames", "one_lane"), CASES.values(), ids=list(CASES))
def test_op_sort_keys_give_the_full_sort(frames: list[pl.DataFrame], one_lane: bool) -> None:
    every = pl.concat(frames)
    keys = op_sort_keys(frames)
    assert every.sort(keys, maintain_order=True).equals(every.sort(FULL, maintain_order=True))
    assert (keys == ["start"]) == one_lane


@pytest.mark.parametrize(("device", "stream", "start", "in_order"), [
    ([0, 0, 0], [7, 7, 7], [1, 2, 3], True),
    ([0, 0, 0], [7, 7, 7], [1, 2, 2], False),  # a tie: left to the sort
    ([0, 0, 0], [7, 7, 7], [1, 3, 2], False),
    ([0, 0, 0], [7, 8, 7], [1, 2, 3], False),
    ([0, 0, 0], [7, 7, 7], [None, 2, 3], False),
    ([], [], [], True),
])
def test_in_stream_order_only_where_the_sort_changes_nothing(
        device: list[int], stream: list[int], start: list[int | None], in_order: bool) -> None:
    kernels = _ops(device, stream, start)  # type: ignore[arg-type]
    assert _in_stream_order(kernels) == in_order
    if in_order:
        assert kernels.sort(FULL).equals(kernels)
