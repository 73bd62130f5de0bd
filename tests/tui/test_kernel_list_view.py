"""The kernel list's sort, filter and columns, without the app: ``KernelListView`` over the
12 kernels of samples/ncu/zoo.ncu-rep.xz (one kernel per flag the diagnosis knows)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from kernelscope.core.units import EMPTY_CELL
from kernelscope.kinds.ncu.model import KernelSummary, open_ncu_report
from kernelscope.kinds.ncu.screens.columns import ColumnProvider, required_metrics
from kernelscope.kinds.ncu.screens.kernel_list_view import KernelListView
from kernelscope.kinds.ncu.screens.kernel_state import KernelReportData

ZOO = Path(__file__).resolve().parents[2] / "samples" / "ncu" / "zoo.ncu-rep.xz"


@cache
def _summaries() -> tuple[KernelSummary, ...]:
    columns = KernelReportData(ZOO).columns
    with open_ncu_report(ZOO, extra_metrics=required_metrics(columns)) as report:
        return tuple(s for batch in report.iter_summaries() for s in batch)


def view_of(extra: tuple[ColumnProvider, ...] = (), loaded: bool = True) -> KernelListView:
    """A list of the zoo's kernels, every one loaded (``loaded``: the time shares known)."""
    state = KernelReportData(ZOO)
    state.add_summaries(list(_summaries()))
    state.loaded_all = loaded
    view = KernelListView(state, (*state.columns, *extra))
    view.refill()
    view.lay_out(120)
    return view


def ids(view: KernelListView) -> list[int]:
    return [s.id for s in view.listed]


def sorted_ids(view: KernelListView, key: str, reverse: bool | None = None) -> list[int]:
    view.set_sort(key, reverse)
    view.reorder()
    return ids(view)


def test_the_list_starts_in_report_order() -> None:
    view = view_of()
    assert ids(view) == list(range(12))
    assert view.sort.key == "id" and not view.sort.reverse
    assert view.info(12) == ["12 of 12 kernels", "sorted by ID ▲"]


def test_numbers_sort_largest_first_and_text_a_to_z() -> None:
    view = view_of()
    assert sorted_ids(view, "duration") == [5, 4, 9, 7, 2, 1, 6, 0, 10, 3, 8, 11]
    assert view.sort.reverse and view.sort_line() == "sorted by Duration ▼"
    assert sorted_ids(view, "name") == [9, 0, 7, 8, 10, 4, 5, 2, 3, 11, 1, 6]
    assert not view.sort.reverse
    view.sort.flip()
    view.reorder()
    assert ids(view) == [6, 1, 11, 3, 2, 5, 4, 10, 8, 7, 0, 9]


def test_ties_keep_report_order_in_either_direction() -> None:
    view = view_of()
    # compute-bound 7, 8; divergence 6; dram 0, 1, 3; instruction 10; latency 4, 9; ...
    assert sorted_ids(view, "bottleneck") == [7, 8, 6, 0, 1, 3, 10, 4, 9, 5, 11, 2]
    assert sorted_ids(view, "bottleneck", reverse=True) == [2, 5, 11, 4, 9, 10, 0, 1, 3, 6, 7, 8]


def test_the_top_flag_sorts_most_severe_first() -> None:
    view = view_of()
    # the five ✖ critical; the spill kernel's top flag is lg-throttle (NCU's largest estimate)
    assert sorted_ids(view, "top_flag")[:5] == [5, 11, 1, 2, 4]


def test_unknown_values_sort_last_either_way() -> None:
    odd = ColumnProvider("Odd", lambda s: s.id if s.id % 2 else None, key="odd")
    view = view_of((odd,))
    assert sorted_ids(view, "odd") == [11, 9, 7, 5, 3, 1, 0, 2, 4, 6, 8, 10]
    assert sorted_ids(view, "odd", reverse=False) == [1, 3, 5, 7, 9, 11, 0, 2, 4, 6, 8, 10]


