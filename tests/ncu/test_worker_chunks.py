"""Passes over every kernel run in worker processes that read bounded chunks and are replaced:
the results are the same as one process reading everything, and replacement happens."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelscope.export import json_text
from kernelscope.export.writer import ExportOptions, render
from kernelscope.parsers.errors import ReportError
from kernelscope.parsers.jsonsafe import json_safe
from kernelscope.parsers.kernel_analysis import diagnose_summary, open_for_analysis
from kernelscope.parsers.ncu import list_pool, list_worker
from tests.conftest import NCU_SAMPLES

REPO = Path(__file__).resolve().parents[2]
SMALL_FAMILY = NCU_SAMPLES / "small_family.ncu-rep.xz"  # 151 launches: read by workers
FOUR = NCU_SAMPLES / "gemm_sets_full.ncu-rep.xz"  # 4 kernels, --set full with source


@pytest.fixture
def spawned():
    """``[first id, kernels read]`` of every child forked by the passes this test runs."""
    list_pool.recent_children.clear()

    class Children:
        def all(self) -> list[list[int]]:
            return [c for run in list_pool.recent_children for c in run]

        def __len__(self) -> int:
            return len(self.all())

    return Children()


@pytest.fixture
def through_pool(monkeypatch):
    """The tests in this process use a pool process (this test process may run threads,
    polars' for one, which rules out forking from it); ``FORKED_HERE`` below runs the same
    checks in a fresh single-threaded process, which forks the children itself."""
    monkeypatch.setattr(list_pool, "can_fork_here", lambda: False)
    return "pool"


def _summaries(path, **kwargs):
    with open_for_analysis(path) as report:
        return sorted(
            (s for batch in report.iter_summaries(**kwargs) for s in batch), key=lambda s: s.id
        )


def test_replaced_workers_read_what_one_process_reads(through_pool, spawned, monkeypatch):
    alone = _summaries(FOUR, processes=0)
    monkeypatch.setattr(list_pool, "CHUNK", 1)
    chunked = _summaries(FOUR, processes=2)
    # kernel 0 is read in this process while the pool starts; then one kernel a child
    assert sorted(spawned.all()) == [[1, 1], [2, 1], [3, 1]]
    assert [s.row for s in chunked] == [s.row for s in alone]
    assert [s.metrics for s in chunked] == [s.metrics for s in alone]
    assert [s.rules for s in chunked] == [s.rules for s in alone]


def test_a_child_stops_at_its_memory_budget(through_pool, spawned, monkeypatch):
    # ncu_report takes ~120 MB at a process's first kernel, so a 1 MB budget lets each child
    # read exactly one kernel before a fresh one takes over the rest of its chunk.
    monkeypatch.setenv("KERNELSCOPE_WORKER_MB", "1")
    chunked = _summaries(FOUR, processes=1)
    assert spawned.all() == [[1, 1], [2, 1], [3, 1]]  # (kernel 0: read here)
    assert [s.id for s in chunked] == [0, 1, 2, 3]


def test_a_pass_through_the_pool_shows_its_first_kernel_before_the_pool_answers(
    through_pool, spawned
):
    with open_for_analysis(SMALL_FAMILY) as report:
        batches = report.iter_summaries(processes=2, analyse=diagnose_summary)
        first = next(batches)
        assert spawned.all() == []  # no child yet: read in this process
        assert [s.id for s, _ in first] == [0]
        assert repr(first[0][1]) == repr(diagnose_summary(report.summary(0)))
        rest = [s for batch in batches for s, _ in batch]
    assert sorted(s.id for s in rest) == list(range(1, 151))
    assert min(c[0] for c in spawned.all()) == 1


FORKED_HERE = """
import gc, json, os, sys
from kernelscope.parsers.errors import ReportError
from kernelscope.parsers.kernel_analysis import diagnose_summary, open_for_analysis
from kernelscope.parsers.ncu import list_pool
from tests.ncu.test_worker_chunks import boom_bug, boom_report_error
assert list_pool.can_fork_here()
mode, out = sys.argv[2], {}
with open_for_analysis(sys.argv[1]) as report:
    if mode == "rows":
        list_pool.CHUNK = 40
        out["rows"] = sorted((s.row for b in report.iter_summaries(processes=2) for s in b),
                             key=lambda r: r["id"])
    elif mode == "budget":
        os.environ["KERNELSCOPE_WORKER_MB"] = "1"
        out["ids"] = [s.id for b in report.iter_summaries(processes=1) for s in b]
    elif mode in ("report_error", "bug"):
        analyse = boom_report_error if mode == "report_error" else boom_bug
        try:
            list(report.iter_details([1, 2, 3], analyse=analyse, processes=2))
        except ReportError as exc:
            out["error"] = str(exc)
    elif mode == "stop":
        batches = report.iter_summaries(processes=2, batch_seconds=0.0)
        out["first"] = len(next(batches))
        batches.close()
        try:
            os.waitpid(-1, os.WNOHANG)
            out["left"] = "a child is left"
        except ChildProcessError:
            out["left"] = None
assert list_pool.can_fork_here()  # nothing the pass did started a thread here
out["children"] = list(list_pool.recent_children)
out["frozen"] = gc.get_freeze_count()  # frozen for each fork, thawed when the pass ends
print(json.dumps(out))
"""


def _forked_here(mode: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", FORKED_HERE, str(SMALL_FAMILY), mode],
        capture_output=True, text=True, check=True, cwd=REPO,
    )
    return json.loads(done.stdout)


def test_a_single_threaded_process_forks_the_children_itself():
    out = _forked_here("rows")
    children = out["children"][-1]
    assert sum(n for _, n in children) == 151 and len(children) >= 4  # 40 a child at most
    assert out["frozen"] == 0
    with open_for_analysis(SMALL_FAMILY) as report:
        alone = [report.summary(i).row for i in range(report.kernel_count)]
    assert out["rows"] == json.loads(json.dumps(alone))


def test_children_forked_here_stop_at_their_budget():
    out = _forked_here("budget")
    assert out["ids"] == list(range(151))
    assert all(n == 1 for _, n in out["children"][-1]) and len(out["children"][-1]) == 151


def test_children_forked_here_report_errors_as_one_sentence():
    assert _forked_here("report_error")["error"] in {
        f"Kernel {i} is not what it seems." for i in (1, 2, 3)
    }
    error = _forked_here("bug")["error"]
    assert error.startswith("Reading the kernels failed in a worker process (")
    assert "ValueError: a bug in an analysis" in error


def test_stopping_a_pass_forked_here_leaves_no_child():
    out = _forked_here("stop")
    assert 0 < out["first"] < 151 and out["left"] is None
    assert out["frozen"] == 0  # (a pass stopped early too)


def boom_report_error(detail):
    raise ReportError(f"Kernel {detail.id} is not what it seems.")


def boom_bug(detail):
    raise ValueError("a bug in an analysis")


def test_a_childs_report_error_reaches_the_caller_as_its_sentence(through_pool):
    with (
        open_for_analysis(SMALL_FAMILY) as report,
        pytest.raises(ReportError, match=r"^Kernel \d+ is not what it seems\.$"),
    ):
        list(report.iter_details([1, 2, 3], analyse=boom_report_error, processes=2))


def test_a_child_that_fails_otherwise_is_one_sentence_naming_the_error(through_pool):
    with (
        open_for_analysis(SMALL_FAMILY) as report,
        pytest.raises(ReportError, match=r"failed in a worker process.*ValueError"),
    ):
        list(report.iter_details([1, 2, 3], analyse=boom_bug, processes=2))


def test_stopping_a_pass_leaves_no_process_behind(through_pool):
    with open_for_analysis(SMALL_FAMILY) as report:
        batches = report.iter_summaries(processes=2, batch_seconds=0.0)
        first = next(batches)
        assert first and len(first) < 151
        batches.close()
    _no_children_left()


def test_a_cancelled_pass_stops(through_pool):
    calls = []

    def cancelled() -> bool:
        calls.append(1)
        return len(calls) > 2

    with open_for_analysis(SMALL_FAMILY) as report:
        got = sum(len(b) for b in report.iter_summaries(processes=2, cancelled=cancelled))
    assert got < 151
    _no_children_left()


def _no_children_left() -> None:
    """Every child process this test process started has been waited for."""
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def test_a_pool_started_ahead_serves_the_next_pass(spawned, monkeypatch):
    monkeypatch.setattr(list_pool, "can_fork_here", lambda: False)
    list_pool.prestart()
    waiting = list(list_pool._waiting)
    assert len(waiting) == 1
    rows = [s.row for s in _summaries(SMALL_FAMILY, processes=2)]
    assert list_pool._waiting == [] and waiting[0].poll() is not None  # used, and gone
    assert len(rows) == 151 and sum(n for _, n in spawned.all()) == 150  # (kernel 0: here)


def test_chunks_are_a_quarter_of_a_cores_share_and_one_share_with_source():
    assert list_worker.chunk_size(1000, 2, 5000) == 125
    assert list_worker.chunk_size(40, 2, 5000) == 16  # no fewer than 16 a child
    assert list_worker.chunk_size(1000, 2, 40) == 40
    assert list_worker.chunk_size(80, 2, 5000, source=True) == 40


@pytest.mark.parametrize("fmt", ["json", "md", "csv"])
def test_exports_are_the_same_whatever_the_chunks(fmt, spawned, monkeypatch):
    whole = render(SMALL_FAMILY, ExportOptions(fmt=fmt))
    first = len(spawned)
    monkeypatch.setattr(list_pool, "CHUNK", 40)
    chunked = render(SMALL_FAMILY, ExportOptions(fmt=fmt))
    assert len(spawned) - first >= 4  # 151 kernels, 40 a child
    assert chunked == whole
    if fmt == "json":
        # What json.dumps(indent=2) writes for the same document, byte for byte.
        assert json.dumps(json.loads(whole), indent=2) + "\n" == whole


def test_json_export_with_every_metric_reads_them_in_the_workers(spawned):
    text = render(SMALL_FAMILY, ExportOptions(fmt="json", all_metrics=True, top=1))
    doc = json.loads(text)
    assert len(spawned), "the kernels of the largest family are read in worker processes"
    with open_for_analysis(SMALL_FAMILY) as report:
        first = doc["kernels"][0]
        every = report.all_metrics(first["id"])
    assert set(first["metrics"]) == set(every)
    assert json.dumps(doc, indent=2) + "\n" == text


def test_csv_with_every_metric_reads_them_in_the_workers(spawned):
    text = render(SMALL_FAMILY, ExportOptions(fmt="csv", all_metrics=True, top=1))
    header = text.splitlines()[0].split(",")
    assert len(list_pool.recent_children) >= 2  # the list pass, then the chosen kernels'
    with open_for_analysis(SMALL_FAMILY) as report:
        every = report.all_metrics(1)
    assert set(every) <= set(header)


scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.tuples(inner, inner)
    | st.dictionaries(st.text() | st.integers() | st.booleans() | st.none(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(values)
def test_json_text_writes_what_json_dumps_writes(value):
    assert json_text.dumps(value) == json.dumps(json_safe(value), indent=2)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(), st.none() | st.floats() | st.integers() | st.text(), st.text()),
        max_size=6,
        unique_by=lambda t: t[0],
    ),
    st.integers(min_value=0, max_value=4),
)
def test_metric_members_are_what_json_dumps_writes(triples, level):
    names = [n for n, _, _ in triples]
    vals = [v for _, v, _ in triples]
    units = [u for _, _, u in triples]
    as_dict = {n: {"value": v, "unit": u} for n, v, u in triples}
    text = json_text.wrap((json_text.value_unit_items(names, vals, units, level),), level)
    assert text == json_text.dumps(as_dict, level)
