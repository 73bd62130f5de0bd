"""The command line: version, export contract, and one sentence + exit 2 for bad input."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from kernelscope.tui.cli import main
from tests.conftest import NCU_SAMPLES, SAMPLES, ncu_sample_paths
from tests.ncu.oracle import load_raw, matches_print, stem_of

ZOO = NCU_SAMPLES / "zoo_a.ncu-rep.xz"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kernelscope", *args], capture_output=True, text=True, timeout=120
    )


def test_version():
    out = run_cli("--version")
    assert out.returncode == 0
    assert out.stdout.startswith("kernelscope ")


def test_export_json_contract(capsys):
    path = ncu_sample_paths()[0]
    assert main(["export", str(path), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "kernelscope/ncu/1"
    assert doc["report"]["path"] == str(path)
    assert doc["report"]["device"]["name"]
    raw = load_raw(stem_of(path))
    assert [k["id"] for k in doc["kernels"]] == sorted(raw.rows)
    for k in doc["kernels"]:
        row = raw.rows[k["id"]]
        assert k["name"] in row["Kernel Name"]
        assert len(k["grid"]) == 3 and len(k["block"]) == 3
        assert matches_print(k["duration_ns"], row["gpu__time_duration.sum"])
        for name, m in k["metrics"].items():
            if name in row and not isinstance(m["value"], str) and m["value"] is not None:
                assert matches_print(float(m["value"]), row[name]), name
            assert set(m) == {"value", "unit"}


def test_export_filter_and_output_file(tmp_path):
    out = tmp_path / "k.json"
    assert main(["export", str(ZOO), "-k", "^transpose", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["kernels"] and all(k["name"].startswith("transpose") for k in doc["kernels"])


def test_export_all_metrics_has_more_metrics(capsys):
    assert main(["export", str(ZOO), "-k", "saxpy", "--all-metrics"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["kernels"][0]["metrics"]) > 1000


def _bad_inputs(tmp_path: Path) -> dict[str, Path]:
    empty = tmp_path / "empty.ncu-rep"
    empty.write_bytes(b"")
    rand = tmp_path / "random.ncu-rep"
    rand.write_bytes(random.Random(4096).randbytes(4096))
    trunc = tmp_path / "truncated.ncu-rep"
    import lzma

    trunc.write_bytes(lzma.decompress(ZOO.read_bytes())[:50_000])
    unreadable = tmp_path / "locked.ncu-rep"
    unreadable.write_bytes(b"NVR\x00")
    unreadable.chmod(0)
    return {
        "missing": tmp_path / "nope.ncu-rep",
        "directory": tmp_path,
        "empty": empty,
        "random": rand,
        "truncated": trunc,
        "unreadable": unreadable,
    }


@pytest.mark.parametrize(
    "case", ["missing", "directory", "empty", "random", "truncated", "unreadable"]
)
def test_bad_input_is_one_sentence_and_exit_2(tmp_path, case):
    path = _bad_inputs(tmp_path)[case]
    before = path.stat().st_mtime_ns if path.is_file() else None
    out = run_cli("export", str(path))
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kernelscope: ")
    assert "Traceback" not in out.stderr
    if before is not None:
        assert path.stat().st_mtime_ns == before


def test_unreadable_file_is_one_sentence(tmp_path, monkeypatch, capsys):
    # Root reads any file, so make the permission check fail the way it does for a user.
    import kernelscope.core.detect as detect

    path = _bad_inputs(tmp_path)["unreadable"]
    monkeypatch.setattr(detect.os, "access", lambda *_: False)
    assert main(["export", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"kernelscope: {path} cannot be read (permission denied)."


def test_bad_regex_is_one_sentence():
    out = run_cli("export", str(ZOO), "-k", "(")
    assert out.returncode == 2
    assert "regular expression" in out.stderr


def test_compressed_report_leaves_no_temp_file(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    assert main(["export", str(ZOO), "-k", "saxpy", "-o", str(tmp_path / "o.json")]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.json"]


def test_samples_folder_is_there():
    assert (SAMPLES / "README.md").exists() or NCU_SAMPLES.exists()


def test_bundled_default_report_opens_and_is_a_committed_sample():
    from kernelscope.kinds.ncu.model import open_ncu_report
    from kernelscope.tui.app import default_report_path

    bundled = default_report_path()
    assert bundled.read_bytes() == (NCU_SAMPLES / "zoo.ncu-rep.xz").read_bytes()
    with open_ncu_report(bundled) as report:
        assert report.kernel_count == 12
        assert report.device.name == "NVIDIA H200"


def test_tui_exits_2_with_the_sentence_after_an_error_screen(tmp_path, monkeypatch, capsys):
    from kernelscope.tui import app as app_module
    from kernelscope.tui import cli

    def run(self):  # what a user sees: the error screen, then q
        self.fatal_error = "x.ncu-rep is damaged: a block header of impossible length at byte 10."

    monkeypatch.setattr(app_module.KernelscopeApp, "run", run)
    monkeypatch.setattr(cli, "_on_a_terminal", lambda: True)  # pytest captures stdout
    report = tmp_path / "x.ncu-rep"
    report.write_bytes(b"NVR\x00")
    assert main([str(report)]) == 2
    assert capsys.readouterr().err == (
        "kernelscope: x.ncu-rep is damaged: a block header of impossible length at byte 10.\n"
    )


def test_export_of_no_matching_kernel_says_so_and_exits_2():
    out = run_cli("export", str(ZOO), "-k", "NOMATCH")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == (
        "kernelscope: No kernel of zoo_a.ncu-rep.xz matches 'NOMATCH', so there is nothing to "
        "export.\n"
    )


def test_csv_all_metrics_has_a_column_per_metric(capsys):
    assert main(["export", str(ZOO), "-k", "saxpy", "-f", "csv", "--all-metrics"]) == 0
    import csv
    import io

    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows and len(rows[0]) > 1000
    raw = load_raw(stem_of(ZOO))
    row = raw.rows[int(rows[0]["id"])]
    compared = 0
    for name, text in rows[0].items():
        if name in row and text and row[name] and "__" in name:
            try:
                value = float(text)
            except ValueError:
                continue
            assert matches_print(value, row[name]), name
            compared += 1
    assert compared > 100