def test_a_column_that_fails_shows_unknown_and_sorts_last() -> None:
    def broken(summary: KernelSummary) -> int:
        raise ValueError("a third-party column's bug")

    view = view_of((ColumnProvider("Broken", broken, key="broken", priority=0),))
    assert sorted_ids(view, "broken") == list(range(12))
    assert view.cells(view.listed[0])[-1].text.strip() == "n/a"


def test_the_filter_matches_names_and_searchable_columns() -> None:
    view = view_of()
    cases = {"spill": [4], "latency": [4, 9], "grid-too-small": [5, 11], "Spill": []}
    for text, expected in cases.items():
        view.set_filter(text)
        view.refill()
        assert ids(view) == expected, text
    view.set_filter("")
    view.refill()
    assert view.pattern is None and ids(view) == list(range(12))


def test_an_invalid_filter_keeps_the_one_before() -> None:
    view = view_of()
    view.set_filter("spill")
    with pytest.raises(re.error):
        view.set_filter("spill[")
    assert view.filter_text == "spill"
    view.refill()
    assert ids(view) == [4]


def test_new_kernels_append_in_order_only_when_sorted_by_id() -> None:
    view = view_of()
    first, rest = list(view.state.summaries[:6]), list(view.state.summaries[6:])
    view.listed, view.index = [], {}
    added, in_order = view.append(first)
    assert [s.id for s in added] == [0, 1, 2, 3, 4, 5] and in_order
    view.set_sort("duration")
    added, in_order = view.append(rest)
    assert [s.id for s in added] == [6, 7, 8, 9, 10, 11] and not in_order


def test_a_narrow_screen_keeps_the_required_columns() -> None:
    view = view_of()
    required = ["id", "name", "duration", "share", "bottleneck", "top_flag"]
    assert list(view.plan(60)) == required
    assert list(view.plan(200)) == [
        "id", "name", "duration", "share", "grid", "block", "registers", "sm_pct", "mem_pct",
        "dram_pct", "occupancy_pct", "bottleneck", "top_flag", "flags",
    ]
    assert view.plan(60)["name"] == 16  # cut to its minimum before anything is dropped


def test_cells_are_fitted_aligned_and_styled() -> None:
    view = view_of()
    view.lay_out(60)
    cells = view.cells(view.listed[1])
    assert [c.key for c in view.shown_columns][:2] == ["id", "name"]
    assert cells[0].text == "    1"  # numbers right-aligned (a space before each cell)
    assert cells[1].text == " uncoalesce…ather"  # the short name cut to 16 columns
    assert cells[-1].text == " ✖ uncoalesc…" and cells[-1].style == "bold red"
    assert view.top_flag_cut(view.listed[1])
    assert [c.style for c in view.cells(view.listed[7])][-1] == "dim"  # no flag


def test_headers_mark_the_sort_and_keep_their_width() -> None:
    view = view_of()
    duration = view.column("duration")
    before = view.label(duration).text
    view.set_sort("duration")
    after = view.label(duration).text
    assert len(before) == len(after) and after.endswith("Duration ▼")
    assert view.label(view.column("name")).text == " Kernel  "


def test_the_share_is_unknown_until_every_kernel_is_loaded() -> None:
    view = view_of(loaded=False)
    share = [c.key for c in view.shown_columns].index("share")
    assert view.cells(view.listed[0])[share].text.strip() == "n/a"


def test_s_steps_through_the_shown_columns_only() -> None:
    view = view_of()
    view.lay_out(60)
    seen = []
    for _ in range(7):
        view.sort_next()
        seen.append(view.sort.key)
    assert seen == ["name", "duration", "share", "bottleneck", "top_flag", "id", "name"]


def test_neighbours_follow_the_list_order() -> None:
    view = view_of()
    sorted_ids(view, "duration")
    assert view.neighbor(5, 1) == 4 and view.neighbor(4, -1) == 5
    assert view.neighbor(11, 1) is None
    assert view.position(9) == (3, 12)
    view.set_filter("latency")
    view.refill()
    assert view.position(5) is None
    assert view.neighbor(5, 1) == 6  # hidden: report order


