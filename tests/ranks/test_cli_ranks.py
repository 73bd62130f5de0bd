"""``kernelscope export DIR`` / ``summary DIR`` and several traces, headless: the JSON
contract, Markdown and CSV, the executors (worker processes, a Dask cluster), bad input."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

import pytest

from kernelscope.core import executor
from kernelscope.tui.cli import main
from tests.conftest import SAMPLES
from tests.ranks.conftest import RANKS

RANK_KEYS = {"file", "rank", "steps", "step_time_ns", "gpu_busy_pct", "comm_ns"}
STRAGGLER_KEYS = {"file", "rank", "late_ns_per_step"}


def export(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main(["export", *args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def test_json_contract(rank_dir: Path, cache_dir: Path, capsys, run):
    doc = json.loads(export(capsys, str(rank_dir), "--format", "json", "--workers", "0",
                            "--cache-dir", str(cache_dir)))
    assert doc["schema"] == "kernelscope/ranks/2"
    assert doc["run"]["trace_kind"] == "nsys" and doc["run"]["verdict"] == "straggler"
    # one host: the clocks are left as recorded, and what the collectives say is reported
    clock = doc["run"]["clock"]
    assert {c["how"] for c in clock["ranks"].values()} == {"reference", "shared clock"}
    assert all(c["shift_ns"] == 0 for c in clock["ranks"].values())
    assert len(doc["collectives"]) == 8 and {c["last_rank"] for c in doc["collectives"]} == {0, 2}
    assert [r["rank"] for r in doc["ranks"]] == [0, 1, 2, 3]
    for r in doc["ranks"]:
        assert r.keys() >= RANK_KEYS
        assert r["steps"] == 8
        assert r["file"].endswith(f"rank{r['rank']}.sqlite")
    assert doc["straggler"].keys() >= STRAGGLER_KEYS
    assert doc["straggler"]["rank"] == 2
    assert doc["straggler"]["late_ns_per_step"] == pytest.approx(run.straggler.late_ns_per_step)
    assert doc["families"] and {"name", "min_ns", "med_ns", "max_ns", "per_rank"} <= \
        doc["families"][0].keys()
    assert len(doc["families"][0]["per_rank"]) == 4
    assert sorted(doc["heatmap"]["ranks"]) == ["0", "1", "2", "3"]
    json.dumps(doc, allow_nan=False)


def test_markdown_and_csv(rank_dir: Path, cache_dir: Path, capsys):
    md = export(capsys, str(rank_dir), "-f", "md", "--workers", "0", "--cache-dir",
                str(cache_dir))
    assert md.startswith("# Ranks report: 4 ranks")
    assert "## Straggler: rank 2" in md
    assert "| osrt | clock_nanosleep | 7 |" in md
    assert "rank 2 *|" in md
    # Two reduce families read alike by their compact names; the run's ShortNames tells them
    # apart, as the ranks screen does.
    assert "| reduce<…, BFloat16, …> | 4 | 4 |" in md and "| reduce<…, float, …> | 4 | 4 |" in md
    table = list(csv.DictReader(io.StringIO(export(
        capsys, str(rank_dir), "-f", "csv", "--workers", "0", "--cache-dir", str(cache_dir)))))
    assert [row["rank"] for row in table] == ["0", "1", "2", "3"]
    assert table[2]["last_count"] == "7"


def test_several_files_make_a_run_and_one_stays_a_report(rank_dir: Path, cache_dir: Path,
                                                         capsys):
    two = [str(rank_dir / "rank1.sqlite"), str(rank_dir / "rank2.sqlite")]
    doc = json.loads(export(capsys, *two, "--workers", "0", "--cache-dir", str(cache_dir)))
    assert [r["rank"] for r in doc["ranks"]] == [1, 2]
    single = json.loads(export(capsys, two[0], "--cache-dir", str(cache_dir)))
    assert single["schema"] == "kernelscope/nsys/1"


def test_the_sample_directory_reads_the_exports_not_the_nsys_reps(cache_dir: Path, capsys):
    # samples/nsys/ranks holds rankN.nsys-rep.xz and rankN.sqlite.xz: no nsys needed.
    doc = json.loads(export(capsys, str(RANKS), "--workers", "0", "--cache-dir",
                            str(cache_dir)))
    assert [Path(t).name for t in doc["run"]["traces"]] == [
        f"rank{r}.sqlite.xz" for r in range(4)]
    assert doc["straggler"]["rank"] == 2


def test_summary(rank_dir: Path, cache_dir: Path, capsys):
    assert main(["summary", str(rank_dir), "--workers", "0", "--cache-dir",
                 str(cache_dir)]) == 0
    out = capsys.readouterr().out
    assert "4 ranks from 4 traces" in out
    assert "Straggler: rank 2 arrives last at 7 of 8 collectives" in out
    assert "clock_nanosleep" in out


def test_worker_processes_give_the_same_document(rank_dir: Path, cache_dir: Path, capsys):
    base = ["--format", "json", "--cache-dir", str(cache_dir)]
    inline = json.loads(export(capsys, str(rank_dir), *base, "--workers", "0"))
    pooled = json.loads(export(capsys, str(rank_dir), *base, "--workers", "2"))
    assert pooled["run"].pop("executor") == "2 worker processes"
    assert inline["run"].pop("executor") == "in process"
    assert pooled == inline


@pytest.mark.parametrize("folder", ["nsys", "kineto"])
def test_threads_in_process_give_the_same_document(folder: str, rank_dir: Path, cache_dir: Path,
                                                   capsys, monkeypatch):
    path = rank_dir if folder == "nsys" else SAMPLES / "kineto" / "ranks"
    args = [str(path), "--format", "json", "--cache-dir", str(cache_dir), "--workers", "0"]
    threaded = export(capsys, *args)  # four traces at once, and two ranks' graphs
    monkeypatch.setattr(executor, "IN_PROCESS_THREADS", 1)
    assert export(capsys, *args) == threaded


def test_a_dask_cluster_gives_the_same_document(rank_dir: Path, cache_dir: Path, capsys):
    distributed = pytest.importorskip("distributed")
    base = ["--format", "json", "--cache-dir", str(cache_dir)]
    inline = json.loads(export(capsys, str(rank_dir), *base, "--workers", "0"))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        on_dask = json.loads(export(capsys, str(rank_dir), *base, "--scheduler",
                                    cluster.scheduler_address))
    assert on_dask["run"].pop("executor").startswith("Dask scheduler tcp://")
    inline["run"].pop("executor")
    assert on_dask == inline


def _fails(capsys, *args: str) -> str:
    assert main(list(args)) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip()
    assert err.startswith("kernelscope: ") and "\n" not in err and "Traceback" not in err
    return err


def test_bad_input_gets_one_sentence_and_exit_2(tmp_path: Path, rank_dir: Path, cache_dir,
                                                capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "holds no Nsight Systems or PyTorch profiler traces" in _fails(
        capsys, "export", str(empty))
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "rank0.sqlite").write_bytes(random.Random(4096).randbytes(4096))
    (bad / "rank1.sqlite").write_bytes((rank_dir / "rank1.sqlite").read_bytes())
    before = sorted(p.name for p in bad.iterdir())
    assert "rank0.sqlite" in _fails(capsys, "export", str(bad), "--workers", "0",
                                    "--cache-dir", str(cache_dir))
    assert "rank0.sqlite" in _fails(capsys, "export", str(bad), "--workers", "2",
                                    "--cache-dir", str(cache_dir))
    assert sorted(p.name for p in bad.iterdir()) == before  # nothing written beside them
    assert "no such file" in _fails(capsys, "export", str(rank_dir), str(tmp_path / "nope"))
    assert "is not a Dask scheduler address" in _fails(capsys, "export", str(rank_dir),
                                                       "--scheduler", "nonsense://x:1")
