"""Passes over every kernel run in worker processes that read bounded chunks and are replaced:
the results are the same as one process reading everything, and replacement happens."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelscope.export import json_text
from kernelscope.export.writer import ExportOptions, render
from kernelscope.parsers.jsonsafe import json_safe
from kernelscope.parsers.kernel_analysis import open_for_analysis
from kernelscope.parsers.ncu import list_pool
from tests.conftest import NCU_SAMPLES

SMALL_FAMILY = NCU_SAMPLES / "small_family.ncu-rep.xz"  # 151 launches: read by workers
FOUR = NCU_SAMPLES / "gemm_sets_full.ncu-rep.xz"  # 4 kernels, --set full with source


@pytest.fixture
def spawned(monkeypatch):
    """The id lists the worker processes were started with, in order."""
    started: list[list[int]] = []
    real = list_pool._spawn

    def spy(job):
        started.append(list(job["ids"]))
        return real(job)

    monkeypatch.setattr(list_pool, "_spawn", spy)
    return started


def _summaries(path, **kwargs):
    with open_for_analysis(path) as report:
        return sorted(
            (s for batch in report.iter_summaries(**kwargs) for s in batch), key=lambda s: s.id
        )


def test_replaced_workers_read_what_one_process_reads(spawned, monkeypatch):
    alone = _summaries(FOUR, processes=0)
    monkeypatch.setattr(list_pool, "CHUNK", 1)
    chunked = _summaries(FOUR, processes=2)
    assert len(spawned) == 4  # two shards of two kernels, one kernel a child
    assert sorted(i for ids in spawned for i in ids[:1]) == [0, 1, 2, 3]
    assert [s.row for s in chunked] == [s.row for s in alone]
    assert [s.metrics for s in chunked] == [s.metrics for s in alone]
    assert [s.rules for s in chunked] == [s.rules for s in alone]


def test_a_child_stops_at_its_memory_budget(spawned, monkeypatch):
    # ncu_report takes ~120 MB at a process's first kernel, so a 1 MB budget lets each child
    # read exactly one kernel before it hands over.
    monkeypatch.setenv("KERNELSCOPE_WORKER_MB", "1")
    chunked = _summaries(FOUR, processes=1)
    assert [ids[0] for ids in spawned] == [0, 1, 2, 3]
    assert [s.id for s in chunked] == [0, 1, 2, 3]


@pytest.mark.parametrize("fmt", ["json", "md", "csv"])
def test_exports_are_the_same_whatever_the_chunks(fmt, spawned, monkeypatch):
    whole = render(SMALL_FAMILY, ExportOptions(fmt=fmt))
    first = len(spawned)
    monkeypatch.setattr(list_pool, "CHUNK", 40)
    chunked = render(SMALL_FAMILY, ExportOptions(fmt=fmt))
    assert len(spawned) - first >= 4  # 151 kernels over two shards, 40 a child
    assert chunked == whole
    if fmt == "json":
        # What json.dumps(indent=2) writes for the same document, byte for byte.
        assert json.dumps(json.loads(whole), indent=2) + "\n" == whole


def test_json_export_with_every_metric_reads_them_in_the_workers(spawned):
    text = render(SMALL_FAMILY, ExportOptions(fmt="json", all_metrics=True, top=1))
    doc = json.loads(text)
    assert spawned, "the kernels of the largest family are read in worker processes"
    with open_for_analysis(SMALL_FAMILY) as report:
        first = doc["kernels"][0]
        every = report.all_metrics(first["id"])
    assert set(first["metrics"]) == set(every)
    assert json.dumps(doc, indent=2) + "\n" == text


def test_csv_with_every_metric_reads_them_in_the_workers(spawned):
    text = render(SMALL_FAMILY, ExportOptions(fmt="csv", all_metrics=True, top=1))
    header = text.splitlines()[0].split(",")
    assert len(spawned) >= 2  # the list pass, then the chosen kernels' metrics
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
