"""The in-process executor's threads: results in the tasks' order, the first failure in that
order raised however the threads interleave, cancelling, ``in_threads``, and the Kineto
reader's collection pause shared by the threads. No test here waits on the clock: the
threads are ordered by events (whose timeouts only keep a broken build from hanging)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from kernelscope.core.errors import ReportError
from kernelscope.core.executor import Executor, in_threads, make_executor
from kernelscope.core.hooks import OpenCancelled
from kernelscope.kinds.kineto.model.model import _collection_paused

SAFETY_S = 30.0
"""How long an event is awaited before the test fails instead of hanging."""


def _square(x: int) -> int:
    return x * x


def test_threads_yield_every_result_in_the_tasks_order() -> None:
    tasks = [(_square, (i,)) for i in range(9)]
    threaded = list(Executor(threads=4).run(tasks))
    assert threaded == list(Executor().run(tasks)) == [(i, i * i) for i in range(9)]


def test_the_first_failure_in_the_tasks_order_is_raised_though_a_later_one_failed_first(
) -> None:
    later_failed = threading.Event()

    def first() -> None:
        assert later_failed.wait(SAFETY_S)
        raise ReportError("the first trace is bad.")

    def later() -> None:
        later_failed.set()
        raise ReportError("a later trace is bad.")

    with pytest.raises(ReportError, match="the first trace is bad"):
        list(Executor(threads=2).run([(first, ()), (later, ())]))


def test_an_unexpected_error_in_a_thread_is_one_sentence() -> None:
    def broken() -> None:
        raise KeyError("rank")

    with pytest.raises(ReportError, match=r"^a worker failed \(KeyError: 'rank'\)\.$"):
        list(Executor(threads=2).run([(_square, (1,)), (broken, ())]))


def test_cancelled_before_any_task_nothing_runs() -> None:
    ran: list[int] = []
    with pytest.raises(OpenCancelled, match="cancelled"):
        list(Executor(threads=4).run([(ran.append, (i,)) for i in range(4)], lambda: True))
    assert ran == []


def test_cancelled_between_results_the_next_is_not_handed_out() -> None:
    cancelled = False

    def is_cancelled() -> bool:
        return cancelled

    results = Executor(threads=2).run([(_square, (i,)) for i in range(4)], is_cancelled)
    assert next(results) == (0, 0)
    cancelled = True
    with pytest.raises(OpenCancelled):
        next(results)


def test_small_runs_are_read_in_process_on_threads(tmp_path) -> None:
    paths = []
    for rank in range(6):
        path = tmp_path / f"rank{rank}.sqlite"
        path.write_bytes(b"x")
        paths.append(path)
    executor = make_executor(paths)
    assert type(executor) is Executor and executor.name == "in process"
    assert executor.threads == 4
    assert make_executor(paths[:1]).threads == 1


def test_in_threads_keeps_the_items_order_and_raises_the_first_error_as_it_was() -> None:
    assert in_threads(_square, list(range(7))) == [i * i for i in range(7)]
    later_failed = threading.Event()

    def fn(i: int) -> int:
        if i == 0:
            assert later_failed.wait(SAFETY_S)
            raise ValueError("item 0")
        if i == 1:
            later_failed.set()
            raise KeyError("item 1")
        return i

    with pytest.raises(ValueError, match="item 0"):
        in_threads(fn, [0, 1, 2])


@pytest.fixture()
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


@pytest.mark.usefixtures("collector_on")
def test_the_collection_pause_ends_when_the_last_of_overlapping_reads_ends() -> None:
    first, second = _collection_paused(), _collection_paused()
    first.__enter__()
    second.__enter__()
    assert not gc.isenabled()
    first.__exit__(None, None, None)
    assert not gc.isenabled()  # the second read still parses
    second.__exit__(None, None, None)
    assert gc.isenabled()
