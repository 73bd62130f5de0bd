"""Kineto traces found by content (plain, gzip, xz, zstd, leading whitespace), read in
pieces, and bad input refused with one sentence and exit 2."""

from __future__ import annotations

import gzip
import io
import lzma
import os
import re
import subprocess
import sys
from pathlib import Path

import orjson
import polars as pl
import pytest
import zstandard
from polars.testing import assert_frame_equal

from kernelscope.kinds import kind_for
from kernelscope.kinds.kineto.model import model
from kernelscope.kinds.kineto.model.events import RAW_SCHEMA, Collector, columns_of, read_piece
from kernelscope.kinds.kineto.model.stream import TraceHeader, iter_event_pieces
from tests.conftest import ROOT, SAMPLES
from tests.wild.conftest import require_wild

STEP = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"
N_PAIRS = 8000


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "kernelscope", *args], capture_output=True,
                          text=True, timeout=300, env=env, cwd=ROOT)


@pytest.fixture(scope="module")
def step_bytes() -> bytes:
    return lzma.decompress(STEP.read_bytes())


@pytest.mark.parametrize("packing", ["plain", "gz", "zst", "xz"])
def test_found_by_content_whatever_the_packing(tmp_path: Path, step_bytes: bytes,
                                               packing: str) -> None:
    body = b"\n   \t" + step_bytes  # leading whitespace is allowed
    pack = {"plain": lambda b: b, "gz": gzip.compress, "xz": lzma.compress,
            "zst": lambda b: zstandard.ZstdCompressor().compress(b)}[packing]
    path = tmp_path / "trace.bin"  # no telling extension
    path.write_bytes(pack(body))
    assert kind_for([path]).name == "kineto"


