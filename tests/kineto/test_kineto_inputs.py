"""Kineto traces found by content (plain, gzip, xz, zstd, leading whitespace), read in
pieces, and bad input refused with one sentence and exit 2."""

from __future__ import annotations

import gzip
import lzma
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
import zstandard

from kernelscope.kinds import kind_for
from kernelscope.parsers.kineto.stream import TraceHeader, iter_event_pieces
from tests.conftest import ROOT, SAMPLES

STEP = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"


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
