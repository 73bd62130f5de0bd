"""Fixtures for the timeline screen tests: the committed zoo trace, its model (for expected
values), a fake ``nsys`` that "exports" a committed ``.sqlite``, and stable rendering.

A committed SQLite sample is read once per session: the app's opener (Nsight Systems' own
``open_report``) is wrapped so a second screen over the same sample takes the model the first
read (a ``TimelineReport`` is not changed by its readers). Other paths (variants written to a
temporary folder, ``.nsys-rep`` files, damaged files) go to the opener every time:
test_opening.py checks the opening itself, its progress, cancel and errors."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import textual.constants

from kernelscope.core.hooks import CancelHook, ProgressHook
from kernelscope.kinds.nsys.model.opener import open_report
from kernelscope.kinds.nsys.screens.nsys_session import NsysSession
from kernelscope.timeline.analysis.timeline_data import TimelineData, build
from kernelscope.timeline.model.model import TimelineReport

# No animations (tab underline, progress bar): faster tests and stable snapshots.
textual.constants.TEXTUAL_ANIMATIONS = "none"  # type: ignore[misc]

REPO = Path(__file__).resolve().parents[2]
NSYS_SAMPLES = REPO / "samples" / "nsys"
ORACLE = NSYS_SAMPLES / "oracle"
ZOO_SQLITE_XZ = NSYS_SAMPLES / "zoo.sqlite.xz"
ZOO_REP_XZ = NSYS_SAMPLES / "zoo.nsys-rep.xz"

FAKE_NSYS = """#!{python}
# A stand-in for `nsys export`: copies the committed samples/nsys/NAME.sqlite.xz (matching
# the report's name) to the requested output. FAKE_NSYS_MODE=fail|slow for the bad cases.
import lzma, os, re, shutil, sys, time
args = sys.argv[1:]
if os.environ.get("FAKE_NSYS_PIDFILE"):
    with open(os.environ["FAKE_NSYS_PIDFILE"], "w") as fh:
        fh.write(str(os.getpid()))
mode = os.environ.get("FAKE_NSYS_MODE", "ok")
if mode == "fail":
    sys.stderr.write("Error: the report is damaged beyond repair\\n")
    sys.exit(3)
if mode == "slow":
    time.sleep(120)
out = args[args.index("--output") + 1]
name = re.sub(r"^\\.tmp-\\d+-[0-9a-f]+-", "", os.path.basename(args[-1]))
source = os.path.join({samples!r}, name.split(".")[0] + ".sqlite.xz")
with lzma.open(source) as fin, open(out, "wb") as fout:
    shutil.copyfileobj(fin, fout)
"""


_READ: dict[Path, TimelineReport] = {}


def read_sample(path: Path, *, cache_dir: Path | None = None,
                progress: ProgressHook | None = None,
                cancel: CancelHook | None = None) -> TimelineReport:
    """``open_report(path)``, once per session for a committed SQLite sample."""
    resolved = Path(path).resolve()
    if resolved.parent != NSYS_SAMPLES or not resolved.name.endswith(".sqlite.xz"):
        return open_report(path, cache_dir=cache_dir, progress=progress, cancel=cancel)
    if resolved not in _READ:
        _READ[resolved] = open_report(path, cache_dir=cache_dir, progress=progress,
                                      cancel=cancel)
    return _READ[resolved]


@pytest.fixture(autouse=True)
def samples_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(NsysSession, "opener", staticmethod(read_sample))


@pytest.fixture(scope="session")
def zoo_report(tmp_path_factory: pytest.TempPathFactory) -> TimelineReport:
    """The zoo trace opened by the model: the tests' source of expected values."""
    return read_sample(ZOO_SQLITE_XZ, cache_dir=tmp_path_factory.mktemp("model-cache"))


@pytest.fixture(scope="session")
def zoo_data(zoo_report: TimelineReport) -> TimelineData:
    return build(ZOO_SQLITE_XZ, zoo_report)


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    """Exports and scratch files go here, never to ~/.cache."""
    d = tmp_path / "cache"
    d.mkdir()
    return d


@pytest.fixture
def no_nsys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No nsys anywhere: not in $NSYS, not on PATH, not in the install directories."""
    from kernelscope.kinds.nsys.model import locate

    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.delenv("NSYS", raising=False)
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(locate, "_INSTALL_GLOBS", ())


@pytest.fixture
def fake_nsys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, no_nsys: None) -> Iterator[Path]:
    """``$NSYS`` points at a script that exports by copying the committed SQLite."""
    exe = tmp_path / "bin" / "nsys"
    exe.parent.mkdir()
    exe.write_text(FAKE_NSYS.format(python=sys.executable, samples=str(NSYS_SAMPLES)))
    exe.chmod(0o755)
    monkeypatch.setenv("NSYS", str(exe))
    monkeypatch.setenv("FAKE_NSYS_MODE", "ok")
    yield exe
