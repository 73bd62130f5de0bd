"""The one table component's rules (kernelscope.core.table): sort order, first direction,
the next column, the filter."""

from __future__ import annotations

import re

import pytest

from kernelscope.core.table import (
    SortState,
    compile_filter,
    first_direction,
    next_sort_key,
    sort_rows,
)

ROWS = [(0, 3.0), (1, None), (2, "b"), (3, 3.0), (4, 10), (5, "A"), (6, None)]


def test_numbers_before_text_unknown_last_ties_in_order() -> None:
    def order(rows: list[tuple[int, object]], reverse: bool) -> list[int]:
        ranked = sort_rows(rows, lambda r: r[1], lambda r: r[0], reverse=reverse)  # type: ignore[arg-type,return-value]
        return [r[0] for r in ranked]

    assert order(ROWS, reverse=False) == [0, 3, 4, 5, 2, 1, 6]
    assert order(ROWS, reverse=True) == [2, 5, 4, 0, 3, 1, 6]


def test_numbers_sort_largest_first_text_a_to_z() -> None:
    assert first_direction(1.5) and first_direction(7)
    assert not first_direction("dram-bound") and not first_direction(None)
    state = SortState("id")
    state.choose("duration", 12.0)
    assert state.reverse and state.arrow == "▼"
    state.flip()
    assert not state.reverse and state.arrow == "▲"
    state.choose("name", "gemm", reverse=True)
    assert state.key == "name" and state.reverse


def test_s_wraps_round_the_shown_columns() -> None:
    assert next_sort_key(["id", "name", "duration"], "name") == "duration"
    assert next_sort_key(["id", "name", "duration"], "duration") == "id"
    assert next_sort_key(["id", "name"], "grid") == "id"  # a hidden column: the first


def test_the_filter_is_case_insensitive_without_a_capital() -> None:
    assert compile_filter("") is None
    pattern = compile_filter("gemm")
    assert pattern is not None and pattern.search("Sgemm_kernel")
    pattern = compile_filter("Gemm")
    assert pattern is not None and not pattern.search("sgemm_kernel")
    with pytest.raises(re.error):
        compile_filter("[")
