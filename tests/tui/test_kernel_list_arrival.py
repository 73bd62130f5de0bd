"""How the kernel list's rows reach the UI thread while the report loads: the reading worker
asks the UI thread to take what it read after each batch, but never while an earlier request
still waits, so a busy UI thread takes several batches at once instead of a queue of them."""

from __future__ import annotations

import asyncio
import gc
import threading

from textual.widgets import DataTable

from kernelscope.kinds.ncu.screens.kernel_list import KernelListScreen
from kernelscope.tui.app import create_app
from kernelscope.ui.collection import YOUNG_THRESHOLD

from .helpers import Takes, batches_by_hand

WAIT_S = 120
"""How long a step waits for the other thread: only a failed test ever waits that long."""


def shown_ids(app) -> list[int]:  # type: ignore[no-untyped-def]
    table = app.screen.query_one(DataTable)
    return [int(str(table.get_row_at(i)[0]).strip()) for i in range(table.row_count)]


def shown_row(app, row: int) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(cell).strip() for cell in app.screen.query_one(DataTable).get_row_at(row)]


async def test_batches_read_while_the_ui_is_busy_come_in_one_request(monkeypatch) -> None:
    drawn, go, held, gate = (threading.Event() for _ in range(4))

    def plan(report, items):  # type: ignore[no-untyped-def]
        yield items([0])  # the first rows: the worker goes on once they are drawn
        drawn.set()
        go.wait(WAIT_S)
        yield from (items([1]), items([2]), items([3]))  # the UI thread is busy meanwhile
        held.set()
        gate.wait(WAIT_S)
        yield items(range(4, report.kernel_count))

    batches_by_hand(monkeypatch, plan)
    takes = Takes(monkeypatch)
    app = create_app()
    async with app.run_test(size=(120, 36)):
        try:
            await asyncio.get_running_loop().run_in_executor(None, drawn.wait, WAIT_S)
            # the first rows, taken; their diagnoses, made once the rows were drawn, wait for
            # the next batch (the list's cells are drawn again once for both)
            assert takes.sizes == [1]
            assert isinstance(app.screen, KernelListScreen) and shown_ids(app) == [0]
            assert {"n/a"} <= set(shown_row(app, 0))
            go.set()
            held.wait(WAIT_S)  # the UI thread blocked while the worker reads three batches
            await takes.until(lambda: len(takes.sizes) >= 2)
            assert takes.sizes[1:] == [3]  # one request took the three batches
            assert shown_ids(app) == [0, 1, 2, 3]
            assert {"dram-bound", "⚠ dram-bandwidth-saturated"} <= set(shown_row(app, 0))
            gate.set()
            await takes.until(lambda: len(takes.sizes) >= 4)
            # the last batch's request, then the end of loading
            assert takes.sizes[1:] == [3, 2, 0]
            assert shown_ids(app) == [0, 1, 2, 3, 4, 5]
        finally:
            go.set()
            gate.set()


async def test_batches_read_in_little_cpu_time_go_with_a_later_one(monkeypatch) -> None:
    """The worker asks the UI thread to take rows only once it has read for
    ``UI_BATCH_CPU_S`` of CPU time since it last asked (a loaded machine's batches hold less
    reading): batches read in less go with a later one, here with the end of reading."""
    from kernelscope.kinds.ncu.screens import kernel_session

    def plan(report, items):  # type: ignore[no-untyped-def]
        yield items([0])
        yield from (items([1]), items([2]), items(range(3, report.kernel_count)))

    batches_by_hand(monkeypatch, plan)
    monkeypatch.setattr(kernel_session, "UI_BATCH_CPU_S", 3600.0)
    takes = Takes(monkeypatch)
    app = create_app()
    async with app.run_test(size=(120, 36)):
        await takes.until(lambda: isinstance(app.screen, KernelListScreen) and app.screen.done)
        count = app.session.report.kernel_count
        assert takes.sizes == [1, count - 1]  # the first rows, then the rest at the end
        assert shown_ids(app) == list(range(count))
        assert {"dram-bound", "⚠ dram-bandwidth-saturated"} <= set(shown_row(app, 0))


def test_the_end_is_near_when_the_rest_takes_less_than_a_batch_s_cpu_time(monkeypatch) -> None:
    """No batch goes to the list when the worker, at its pace so far, reads the kernels left
    within ``UI_BATCH_CPU_S``: the end of reading takes them about as soon."""
    from kernelscope.kinds.ncu.screens import kernel_session
    from kernelscope.kinds.ncu.screens.kernel_session import end_is_near

    monkeypatch.setattr(kernel_session, "UI_BATCH_CPU_S", 0.2)
    assert end_is_near(0.2, 500, 400)  # 400 more at 0.4 ms each: 0.16 s
    assert not end_is_near(0.2, 500, 600)  # 0.24 s
    assert end_is_near(0.3, 964, 0)  # every kernel read: the end takes the last batch
    assert not end_is_near(0.0, 0, 10)  # no pace known yet
    monkeypatch.setattr(kernel_session, "UI_BATCH_CPU_S", 0.0)  # (the tests' every batch)
    assert not end_is_near(0.3, 964, 0)


async def test_the_worker_weighs_the_kernels_left_at_its_pace_since_the_first_rows(
        monkeypatch) -> None:
    """Each batch after the first rows asks ``end_is_near`` with the kernels read since the
    first rows and those left."""
    from kernelscope.kinds.ncu.screens import kernel_session

    def plan(report, items):  # type: ignore[no-untyped-def]
        yield items([0, 1])
        yield from (items([2]), items([3]), items(range(4, report.kernel_count)))

    batches_by_hand(monkeypatch, plan)
    asked: list[tuple[int, int]] = []
    real = kernel_session.end_is_near

    def end_is_near(read_cpu_s: float, read: int, left: int) -> bool:
        asked.append((read, left))
        return real(read_cpu_s, read, left)

    monkeypatch.setattr(kernel_session, "end_is_near", end_is_near)
    takes = Takes(monkeypatch)
    app = create_app()
    async with app.run_test(size=(120, 36)):
        await takes.until(lambda: isinstance(app.screen, KernelListScreen) and app.screen.done)
        count = app.session.report.kernel_count
    assert asked == [(1, count - 3), (2, count - 4), (count - 2, 0)]


async def test_the_last_rows_are_taken_under_the_load_s_thresholds(monkeypatch) -> None:
    """The end of loading (the last batch's rows, the shares) runs with the collector's
    thresholds raised, as the reading did: its collections do not walk the rows it makes."""
    thresholds: list[tuple[int, int, int]] = []
    real = KernelListScreen.finish_loading

    def finish_loading(screen: KernelListScreen, total: int) -> None:
        thresholds.append(gc.get_threshold())
        real(screen, total)

    monkeypatch.setattr(KernelListScreen, "finish_loading", finish_loading)
    takes = Takes(monkeypatch)
    app = create_app()
    async with app.run_test(size=(120, 36)):
        await takes.until(lambda: isinstance(app.screen, KernelListScreen) and app.screen.done)
    assert len(thresholds) == 1 and thresholds[0][0] >= YOUNG_THRESHOLD