def test_pieces_hold_every_event_once(step_bytes: bytes, tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(step_bytes)
    whole = orjson.loads(step_bytes)
    header = TraceHeader()
    pieces = list(iter_event_pieces(path, header, piece_bytes=50_000))
    assert len(pieces) > 10
    assert [e for p in pieces for e in p] == whole["traceEvents"]
    assert header.members["baseTimeNanoseconds"] == whole["baseTimeNanoseconds"]
    assert header.members["deviceProperties"][0]["name"] == "NVIDIA H200"


def _refused(path: Path) -> str:
    out = run_cli("export", str(path), "--format", "json")
    assert out.returncode == 2, out.stderr
    assert out.stdout == ""
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    return out.stderr.strip()


def test_truncated_trace_is_refused(tmp_path: Path, step_bytes: bytes) -> None:
    path = tmp_path / "cut.pt.trace.json"
    path.write_bytes(step_bytes[: len(step_bytes) // 2])
    before = path.read_bytes()
    assert "truncated or not valid JSON" in _refused(path)
    assert path.read_bytes() == before


def test_trace_without_gpu_events_is_refused(tmp_path: Path) -> None:
    doc = {"schemaVersion": 1, "traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 10.5,
         "dur": 3.0, "args": {}}]}
    path = tmp_path / "cpu_only.json"
    path.write_bytes(orjson.dumps(doc))
    assert "holds no GPU activity" in _refused(path)


def test_a_kernel_named_by_a_64_mib_string_is_refused(tmp_path: Path, step_bytes: bytes
                                                      ) -> None:
    """The sample with its first kernel's name made 64 MiB long (gzip: 300 kB)."""
    at = step_bytes.index(b'"cat": "kernel"')
    name = step_bytes.index(b'"name": "', at) + len(b'"name": "')
    path = tmp_path / "long_name.pt.trace.json.gz"
    path.write_bytes(gzip.compress(step_bytes[:name] + b"a" * (64 << 20) + step_bytes[name:],
                                   compresslevel=1, mtime=0))
    assert "more than 16 MiB of its traceEvents array without a whole event" in _refused(path)


def test_a_gibibyte_of_whitespace_between_events_is_refused(tmp_path: Path,
                                                            step_bytes: bytes) -> None:
    """The sample with 1 GiB of spaces after its first event, gzipped to 1 MiB."""
    boundary = re.compile(rb"\}\s*,")
    found = boundary.search(step_bytes, step_bytes.index(b'"traceEvents"'))
    assert found is not None
    cut = found.end()
    spaces = gzip.compress(b" " * (1 << 20), compresslevel=9, mtime=0)
    path = tmp_path / "padded.pt.trace.json.gz"
    path.write_bytes(gzip.compress(step_bytes[:cut], mtime=0) + spaces * 1024
                     + gzip.compress(step_bytes[cut:], mtime=0))
    assert "more than 16 MiB of its traceEvents array without a whole event" in _refused(path)


def test_json_object_that_is_no_trace_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_bytes(b'{"schemaVersion": 1, "something": [1, 2, 3]}')
    assert "without a traceEvents array" in _refused(path)


def test_compact_json_with_boundaries_inside_strings_and_objects(tmp_path: Path) -> None:
    # One line, no spaces; names and nested args that look like event boundaries.
    events = [{"ph": "X", "cat": "cpu_op", "name": f'op}},{{"{i}', "pid": 1, "tid": 1,
               "ts": float(i), "dur": 0.5, "args": {"nested": [{"a": 1}, {"b": [2]}]}}
              for i in range(3000)]
    doc = {"traceEvents": events, "displayTimeUnit": "ms", "baseTimeNanoseconds": 7}
    path = tmp_path / "compact.json"
    path.write_bytes(orjson.dumps(doc))
    header = TraceHeader()
    got = [e for piece in iter_event_pieces(path, header, piece_bytes=4096) for e in piece]
    assert got == events
    assert header.members == {"displayTimeUnit": "ms", "baseTimeNanoseconds": 7}


def _kernel(i: int) -> dict[str, object]:
    return {"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": i + 0.25,
            "dur": 0.5, "args": {"device": 0, "stream": 7, "correlation": i,
                                 "grid": [i, 1, 1], "block": [128, 1, 1]}}


def test_cuts_inside_strings_are_read_again_with_checked_cuts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Pieces parsed by a thread pool are cut without a check; a cut inside a name makes that
    # piece fail, and the trace is read again with every cut checked. (The first megabyte is
    # read whole, so the trace holds several.)
    events: list[dict[str, object]] = []
    for i in range(N_PAIRS):
        events += [{"ph": "X", "cat": "python_function", "name": f'f}}, {{"{i}', "pid": 1,
                    "tid": 1, "ts": float(i), "dur": 0.5, "args": {"n": [{"a": 1}, {"b": 2}]}},
                   _kernel(i)]
    path = tmp_path / "names.json"
    path.write_bytes(orjson.dumps({"traceEvents": events, "baseTimeNanoseconds": 7}))
    monkeypatch.setattr(model, "PIECE_BYTES", 8192)
    for workers in (1, 2, 3):
        trace = model.read_trace(path, workers=workers)
        assert trace.cpu["name"].to_list() == [f'f}}, {{"{i}' for i in range(N_PAIRS)]
        assert trace.gpu["correlation"].to_list() == list(range(N_PAIRS))
        assert trace.gpu["grid_x"].to_list() == list(range(N_PAIRS))
        assert trace.events == 2 * N_PAIRS and trace.base_time_ns == 7


@pytest.mark.parametrize("name", ["kineto_step", "ModelTC__lightllm__forward_decode_0",
                                  "flashinfer-ai__flashinfer__rope_profile"])
def test_columns_read_by_polars_equal_the_python_pass(name: str) -> None:
    # Two ways to the same frames: polars reading the events' text into columns (the fast
    # path) and orjson plus one Python pass (for pieces polars cannot type).
    path = STEP if name == "kineto_step" else require_wild() / "kineto" / f"{name}.pt.trace.json.xz"
    text = orjson.dumps(orjson.loads(lzma.decompress(path.read_bytes()))["traceEvents"])
    fast = columns_of(pl.read_json(io.BytesIO(text), schema=RAW_SCHEMA))
    slow = Collector.rows(orjson.loads(text))
    assert fast.keys() == slow.keys()
    for key in fast:
        assert_frame_equal(fast[key], slow[key])
    assert fast["gpu"].height and fast["cpu"].height and fast["runtime"].height


def test_raw_pieces_made_into_columns_a_batch_at_a_time_equal_piece_by_piece() -> None:
    # The reader leaves the pieces polars reads raw and makes their category frames a batch
    # at a time; a piece polars cannot type (a stream written as text) comes between them.
    events = orjson.loads(lzma.decompress(STEP.read_bytes()))["traceEvents"]
    odd = {**next(e for e in events if e.get("cat") == "kernel")}
    odd["args"] = {**odd["args"], "stream": str(odd["args"]["stream"])}
    size = len(events) // 4 + 1
    texts = [orjson.dumps(events[i:i + size]) for i in range(0, len(events), size)]
    texts.insert(2, orjson.dumps([odd]))  # after two raw pieces still waiting
    each, batched = Collector(), Collector(batch_rows=3 * size)
    for text in texts:
        each.add(read_piece(text))
        batched.add(read_piece(text, columns=False))
    assert batched.events == each.events == len(events) + 1
    for key, frame in each.frames().items():
        assert_frame_equal(batched.frames()[key], frame)
    assert each.frames()["gpu"].height > 1


def test_events_of_other_types_take_the_python_pass() -> None:
    # A pid that is a number in one event and a string in another, a string where polars
    # expects a number: read_piece falls back to orjson and gives the Python pass's frames.
    events = [_kernel(1), {**_kernel(2), "pid": "Spans"},
              {**_kernel(3), "args": {"device": 0, "stream": "7", "correlation": 3}}]
    count, frames, *_ = read_piece(orjson.dumps(events))
    assert count == 3
    assert frames["gpu"]["pid"].to_list() == [0, None, 0]
    assert frames["gpu"]["stream"].to_list() == [7, 7, 7]
