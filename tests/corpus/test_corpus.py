"""The corruption corpus (``generator.py``) through the real command line, one process per
input with limits: every input ends in exit 0 with sane output, or exit 2 with one sentence on
stderr (no traceback, no log line of ncu_report before it, no raw control character), within
a time and memory bound, with the input unchanged and nothing written beside it."""

from __future__ import annotations

import hashlib
import json
import os
import resource
import stat
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.corpus.conftest import TALLY
from tests.corpus.generator import Case, build

TIME_LIMIT_S = 90.0  # per input, on a busy 2-core CI machine (most take under 2 s)
RSS_LIMIT = 3 << 30  # peak resident memory of one run
ADDRESS_LIMIT = 16 << 30  # a runaway guard for the machine, far above any real run
FILE_LIMIT = 2 << 30  # no single file written may grow past this (temporary copies)
WORKERS = 2


@dataclass
class Outcome:
    case: Case
    code: int | None
    stdout: str
    stderr: str
    seconds: float
    rss: int
    problems: list[str]

    @property
    def kind(self) -> str:
        if self.problems:
            return "bad"
        return f"exit {self.code}"


def _fingerprint(path: Path) -> str | None:
    try:
        st = path.lstat()
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return f"{stat.S_IFMT(st.st_mode)}"
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(8 << 20), b""):
            digest.update(chunk)
    return f"{st.st_size}:{st.st_mtime_ns}:{digest.hexdigest()}"


def _listing(folder: Path) -> list[str]:
    return sorted(os.fsdecode(n) for n in os.listdir(os.fsencode(folder)))


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _check(case: Case, code: int | None, out: str, err: str) -> list[str]:
    problems = []
    if "Traceback" in out + err:
        problems.append("a traceback")
    if any(ch in err.rstrip("\n") for ch in "\x1b\x07\r"):
        problems.append("a raw control character on stderr")
    if code == 0:
        if not out.strip():
            problems.append("exit 0 with no output")
        if case.args[-1] == "json":
            try:
                json.loads(out)
            except ValueError:
                problems.append("exit 0 with output that is not JSON")
        if "nan" in out.lower().replace("nanosleep", "") and case.args[-1] != "json":
            problems.append("nan in the output")
    elif code == 2:
        lines = err.splitlines()
        if out:
            problems.append("exit 2 with output on stdout")
        if len(lines) != 1:
            problems.append(f"{len(lines)} lines on stderr")
        elif not (lines[0].startswith("kernelscope: ") and lines[0].endswith(".")):
            problems.append("stderr is not one sentence from kernelscope")
        elif "Unexpected error (" in lines[0]:
            problems.append("an unexpected error")
    else:
        problems.append(f"exit status {code}")
    return problems


def run_case(case: Case, env: dict[str, str]) -> Outcome:
    before = _fingerprint(case.path)
    listing = _listing(case.folder)
    log = case.folder.parent / f".{case.folder.name}.out"
    with open(log, "wb") as out_fh, open(log.with_suffix(".err"), "wb") as err_fh:
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "kernelscope", *case.args, os.fsencode(case.path)],
            stdin=subprocess.DEVNULL, stdout=out_fh, stderr=err_fh, env=env,
            preexec_fn=_limits,
        )
        timer = threading.Timer(TIME_LIMIT_S, proc.kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - started
    out = log.read_bytes().decode("utf-8", errors="replace")
    err = log.with_suffix(".err").read_bytes().decode("utf-8", errors="replace")
    log.unlink()
    log.with_suffix(".err").unlink()
    rss = usage.ru_maxrss * 1024
    problems = _check(case, proc.returncode, out, err)
    if seconds >= TIME_LIMIT_S:
        problems.append(f"no answer within {TIME_LIMIT_S:.0f} s")
    if rss > RSS_LIMIT:
        problems.append(f"peak memory {rss >> 20} MiB")
    if _fingerprint(case.path) != before:
        problems.append("the input changed")
    if _listing(case.folder) != listing:
        problems.append("something was written beside the input")
    return Outcome(case, proc.returncode, out, err, seconds, rss, problems)


@pytest.fixture(scope="session")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    root = tmp_path_factory.mktemp("corpus")
    cases = build(root / "inputs")
    temp = root / "tmp"
    temp.mkdir()
    env = dict(os.environ)
    env.update({"XDG_CACHE_HOME": str(root / "cache"), "TMPDIR": str(temp), "NO_COLOR": "1"})
    env.pop("KERNELSCOPE_DEBUG", None)
    with ThreadPoolExecutor(WORKERS) as pool:
        done = list(pool.map(lambda c: run_case(c, env), cases))
    leftovers = sorted(p.name for p in temp.iterdir())
    _tally(done, leftovers)
    done_ok = [o for o in done]
    if leftovers:
        done_ok[0].problems.append(f"temporary files left behind: {leftovers[:5]}")
    return done_ok


def _tally(done: list[Outcome], leftovers: list[str]) -> None:
    counts = Counter((o.case.category, o.kind) for o in done)
    categories = list(dict.fromkeys(o.case.category for o in done))
    kinds = ["exit 0", "exit 2", "bad"]
    TALLY.append(f"{'category':<20}{'inputs':>7}" + "".join(f"{k:>8}" for k in kinds))
    for category in categories:
        total = sum(counts[(category, k)] for k in kinds)
        TALLY.append(
            f"{category:<20}{total:>7}" + "".join(f"{counts[(category, k)]:>8}" for k in kinds)
        )
    total = len(done)
    TALLY.append(f"{'all':<20}{total:>7}" + "".join(
        f"{sum(1 for o in done if o.kind == k):>8}" for k in kinds))
    slowest = max(done, key=lambda o: o.seconds)
    biggest = max(done, key=lambda o: o.rss)
    TALLY.append(
        f"slowest {slowest.seconds:.1f} s ({slowest.case.label}); largest "
        f"{biggest.rss >> 20} MiB ({biggest.case.label}); temporary files left: {len(leftovers)}"
    )


def test_corpus_is_deterministic(tmp_path: Path) -> None:
    a = build(tmp_path / "a", seed=3, heavy=False)
    b = build(tmp_path / "b", seed=3, heavy=False)
    assert [c.label for c in a] == [c.label for c in b]
    for x, y in zip(a, b, strict=True):
        try:
            st = x.path.lstat()
        except OSError:  # the name too long to exist, the missing file
            continue
        if stat.S_ISREG(st.st_mode) and st.st_size < (64 << 20):
            assert x.path.read_bytes() == y.path.read_bytes(), x.label


def test_every_input_exits_0_or_2_with_one_sentence(outcomes: list[Outcome]) -> None:
    bad = [o for o in outcomes if o.problems]
    detail = "\n".join(
        f"{o.case.category} / {o.case.label} / {' '.join(o.case.args)}: {', '.join(o.problems)}"
        f" -- {o.stderr.strip()[:300]!r}"
        for o in bad
    )
    assert not bad, f"{len(bad)} of {len(outcomes)} inputs went wrong:\n{detail}"
    assert len(outcomes) >= 200
    assert {o.kind for o in outcomes} == {"exit 0", "exit 2"}
