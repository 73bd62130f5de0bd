"""Per-rank PyTorch profiler (Kineto) traces go through the ranks analysis as Nsight Systems
traces do: the four gloo ranks of ``samples/kineto/ranks`` (rank 2 sleeps 30 ms before every
all-reduce), copies of them whose captures or clocks differ, and runs of other runs refused."""

from __future__ import annotations

import json
import lzma
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from kernelscope.core.errors import ReportError
from kernelscope.kinds import kind_for
from kernelscope.kinds.ranks.analysis.model import RunAnalysis
from kernelscope.kinds.ranks.analysis.run import KEPT, analyse_run
from kernelscope.kinds.ranks.analysis.run_whatif import run_model
from kernelscope.kinds.ranks.render.ranks import straggler_note
from tests.conftest import SAMPLES
from tests.kineto.test_kineto_inputs import run_cli

KINETO_RANKS = SAMPLES / "kineto" / "ranks"
SLEEP_NS = 30_000_000


@pytest.fixture(scope="module")
def run() -> RunAnalysis:
    return analyse_run([KINETO_RANKS], workers=0)


def _trace(rank: int) -> dict[str, Any]:
    return json.loads(lzma.decompress((KINETO_RANKS / f"rank{rank}.pt.trace.json.xz")
                                      .read_bytes()))


def _write(folder: Path, rank: int, trace: dict[str, Any]) -> None:
    (folder / f"rank{rank}.pt.trace.json").write_text(json.dumps(trace))


def test_a_folder_of_kineto_traces_is_a_ranks_run() -> None:
    assert kind_for([KINETO_RANKS]).name == "ranks"


def test_the_slowed_rank_is_the_straggler_late_by_the_sleep(run: RunAnalysis) -> None:
    assert run.extra["trace_kind"] == "kineto" and run.comm_source == "backend"
    assert "distributedInfo" in run.rank_source and list(run.ranks) == [0, 1, 2, 3]
    straggler = run.straggler
    assert straggler is not None and straggler.rank == 2
    assert (straggler.last_count, straggler.collectives) == (4, 4)
    assert 0.8 * SLEEP_NS <= straggler.late_ns_per_step <= 1.2 * SLEEP_NS
    late = run.collectives.filter(run.collectives["rank"] == 2)["late_ns"].to_list()
    assert all(0.8 * SLEEP_NS <= v <= 1.2 * SLEEP_NS for v in late)


def test_steps_and_hta_numbers_come_from_the_trace(run: RunAnalysis) -> None:
    for summary in run.ranks.values():
        assert summary.step_source == "profiler steps" and summary.steps.height == 4
    temporal = run.ranks[2].temporal
    assert temporal is not None and temporal.as_ns()["kernel_ns"] == 117319000  # HTA's


def test_one_host_unnamed_clocks_agree_and_are_left(run: RunAnalysis) -> None:
    # The traces name no host; the gloo all-reduces end within tens of microseconds on the
    # raw clocks, so no rank's clock is shifted.
    clocks = run.clock.ranks
    assert {c.how for c in clocks.values()} == {"reference", "clocks agree"}
    assert all(c.shift_ns == 0 and abs(c.estimate_ns or 0) < 100_000 for c in clocks.values())
    assert set(run.clock.offsets_ns.values()) == {0}