def test_a_baseline_column_sorts_first_and_goes_away() -> None:
    from kernelscope.kinds.ncu.screens.columns import baseline_column

    view = view_of()
    view.set_baseline_column(baseline_column(5, 3_010_000.0))
    assert view.sort.key == "baseline_change" and not view.sort.reverse
    view.reorder()
    assert ids(view)[0] == 11  # the shortest kernel changes most against the longest
    view.set_baseline_column(None)
    assert view.sort.key == "id" and "baseline_change" not in [c.key for c in view.columns]


def test_the_shares_computed_at_the_end_equal_a_list_laid_out_afresh() -> None:
    """At the end of loading only the share column is computed again (``renew_column``):
    every cell then reads as in a list made once every kernel was loaded."""
    view = view_of(loaded=False)
    share = [c.key for c in view.shown_columns].index("share")
    assert [view.cells(s)[share].text.strip() for s in view.listed][:2] == ["n/a", "n/a"]
    view.state.loaded_all = True
    view.renew_column("share")
    if view.plan(120) != view.widths:  # (as the list does: a wider column lays it out again)
        view.lay_out(120)
    fresh = view_of(loaded=True)
    assert [view.cells(s) for s in view.listed] == [fresh.cells(s) for s in fresh.listed]
    assert view.cells(view.listed[0])[share].text.strip() != "n/a"


def test_a_columns_cells_follow_the_list_order() -> None:
    """What the list writes into one column of the drawn rows (the time shares, once every
    kernel is loaded): the column's place among the shown ones, and there each listed
    kernel's cell, in the list's order."""
    view = view_of()
    view.set_sort("duration")
    view.reorder()
    at = view.shown_position("duration")
    assert at is not None
    cells = [(str(s.id), view.cells(s)[at]) for s in view.listed]
    assert [key for key, _ in cells] == ["5", "4", "9", "7", "2", "1", "6", "0", "10", "3", "8",
                                         "11"]
    assert cells[:2] == [("5", ("    3.01 ms", "")), ("4", ("    1.11 ms", ""))]
    assert view.shown_position("grid") is None  # not shown at 120 columns


def test_the_first_rows_diagnoses_made_later_equal_a_list_laid_out_afresh() -> None:
    """The first rows come without their diagnosis (the reading worker makes it once they
    are drawn): its cells say n/a, as the shares do while loading; once the diagnoses are
    held, only their columns are computed again and every cell reads as in a list made
    with them."""
    from kernelscope.kinds.ncu.analysis.kernel_analysis import diagnose_summary

    state = KernelReportData(ZOO)
    state.add_summaries([(s, None) for s in _summaries()])
    state.loaded_all = True
    view = KernelListView(state, state.columns)
    view.refill()
    view.lay_out(120)
    shown = [c.key for c in view.shown_columns]
    first = view.cells(view.listed[1])
    assert [first[shown.index(key)].text.strip() for key in ("bottleneck", "top_flag")] == [
        "n/a", "n/a"]
    assert first[shown.index("top_flag")].style == "dim"
    state.hold_diagnoses([(s, diagnose_summary(s)) for s in _summaries()])
    assert not state.undiagnosed
    for key in ("bottleneck", "top_flag", "flags"):
        view.renew_column(key)
    if view.plan(120) != view.widths:  # (as the list does: a wider column lays it out again)
        view.lay_out(120)
    fresh = view_of(loaded=True)
    assert [view.cells(s) for s in view.listed] == [fresh.cells(s) for s in fresh.listed]
    assert view.cells(view.listed[1])[-1] == (" ✖ uncoalesced-global-access", "bold red")


