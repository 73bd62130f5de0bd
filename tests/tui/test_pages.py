"""The Raw page (every metric, with units, filtered by substring or regex: its plain row and
filter functions) and the Source page (the whole source and SASS with per-line metrics, hot
lines, the jump between them: keys, so Pilot)."""

from __future__ import annotations

import math

from kernelscope.kinds.ncu.model import NcuReport
from kernelscope.kinds.ncu.screens.panes.raw import matching, metric_filter, raw_count, raw_rows
from kernelscope.kinds.ncu.screens.panes.source import SourcePane
from kernelscope.tui.app import create_app
from tests.ncu.oracle import load_raw, matches_print

from .helpers import settle
from .test_kernel_detail import open_detail, pane_text


def test_raw_page_lists_every_metric_like_ncu(zoo: NcuReport) -> None:
    """Every metric ``ncu --page raw`` prints a value for is on the page (the rows and the
    count line the pane fills from what its worker reads) with that value and unit; the
    filter takes a regex, or the text as a substring when it is not one."""
    oracle = load_raw("zoo_a")
    row, units = oracle.rows[2], oracle.units
    metrics = zoo.all_metrics(2)
    printed = {n: v for n, v in list(row.items())[11:] if v not in ("", "no data")}
    assert len(printed) > 2000
    for name, text in printed.items():
        assert name in metrics, f"{name} is not on the Raw page"
        value = metrics[name].value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            assert matches_print(float(value), text), (name, value, text)
        assert metrics[name].unit == units[name], name
    every = matching(metrics, None)
    assert len(list(raw_rows(every))) == len(metrics)
    assert raw_count(every, metrics, None).plain.startswith(
        f"{len(metrics):,} of {len(metrics):,} metrics · ")

    pattern = metric_filter(r"^dram__bytes_(read|write)\.sum$")
    shown = [tuple(cell.plain for cell in cells) for cells in raw_rows(matching(metrics, pattern))]
    assert shown == [("33,561,344", "byte", "dram__bytes_read.sum"),  # as ncu --page raw prints
                     ("12,036,352", "byte", "dram__bytes_write.sum")]
    said = raw_count(matching(metrics, pattern), metrics, pattern).plain
    assert said.startswith(f"2 of {len(metrics):,} metrics matching /^dram__bytes_")

    names = [m.name for m in matching(metrics, metric_filter("l1tex__t_sectors("))]  # a substring
    assert names == sorted(n for n in metrics if "l1tex__t_sectors(" in n)
    any_case = metric_filter("T_SECTORS_PIPE_LSU_MEM_GLOBAL_OP_LD.sum")
    names = [m.name for m in matching(metrics, any_case)]
    assert "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum" in names


def test_metric_filter_is_a_regex_or_a_substring() -> None:
    assert metric_filter("") is None
    regex = metric_filter(r"sm__.*\.pct")
    assert regex is not None and regex.search("SM__throughput.avg.pct_of_peak")
    plain = metric_filter("a(b")
    assert plain is not None and plain.search("x_a(b_y") and not plain.search("ab")


async def test_source_page_shows_the_whole_source_and_its_sass(zoo: NcuReport) -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_detail(pilot, 4, "6")
        pane = screen.active_pane()
        assert isinstance(pane, SourcePane)
        source = zoo.kernel_source(4)
        assert source is not None and source.has_line_info and source.files
        listing = pane.listing
        # Every line of the file, not the top 20; the metrics sum to the kernel's totals.
        lines = source.files[0].rows
        assert len(listing.rows) == len(lines) > 100
        assert [r.line for r in lines] == list(range(1, len(lines) + 1))
        for key in ("executed", "samples"):
            total = sum(r.values.get(key, 0) for r in lines)
            assert math.isclose(total, sum(r.values.get(key, 0) for r in source.sass))
            assert math.isclose(total, source.totals[key])
        # … which are what ncu --page raw prints for the kernel.
        raw = load_raw("zoo_a").rows[4]
        assert matches_print(source.totals["executed"], raw["smsp__inst_executed.sum"])
        assert matches_print(source.totals["samples"], raw["smsp__pcsamp_sample_count"])
        # mm_tiled<16> reads its shared tiles with bank conflicts: they get a column.
        conflicts = raw["derived__memory_l1_wavefronts_shared_excessive"]
        assert matches_print(source.totals["bank_conflicts"], conflicts)
        assert "Bank" in pane_text(screen)

        # The cursor starts on the hottest line, marked, its metrics spelled out below.
        hot = next(r for r in lines if r.hot == 1)
        assert listing.cursor == hot.line - 1
        text = pane_text(screen)
        assert "●1" in text and f"zoo.cu:{hot.line}" in text
        assert hot.line == 49
        assert "Executed 8,388,608" in text
        assert "41,545" in text  # the kernel's samples

        # enter: to the line's SASS (every instruction of it marked) and back.
        await pilot.press("enter")
        await settle(pilot)
        targets = source.sass_rows_of(hot.file, hot.line)
        assert targets and listing.sass and listing.cursor == targets[0]
        assert listing.linked == frozenset(targets)
        assert f"← zoo.cu:{hot.line}" in pane_text(screen)
        await pilot.press("enter")
        await settle(pilot)
        assert not listing.sass and listing.cursor == hot.line - 1

        # ] and [ step to the next and previous hot line (wrapping); s shows the SASS.
        await pilot.press("right_square_bracket")
        await settle(pilot)
        hot_rows = [i for i, r in enumerate(lines) if r.hot]
        assert len(hot_rows) > 1
        after = [i for i in hot_rows if i > hot.line - 1]
        assert listing.cursor == (after[0] if after else hot_rows[0])
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert listing.cursor == hot.line - 1
        await pilot.press("s")
        await settle(pilot)
        assert listing.sass and len(listing.rows) == len(source.sass)
        assert f"SASS: {len(source.sass):,} instructions" in pane_text(screen)

        # p to mm_naive (kernel 2): its source opens on the line holding most samples (its
        # top hot spot), marked: 402,100 of its 402,437 samples sit on line 25.
        source_of_2 = zoo.kernel_source(2)
        assert source_of_2 is not None
        hot_2 = next(r for r in source_of_2.files[0].rows if r.hot == 1)
        await pilot.press("p", "p")
        await settle(pilot)
        text = pane_text(screen)
        assert screen.kernel_id == 2 and "zoo.cu:25 if (r < N && c < N)" in text
        marked = next(line for line in text.splitlines() if line.startswith("●1"))
        assert marked.split()[1] == "25" and "99.9   1.23G   0.40M   1.07G" in marked
        assert "enter: jump source ↔ SASS" in text
        # The listing keeps the keys across kernels (it lost the focus while it was read).
        await pilot.press("enter")
        await settle(pilot)
        assert listing.sass and listing.cursor == source_of_2.sass_rows_of(hot_2.file, 25)[0]
