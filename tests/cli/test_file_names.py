"""Any file name the file system allows: a report whose name is not UTF-8 is read and
exported (its undecodable bytes escaped), and an export of a report whose name is near the
file system's limit gets a name that fits."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

from kernelscope.tui.app import create_app
from kernelscope.tui.cli import main
from kernelscope.ui.session import NAME_MAX, ExportJob, fit_name
from tests.conftest import NCU_SAMPLES, SAMPLES
from tests.tui.helpers import settle

TIMELINE = SAMPLES / "nsys" / "zoo.sqlite.xz"
KINETO = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"


def _copy(source: Path, folder: Path, name: bytes) -> Path:
    target = os.path.join(os.fsencode(folder), name)
    with open(target, "wb") as out:
        out.write(source.read_bytes())
    return Path(os.fsdecode(target))


def _export(path: Path, out: Path, fmt: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "kernelscope", "export", "--format", fmt,
                           "-o", str(out), os.fsencode(path)], capture_output=True,
                          timeout=300)


def _export_in_process(path: Path, out: Path, fmt: str) -> tuple[int, str]:
    """``kernelscope export`` run in this process on ``path`` as the program gets it from its
    command line (the bytes decoded with surrogate escapes); the exit code and standard
    error."""
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["export", "--format", fmt, "-o", str(out), os.fsdecode(path)])
    return code, err.getvalue()


def test_a_report_named_in_latin_1_is_exported(tmp_path: Path) -> None:
    """A program of its own given the name's bytes on its command line; then each kind and
    format in this process, given the name as the program decodes it."""
    kernels = _copy(NCU_SAMPLES / "zoo_a.ncu-rep.xz", tmp_path, b"caf\xe9.ncu-rep.xz")
    done = _export(kernels, tmp_path / "program.md", "md")
    assert done.returncode == 0, done.stderr.decode()
    assert "caf\\xe9" in (tmp_path / "program.md").read_text(encoding="utf-8")
    for source, name in ((TIMELINE, b"caf\xe9.sqlite.xz"), (KINETO, b"caf\xe9.pt.trace.json.xz"),
                         (NCU_SAMPLES / "zoo_a.ncu-rep.xz", b"caf\xe9.ncu-rep.xz")):
        path = _copy(source, tmp_path, name)
        for fmt in ("md", "json", "csv"):
            code, err = _export_in_process(path, tmp_path / f"out.{fmt}", fmt)
            assert code == 0, err
        assert "caf\\xe9" in (tmp_path / "out.md").read_text(encoding="utf-8")


def test_a_name_too_long_to_extend_is_shortened_in_the_middle() -> None:
    name = "z" * 250 + ".kernelscope.md"
    fitted = fit_name(name)
    assert len(os.fsencode(fitted)) <= NAME_MAX and fitted.endswith("zz.kernelscope.md")
    assert "…" in fitted and fitted.startswith("zzzz")
    assert fit_name("run.kernelscope.md") == "run.kernelscope.md"
    assert ExportJob("report", Path("/tmp") / name).target.name == fitted


async def test_e_writes_the_export_of_a_report_with_a_long_name(tmp_path: Path,
                                                                 monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    path = _copy(NCU_SAMPLES / "zoo_a.ncu-rep.xz", tmp_path, b"z" * 244 + b".ncu-rep.xz")
    app = create_app(path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
    written = [p.name for p in tmp_path.iterdir() if p.suffix == ".md"]
    assert len(written) == 1 and written[0] == fit_name(path.name[:-11] + ".kernelscope.md")
    assert "…" in written[0] and written[0].endswith("zz.kernelscope.md")