def test_json_is_the_ranks_document_with_kinetos_members() -> None:
    out = run_cli("export", str(KINETO_RANKS), "--format", "json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["schema"] == "kernelscope/ranks/2" and doc["run"]["trace_kind"] == "kineto"
    rank2 = doc["ranks"][2]
    assert rank2["temporal_breakdown"]["kernel_ns"] == 117319000
    assert rank2["comm_comp_overlap_pct"] is None
    assert rank2["kineto"]["distributed"]["world_size"] == 4 and "kernel_types" in rank2
    assert doc["straggler"]["rank"] == 2
    assert [c["last_rank"] for c in doc["collectives"]] == [2, 2, 2, 2]


def test_a_rank_missing_a_step_pairs_by_time_and_names_no_straggler(tmp_path: Path) -> None:
    # Rank 3's capture as if it began after the first step: positional pairing would pair
    # its first all-reduce with the others' first; by time, each is its own. Rank 2 is
    # still late by the sleep at each all-reduce, but the captures differ: no straggler.
    for rank in range(4):
        trace = _trace(rank)
        if rank == 3:
            first = min(e["ts"] for e in trace["traceEvents"] if e.get("name") ==
                        "gloo:all_reduce")
            trace["traceEvents"] = [e for e in trace["traceEvents"] if not (
                (e.get("name") == "gloo:all_reduce" and e["ts"] == first)
                or e.get("name") == "ProfilerStep#2")]
        _write(tmp_path, rank, trace)
    found = analyse_run([tmp_path], workers=0)
    per_match = found.collectives.group_by("match").len().sort("match")["len"].to_list()
    assert per_match == [3, 4, 4, 4]
    late = found.collectives.filter(pl.col("rank") == 2)["late_ns"].to_list()
    assert all(0.8 * SLEEP_NS <= v <= 1.2 * SLEEP_NS for v in late)
    assert found.straggler is None and found.verdict.id == "captures-differ"
    assert {n.id for n in found.notes} == {"partial-collectives", "different-steps"}
    steps = next(n for n in found.notes if n.id == "different-steps")
    assert steps.evidence[0].note == "rank 0: 2-5; rank 1: 2-5; rank 2: 2-5; rank 3: 3-5"
    assert all(c.shift_ns == 0 for c in found.clock.ranks.values())


def test_another_hosts_clock_is_estimated_and_shifted(tmp_path: Path) -> None:
    # Rank 1's trace as if made on a host whose clock runs 5 ms ahead: its shift is
    # measured from the all-reduces' ends and taken off; the straggler stays.
    for rank in range(4):
        trace = _trace(rank)
        if rank == 1:
            for event in trace["traceEvents"]:
                if isinstance(event.get("ts"), (int, float)):
                    event["ts"] += 5000.0
        _write(tmp_path, rank, trace)
    found = analyse_run([tmp_path], workers=0)
    clock = found.clock.ranks[1]
    assert clock.how == "shifted" and abs(clock.shift_ns - 5_000_000) < 100_000
    assert clock.residual_ns is not None and clock.residual_ns < 100_000
    assert found.clock.offsets_ns[1] == -clock.shift_ns
    assert "shifted from the collectives' ends: rank 1 by" in found.clock.note
    assert found.straggler is not None and found.straggler.rank == 2
    assert 0.8 * SLEEP_NS <= found.straggler.late_ns_per_step <= 1.2 * SLEEP_NS


def test_ranks_of_different_runs_are_refused(tmp_path: Path) -> None:
    for name in ("rank1.pt.trace.json.xz", "rank2.pt.trace.json.xz"):
        shutil.copy(KINETO_RANKS / name, tmp_path / name)
    shutil.copy(SAMPLES / "kineto" / "other_run" / "rank0.pt.trace.json.xz",
                tmp_path / "rank0.pt.trace.json.xz")
    out = run_cli("export", str(tmp_path), "--format", "json")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().endswith("they are ranks of different runs.")
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_folder_with_logs_beside_the_traces_is_still_a_run(tmp_path: Path) -> None:
    for rank in range(4):
        name = f"rank{rank}.pt.trace.json.xz"
        shutil.copy(KINETO_RANKS / name, tmp_path / name)
        (tmp_path / f"rank{rank}.log").write_text("step 0 loss 2.3\n")
    found = analyse_run([tmp_path], workers=0)
    assert found.straggler is not None and found.straggler.rank == 2
    assert not found.notes  # logs are not reports: nothing is said to be left out


ALLREDUCE = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
ALLGATHER = "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
AS_NCCL = {  # a kernel that runs once a step -> (NCCL kernel, record_param_comms args)
    "void cutlass::Kernel2<cutlass_80_simt_sgemm": (ALLREDUCE, {
        "Collective name": "allreduce", "Process Group Name": "0", "dtype": "Float",
        "In msg nelems": 1024, "Out msg nelems": 1024}),
    "void at::native::vectorized_elementwise_kernel<8, at::native::AUnaryFunctor": (ALLGATHER, {
        "Collective name": "_allgather_base", "Process Group Name": "0", "dtype": "BFloat16",
        "In msg nelems": 256, "Out msg nelems": 1024}),
}


def _as_nccl(traces: dict[int, dict[str, Any]], *, seq: bool = False) -> None:
    """Each once-a-step kernel renamed to an NCCL collective carrying the metadata Kineto
    copies from ``record_param_comms`` (with newer PyTorch's ``Seq`` when ``seq``), ending
    when the last rank's ends (as a collective does)."""
    for prefix, (name, args) in AS_NCCL.items():
        per_rank = {r: [e for e in t["traceEvents"] if e.get("cat") == "kernel"
                        and e["name"].startswith(prefix)] for r, t in traces.items()}
        for i in range(4):
            end = max(k[i]["ts"] + k[i]["dur"] for k in per_rank.values())
            for kernels in per_rank.values():
                kernels[i].update(name=name, dur=end - kernels[i]["ts"])
                kernels[i]["args"].update(args, **({"Seq": i} if seq else {}))


def test_nccl_collectives_pair_by_their_recorded_identity(tmp_path: Path) -> None:
    # Rank 3's capture as if it began after step 0's all-reduce: by position its first
    # all-reduce would pair with the others' first; by identity and time, with its own.
    traces = {rank: _trace(rank) for rank in range(4)}
    _as_nccl(traces)
    first = next(e for e in traces[3]["traceEvents"] if e.get("name") == ALLREDUCE)
    traces[3]["traceEvents"].remove(first)
    for rank, trace in traces.items():
        _write(tmp_path, rank, trace)
    found = analyse_run([tmp_path], workers=0)
    assert found.comm_source == "nccl"
    keys = found.collectives.group_by("key", "match").len().sort("match")
    assert sorted(set(keys["key"].to_list())) == ["_allgather_base pg 0 256→1024 BFloat16",
                                                  "allreduce pg 0 1024→1024 Float"]
    counts = keys.group_by("key").agg(pl.col("len").sort()).sort("key")["len"].to_list()
    assert counts == [[4, 4, 4, 4], [3, 4, 4, 4]]
    # the collectives end together on every rank: the clocks agree, nobody is shifted, and
    # nobody arrives later than the others were inside the collective
    assert all(c.shift_ns == 0 for c in found.clock.ranks.values())
    inside = found.collectives.with_columns((pl.col("exit") - pl.col("arrival")).alias("in"))
    longest = inside.group_by("match").agg(pl.col("in").max())
    late = inside.join(longest, on="match", suffix="_max")
    assert (late["late_ns"] <= late["in_max"]).all()


def test_a_truncated_rank_stops_the_run_with_one_sentence(tmp_path: Path) -> None:
    _write(tmp_path, 0, _trace(0))
    whole = json.dumps(_trace(1))
    (tmp_path / "rank1.pt.trace.json").write_text(whole[: len(whole) // 2])
    out = run_cli("export", str(tmp_path), "--format", "json")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().endswith("rank1.pt.trace.json is truncated or not valid JSON (its "
                                       "traceEvents array does not end).")


def test_recorded_sequence_numbers_pair_collectives_whatever_the_clocks(tmp_path: Path) -> None:
    # With PyTorch's Seq on every collective, rank 1's clock 50 ms ahead (longer than any
    # collective lasts, so no call overlaps its partner) still pairs every collective, and
    # the offset is measured on those pairs and taken off.
    traces = {rank: _trace(rank) for rank in range(4)}
    _as_nccl(traces, seq=True)
    for event in traces[1]["traceEvents"]:
        if isinstance(event.get("ts"), (int, float)):
            event["ts"] += 50_000.0
    first = next(e for e in traces[3]["traceEvents"] if e.get("name") == ALLREDUCE)
    traces[3]["traceEvents"].remove(first)
    for rank, trace in traces.items():
        _write(tmp_path, rank, trace)
    found = analyse_run([tmp_path], workers=0)
    assert found.extra["paired_by"] == "sequence number"
    counts = (found.collectives.group_by("key", "match").len().group_by("key")
              .agg(pl.col("len").sort()).sort("key")["len"].to_list())
    assert counts == [[4, 4, 4, 4], [3, 4, 4, 4]]
    clock = found.clock.ranks[1]
    assert clock.how == "shifted" and abs(clock.shift_ns - 50_000_000) < 100_000


UNEVEN = SAMPLES / "kineto" / "uneven"


def test_ranks_whose_captures_start_apart_are_paired_by_time_not_position() -> None:
    # samples/kineto/uneven: rank 1 starts its profiler after step 0's first all-reduce
    # (float32), so its first recorded collective is the float64 all-reduce, which rank 0
    # waited 5.89 s in for it. Nobody sleeps; one host, one clock.
    found = analyse_run([UNEVEN], workers=0)
    calls = {(r, op, seq): m for r, op, seq, m in found.collectives.select(
        "rank", "op", "seq", "match").iter_rows()}
    assert calls[(1, "gloo:all_reduce", 0)] == calls[(0, "gloo:all_reduce", 1)]
    assert (0, "gloo:all_reduce", 0) not in calls  # rank 1 did not record it
    assert found.collectives["match"].n_unique() == 11
    # clocks left as they are, no straggler named, and why
    assert all(c.shift_ns == 0 for c in found.clock.ranks.values())
    assert found.clock.ranks[1].how == "clocks agree"
    assert found.straggler is None and found.verdict.id == "captures-differ"
    assert {n.id for n in found.notes} == {"partial-collectives", "different-steps"}
    assert straggler_note(found.verdict).startswith(
        "no straggler named: the ranks' captures do not line up (11 collective(s) recorded on "
        "every rank, up to 12 on one; steps rank 0: 0-3; rank 1: 1-3)")


def test_the_markdown_s_gap_causes_are_in_pytorch_words(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    """A run of PyTorch traces is told how torch.profiler collects more, never an nsys
    option; a run of nsys traces keeps its options."""
    from kernelscope.tui.cli import main

    assert main(["export", str(KINETO_RANKS), "-f", "md"]) == 0
    legend = [line for line in capsys.readouterr().out.splitlines() if " Try: " in line]
    assert any("torch.profiler with\\_stack=True" in line for line in legend)
    assert not any("--trace=" in line for line in legend)


def _critical(run: RunAnalysis) -> tuple[list[dict[str, Any]], pl.DataFrame] | str:
    """The run's critical path (its steps and per-rank waits), or the sentence refusing it."""
    try:
        model = run_model(run)
    except ReportError as exc:
        return str(exc)
    return model.critical_path.steps.to_dicts(), model.waits()


def test_traces_kept_from_the_reading_give_what_reading_them_again_gives() -> None:
    kept = analyse_run([KINETO_RANKS], workers=0, keep_traces=True)
    again = analyse_run([KINETO_RANKS], workers=0)
    assert sorted(kept.extra[KEPT]) == sorted(s.file for s in kept.ranks.values())
    assert KEPT not in again.extra
    from_kept = _critical(kept)
    assert not isinstance(from_kept, str)
    steps, waits = from_kept
    read_again = _critical(again)
    assert not isinstance(read_again, str)
    assert (steps, waits.to_dicts()) == (read_again[0], read_again[1].to_dicts())
    assert len(steps) == 16
    straggler, other = kept.straggler, again.straggler
    assert straggler is not None and other is not None
    assert straggler.cpu_calls.equals(other.cpu_calls)
    assert kept.extra["compared_with"] == again.extra["compared_with"] is not None


def test_a_kept_rank_without_gpu_work_refuses_the_critical_path_as_a_read_one(
        tmp_path: Path) -> None:
    gpu = {"kernel", "gpu_memcpy", "gpu_memset"}
    for rank in range(4):
        trace = _trace(rank)
        if rank == 1:
            trace["traceEvents"] = [e for e in trace["traceEvents"] if e.get("cat") not in gpu]
        _write(tmp_path, rank, trace)
    refused = _critical(analyse_run([tmp_path], workers=0, keep_traces=True))
    assert isinstance(refused, str) and "rank1.pt.trace.json holds no GPU activity" in refused
    assert refused == _critical(analyse_run([tmp_path], workers=0))