def test_the_first_rows_diagnoses_taken_with_a_later_batch_renew_only_their_cells() -> None:
    """The first rows' diagnoses reach the list with the next batch: only those rows' cells
    of the diagnosis's columns are computed again, and every cell then reads as in a list
    made with every diagnosis."""
    from kernelscope.kinds.ncu.analysis.kernel_analysis import diagnose_summary

    summaries = _summaries()
    first, rest = summaries[:3], summaries[3:]
    state = KernelReportData(ZOO)
    state.add_summaries([(s, None) for s in first])
    view = KernelListView(state, state.columns)
    view.refill()
    view.lay_out(120)
    flag = [c.key for c in view.shown_columns].index("top_flag")
    assert [view.cells(s)[flag] for s in first] == [(" n/a", "dim")] * 3  # drawn
    state.hold_diagnoses([(s, diagnose_summary(s)) for s in first])
    state.add_summaries([(s, diagnose_summary(s)) for s in rest])
    view.note_widths(rest)
    view.append(rest)
    for key in ("bottleneck", "top_flag", "flags"):
        view.renew_column(key, first)
    assert "n/a" not in view.cells(first[1])[flag].text
    state.loaded_all = True
    view.renew_column("share")
    if view.plan(120) != view.widths:  # (as the list does: a wider column lays it out again)
        view.lay_out(120)
    fresh = view_of(loaded=True)
    assert [view.cells(s) for s in view.listed] == [fresh.cells(s) for s in fresh.listed]


def test_the_flags_column_counts_each_kernels_critical_and_warning_flags() -> None:
    view = view_of()
    position = next(i for i, c in enumerate(view.columns) if c.key == "flags")
    shown = set()
    for summary in view.listed:  # kernels of the same counts share their text
        flags = view.state.diagnosis(summary).flags
        critical = sum(f.severity == "critical" for f in flags)
        warning = sum(f.severity == "warning" for f in flags)
        words = [f"{critical}✖" if critical else "", f"{warning}⚠" if warning else ""]
        expected = " ".join(word for word in words if word) or EMPTY_CELL
        assert view.full_texts(summary)[position] == expected, summary.id
        shown.add(expected)
    assert len(shown) >= 3 and EMPTY_CELL in shown, shown


class _LoudColumn(ColumnProvider):
    """A column whose value and text methods are its own (the list must call them)."""

    def cell_value(self, summary: KernelSummary) -> int:
        return summary.id * 7

    def cell_text(self, value: object) -> str:
        return f"<{value}>"


def _failing(summary: KernelSummary) -> float:
    raise ValueError("a third-party column that fails")


def test_a_rows_texts_are_each_columns_cell_text_of_its_cell_value() -> None:
    """Each of a row's texts reads as the column's ``cell_text(cell_value(summary))`` (the
    name: the short name), and is a number where that value is one, for columns of every
    kind: with a text function or without, failing, or with methods of their own."""
    extra = (
        ColumnProvider("Failing", _failing, key="failing"),
        ColumnProvider("Half", lambda s: s.id / 2, key="half"),
        ColumnProvider("Word", lambda s: "odd" if s.id % 2 else None, key="word"),
        _LoudColumn("Loud", lambda s: 0, key="loud"),
    )
    for loaded in (False, True):
        view = view_of(extra, loaded=loaded)
        for summary in view.state.summaries:
            values = [column.cell_value(summary) for column in view.columns]
            expected = [view.state.short_name(summary) if column.key == "name"
                        else column.cell_text(value)
                        for column, value in zip(view.columns, values, strict=True)]
            assert view.full_texts(summary) == expected, summary.id
            numbers = [column.key not in ("name", "top_flag") and isinstance(value, (int, float))
                       for column, value in zip(view.columns, values, strict=True)]
            assert view._numbers[summary.id] == numbers, summary.id
        texts = dict(zip([c.key for c in view.columns], view.full_texts(view.listed[3]),
                         strict=True))
        assert (texts["failing"], texts["half"], texts["word"], texts["loud"]) == (
            "n/a", "1.50", "odd", "<21>")
