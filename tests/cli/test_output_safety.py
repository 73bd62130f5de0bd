"""``-o`` never destroys an input: every command that writes refuses an output that is one of
its inputs (the same path, a link to it, the same inode, a report of an input directory), and
writes through a temporary file renamed into place."""

from __future__ import annotations

import ast
import lzma
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernelscope.core.errors import ReportError
from kernelscope.export.writer import Rendered, write_text
from kernelscope.tui.cli import main
from tests.conftest import NCU_SAMPLES, SAMPLES

ZOO = NCU_SAMPLES / "zoo_a.ncu-rep.xz"
SMALL = NCU_SAMPLES / "small_family.ncu-rep.xz"
PLAIN = SAMPLES / "nsys" / "timeline_plain.sqlite.xz"
JOIN_TRACE = SAMPLES / "nsys" / "join_trace.sqlite.xz"
JOIN_KERNELS = NCU_SAMPLES / "join_kernels.ncu-rep.xz"
RANKS = SAMPLES / "nsys" / "ranks"


def copied(source: Path, target: Path) -> Path:
    shutil.copyfile(source, target)
    return target


def refused(capsys, argv: list[str], victim: Path, shown: str) -> None:
    """``argv`` exits 2 with the one sentence naming ``shown``, and ``victim`` is unchanged."""
    before = victim.read_bytes()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == (
        f"kernelscope: {shown} is an input of this command, so it is not written over; "
        "choose another output file.\n"
    )
    assert victim.read_bytes() == before


def test_export_onto_its_own_report_is_refused(tmp_path, capsys):
    copy = copied(ZOO, tmp_path / "copy.ncu-rep.xz")
    refused(capsys, ["export", str(copy), "-f", "md", "-o", str(copy)], copy, str(copy))


def test_export_of_a_sqlite_onto_itself_is_refused(tmp_path, capsys):
    t = tmp_path / "t.sqlite"
    t.write_bytes(lzma.decompress(PLAIN.read_bytes()))
    refused(capsys, ["export", str(t), "-f", "csv", "-o", str(t)], t, str(t))


def test_the_same_file_by_another_spelling_is_refused(tmp_path, capsys, monkeypatch):
    copy = copied(ZOO, tmp_path / "copy.ncu-rep.xz")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    refused(capsys, ["export", "../copy.ncu-rep.xz", "-f", "md", "-o", str(copy)], copy,
            str(copy))


def test_a_link_or_a_hard_link_to_the_report_is_refused(tmp_path, capsys):
    copy = copied(ZOO, tmp_path / "copy.ncu-rep.xz")
    soft = tmp_path / "soft.md"
    soft.symlink_to(copy)
    refused(capsys, ["export", str(copy), "-f", "md", "-o", str(soft)], copy, str(soft))
    hard = tmp_path / "hard.md"
    os.link(copy, hard)
    refused(capsys, ["export", str(copy), "-f", "json", "-o", str(hard)], copy, str(hard))
    assert soft.is_symlink() and hard.stat().st_ino == copy.stat().st_ino


def test_diff_onto_either_input_is_refused(tmp_path, capsys):
    a = copied(ZOO, tmp_path / "a.ncu-rep.xz")
    b = copied(SMALL, tmp_path / "b.ncu-rep.xz")
    refused(capsys, ["diff", str(a), str(b), "-f", "md", "-o", str(a)], a, str(a))
    refused(capsys, ["export", "diff", str(a), str(b), "-f", "csv", "-o", str(b)], b, str(b))


def test_join_onto_any_input_is_refused(tmp_path, capsys):
    trace = copied(JOIN_TRACE, tmp_path / "trace.sqlite.xz")
    kernels = copied(JOIN_KERNELS, tmp_path / "kernels.ncu-rep.xz")
    refused(capsys, ["join", str(trace), str(kernels), "-f", "md", "-o", str(kernels)],
            kernels, str(kernels))
    refused(capsys, ["export", "join", str(trace), str(kernels), "-f", "json", "-o",
                     str(trace)], trace, str(trace))


def test_ranks_export_onto_a_trace_of_its_directory_is_refused(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    for name in ("rank0.sqlite.xz", "rank1.sqlite.xz"):
        copied(RANKS / name, run / name)
    victim = run / "rank1.sqlite.xz"
    refused(capsys, ["export", str(run), "-f", "md", "-o", str(victim)], victim, str(victim))
    refused(capsys, ["ranks", str(victim), "-f", "json", "-o", str(victim)], victim,
            str(victim))


def test_appending_stdout_to_the_report_is_refused(tmp_path):
    copy = copied(ZOO, tmp_path / "copy.ncu-rep.xz")
    before = copy.read_bytes()
    for command in (["export", str(copy), "-f", "md"], ["summary", str(copy)]):
        with open(copy, "ab") as out:
            done = subprocess.run([sys.executable, "-m", "kernelscope", *command], stdout=out,
                                  stderr=subprocess.PIPE, text=True, timeout=120)
        assert done.returncode == 2
        assert done.stderr == (
            f"kernelscope: Standard output is the input {copy}, so nothing is written to it; "
            "write to another file.\n"
        )
        assert copy.read_bytes() == before


def test_an_export_that_fails_midway_leaves_the_old_file_and_no_other(tmp_path):
    target = tmp_path / "out.md"
    target.write_text("the previous export\n")

    def pieces():
        yield "# half of a document\n"
        raise ReportError("The report ended early.")

    with pytest.raises(ReportError, match="ended early"):
        write_text(Rendered("", pieces=pieces()), target, inputs=[ZOO])
    assert target.read_text() == "the previous export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.md"]
    with pytest.raises(ReportError):
        write_text(Rendered("", pieces=pieces()), tmp_path / "new.md", inputs=[ZOO])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.md"]


def test_a_replaced_output_keeps_its_permissions_and_a_link_is_written_through(tmp_path):
    real = tmp_path / "real.md"
    real.write_text("old\n")
    real.chmod(0o640)
    link = tmp_path / "link.md"
    link.symlink_to(real)
    write_text("new\n", link, inputs=[ZOO])
    assert link.is_symlink() and real.read_text() == "new\n"
    assert oct(real.stat().st_mode & 0o777) == "0o640"


def test_an_output_to_a_device_is_written_into(capsys):
    assert main(["export", str(SMALL), "-f", "csv", "-o", os.devnull]) == 0
    assert Path(os.devnull).is_char_device()



def _writes_a_file(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in ("write_text", "write_bytes"):
        return True
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    if name != "open":
        return False
    if isinstance(func, ast.Attribute) and getattr(func.value, "id", "") == "os":
        return True  # os.open
    modes = list(call.args[1:2]) + [k.value for k in call.keywords if k.arg == "mode"]
    texts = [m.value for m in modes if isinstance(m, ast.Constant) and isinstance(m.value, str)]
    return any(set(text) & set("wax+") for text in texts)


def test_only_the_one_export_path_writes_files():
    """A command that writes an output goes through ``export/writer.py:write_text`` (and so
    through its check against the inputs): nothing else above the readers opens a file for
    writing. The readers (the model, its analyses, the shared core) and the MCP server (which
    never writes) are the only other places."""
    package = Path(__file__).resolve().parents[2] / "kernelscope"
    below = {"core", "model", "analysis", "mcp", "data"}
    found = []
    for path in sorted(package.rglob("*.py")):
        folders = set(path.relative_to(package).parent.parts)
        if path == package / "export" / "writer.py" or folders & below:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(package)}:{node.lineno}" for node in ast.walk(tree)
                  if isinstance(node, ast.Call) and _writes_a_file(node)]
    assert found == []
