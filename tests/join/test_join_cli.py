"""``kernelscope join …`` headless, ``kernelscope export|summary join …`` and bad inputs."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from kernelscope.tui.cli import main
from tests.conftest import SAMPLES
from tests.join.conftest import KERNELS_XZ, TRACE_XZ

ZOO_A = SAMPLES / "ncu" / "zoo_a.ncu-rep.xz"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_join_json_to_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "join.json"
    code, out, err = run(capsys, "join", str(TRACE_XZ), str(KERNELS_XZ), "--format", "json",
                         "-o", str(target))
    assert (code, out, err) == (0, "", "")
    doc = json.loads(target.read_text())
    assert doc["schema"] == "kernelscope/join/2"
    assert doc["ranking"][0]["family"] == "launch-overhead"
    assert [r["report"] for r in doc["unmatched_kernels"]] == []


def test_join_markdown_and_csv(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "join", str(KERNELS_XZ), str(TRACE_XZ), "--format", "md")
    assert code == 0  # the inputs in any order
    assert out.startswith("# What to fix first: join\\_trace.sqlite.xz joined with")
    assert "| 1 | Launch overhead: GPU idle between tiny kernels | idle |" in out
    assert "```bash\nncu --set full --import-source yes" in out
    assert "## Not profiled: gain unknown, by time" in out
    assert ("| ?1 | vectorized_elementwise<launch_clamp_scalar> | 6.2 % | 0.1 % | 1,000 | "
            "1.068 ms | 1.068 us |") in out
    assert "≤ 396.4 us" not in out  # no bound guessed for a family nobody profiled
    code, out, _ = run(capsys, "export", "join", str(TRACE_XZ), str(KERNELS_XZ), "-f", "csv",
                       "--top", "4")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and [(r["group"], r["rank"]) for r in rows] == [
        ("ranked", "1"), ("ranked", "2"), ("ranked", "3"), ("ranked", "4"),
        ("unprofiled", "1"), ("unprofiled", "2"), ("unprofiled", "3"), ("unprofiled", "4")]
    assert rows[4]["potential_saving_ns"] == "" and rows[4]["headroom"] == ""
    # the kernels save no step time (the steps wait on the host), so copies come before them
    assert rows[3]["title"] == "Copies and memsets on the GPU"


def test_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "summary", "join", str(TRACE_XZ), str(KERNELS_XZ))
    assert code == 0 and "What to fix first" in out and "launch-overhead" in out
    assert "Not profiled: gain unknown, by time" in out


def test_kernels_of_another_program_are_unmatched(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "join", str(TRACE_XZ), str(ZOO_A), "--format", "json")
    doc = json.loads(out)
    assert code == 0
    assert len(doc["unmatched_kernels"]) == 6
    assert not [r for r in doc["ranking"] if r["kind"] == "kernel"]
    assert doc["unprofiled"] and all(not r["profiled"] for r in doc["unprofiled"])
    assert doc["notes"] and "same program" in doc["notes"][0]


@pytest.mark.parametrize(
    ("inputs", "sentence"),
    [
        ((TRACE_XZ,), "'join' takes 2 or more inputs, not 1."),
        ((KERNELS_XZ, ZOO_A), "A join needs a timeline"),
        ((TRACE_XZ, TRACE_XZ, KERNELS_XZ), "exactly one timeline"),
        ((TRACE_XZ, Path("no/such/file.ncu-rep")), "no/such/file.ncu-rep"),
    ],
)
def test_bad_inputs_get_one_sentence(capsys: pytest.CaptureFixture[str], inputs: tuple[Path, ...],
                                     sentence: str) -> None:
    code, out, err = run(capsys, "join", *map(str, inputs), "--format", "json")
    assert code == 2 and out == ""
    assert sentence in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_file_of_another_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("not a report\n")
    code, _, err = run(capsys, "join", str(TRACE_XZ), str(other), "-f", "md")
    assert code == 2 and "neither a timeline nor a kernel report" in err
    code, _, err = run(capsys, "join", str(TRACE_XZ), str(KERNELS_XZ), "-k", "gemm", "-f", "md")
    assert code == 2 and "a join ranks them all" in err
    assert other.read_text() == "not a report\n"


def test_a_trace_with_allocation_and_setup_gaps_joins(capsys: pytest.CaptureFixture[str]) -> None:
    """timeline_torch has idle gaps spent in cudaMalloc/cudaFree (``alloc``) and in CUDA set-up
    outside its first step; the join once crashed on them (KeyError: 'alloc')."""
    code, out, err = run(capsys, "join", str(SAMPLES / "nsys" / "timeline_torch.sqlite.xz"),
                         str(SAMPLES / "ncu" / "torch_ops.ncu-rep.xz"), "--format", "md")
    assert (code, err) == (0, "")
    assert "| Memory allocation or pinning: GPU idle | idle |" in out
    assert "| CUDA set-up (streams, events, graphs): GPU idle | idle |" in out
    assert ("- Next: Allocate once up front and reuse buffers (a caching allocator, a memory "
            "pool, cudaMallocAsync); pin host buffers once, outside the loop.") in out


def test_the_timeline_sentences_name_pytorch_traces(capsys: pytest.CaptureFixture[str]) -> None:
    """A Kineto trace is a timeline a join takes, and its refusals say so."""
    kineto = SAMPLES / "opeff" / "gemm_sweep.pt.trace.json.xz"
    kernels = SAMPLES / "opeff" / "opeff_gemm.ncu-rep.xz"
    code, _, err = run(capsys, "join", str(kineto), str(kineto), str(kernels), "-f", "md")
    assert code == 2 and "exactly one timeline, not 2" in err and "PyTorch profiler trace" in err
    code, _, err = run(capsys, "join", str(kernels), str(ZOO_A), "-f", "md")
    assert code == 2 and "(.nsys-rep, .sqlite or a PyTorch profiler trace)" in err


def test_a_kineto_join_s_idle_remedies_are_in_pytorch_words(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The GPU idle with no cause found is told how torch.profiler sees more of the CPU,
    never an nsys --trace option."""
    kineto = SAMPLES / "opeff" / "gemm_sweep.pt.trace.json.xz"
    kernels = SAMPLES / "opeff" / "opeff_gemm.ncu-rep.xz"
    code, out, _ = run(capsys, "join", str(kineto), str(kernels), "-f", "json")
    remedies = {r["family"]: r["remedy"] for r in json.loads(out)["ranking"]
                if r["kind"] == "idle"}
    assert code == 0 and "torch.profiler with_stack=True" in remedies["unknown"]
    assert not any("--trace=" in text for text in remedies.values())
