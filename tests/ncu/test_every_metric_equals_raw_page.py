"""Every metric of every kernel report we have (samples/ and ../shared/wild) equals NCU's
raw page (``ncu --import R --page raw --csv --print-units base``) in value and unit, read
by kernelscope's own reader in a process of its own that never imports ncu_report: one
process answers the samples and the third-party reports in turn (``raw_page_check.py``), and
each large benchmark report gets a fresh one, whose memory goes when it ends."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import NCU_ORACLE, ROOT, ncu_sample_paths
from tests.ncu.oracle import stem_of
from tests.wild.conftest import WILD, require_wild

WILD_PAGE = ".raw_base.csv.xz"
TIMEOUT_S = 600


class Checker:
    """A ``python -m tests.ncu.raw_page_check`` process, started at the first question and
    asked one report at a time; after one that failed, the next question starts another."""

    def __init__(self, errors: Path) -> None:
        self.errors = errors
        """Where the process writes its standard error (shown when it fails)."""
        self.process: subprocess.Popen[str] | None = None

    def check(self, report: Path, page: Path) -> dict[str, object]:
        if self.process is None:
            with open(self.errors, "w") as errors:
                self.process = subprocess.Popen(
                    [sys.executable, "-m", "tests.ncu.raw_page_check"], stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=errors, text=True, cwd=ROOT)
        process = self.process
        assert process.stdin is not None and process.stdout is not None
        watchdog = threading.Timer(TIMEOUT_S, process.kill)
        watchdog.start()
        try:
            process.stdin.write(f"{report}\t{page}\n")
            process.stdin.flush()
            answer = process.stdout.readline()
        except BrokenPipeError:
            answer = ""
        finally:
            watchdog.cancel()
        if not answer:
            self.close()
            pytest.fail(f"the checker ended without an answer: {self.errors.read_text()[-2000:]}")
        found: dict[str, object] = json.loads(answer)
        return found

    def close(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def checker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Checker]:
    shared = Checker(tmp_path_factory.mktemp("raw_page") / "stderr.txt")
    yield shared
    shared.close()


def _assert_equal(found: dict[str, object]) -> None:
    assert found["binding_loaded"] is False
    assert isinstance(found["checked"], int) and found["checked"] > 100
    assert found["wrong_count"] == 0, "\n".join(map(str, found["wrong"]))  # type: ignore[call-overload]


BIG = ROOT / "samples" / "big"


@pytest.mark.parametrize("path", ncu_sample_paths(), ids=stem_of)
def test_every_metric_of_our_samples(checker: Checker, path: Path) -> None:
    _assert_equal(checker.check(path, NCU_ORACLE / f"{stem_of(path)}.raw.csv.xz"))


@pytest.mark.parametrize("path", sorted(BIG.glob("*.ncu-rep.xz")), ids=stem_of)
def test_every_metric_of_the_benchmark_reports(tmp_path: Path, path: Path) -> None:
    """The large reports: 264 --set full launches, 828 and 8,676 many-launch ones, 1,300
    launches of a PyTorch training loop."""
    alone = Checker(tmp_path / "stderr.txt")
    try:
        _assert_equal(alone.check(path, BIG / f"{stem_of(path)}.raw.csv.xz"))
    finally:
        alone.close()


def _wild_reports() -> list[str]:
    if WILD is None:
        return ["<no ../shared/wild>"]
    folder = WILD / "oracle" / "ncu"
    pages = {p.name.removesuffix(WILD_PAGE) for p in folder.glob(f"*{WILD_PAGE}")}
    reports = (WILD / "ncu").glob("*.xz")
    return sorted(p.name for p in reports if p.name.removesuffix(".xz") in pages)


@pytest.mark.parametrize("name", _wild_reports())
def test_every_metric_of_the_third_party_reports(checker: Checker, name: str) -> None:
    root = require_wild()
    page = root / "oracle" / "ncu" / f"{name.removesuffix('.xz')}{WILD_PAGE}"
    _assert_equal(checker.check(root / "ncu" / name, page))
