"""The corruption corpus (``generator.py``) through the real command line, one process per
input with limits: every input ends in exit 0 with sane output, or exit 2 with one sentence on
stderr (no traceback, no log line of ncu_report before it, no raw control character), within
a time and memory bound, with the input unchanged and nothing written beside it.

``driver.py`` runs the inputs: a process forked from one that imported kernelscope once runs
each (``python -m kernelscope``'s own entry, in a process of its own), and the first input of
every category also runs in a fresh ``python -m kernelscope``, which must answer the same."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.corpus.conftest import TALLY
from tests.corpus.driver import TIME_LIMIT_S
from tests.corpus.generator import Case, build

RSS_LIMIT = 3 << 30  # peak resident memory of one run


@dataclass
class Outcome:
    case: Case
    fresh: bool  # run by a fresh ``python -m kernelscope`` rather than a forked driver
    code: int | None
    stdout: str
    stderr: str
    seconds: float
    cpu: float
    rss: int
    problems: list[str]

    @property
    def kind(self) -> str:
        if self.problems:
            return "bad"
        return f"exit {self.code}"


def _fingerprint(path: Path) -> tuple[int, ...] | None:
    """What changes whenever the file does: any write or truncation moves the change time
    (which no program can set back), and a file put in its place has another inode."""
    try:
        st = path.lstat()
    except OSError:
        return None
    return st.st_ino, st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _listing(folder: Path) -> list[str]:
    return sorted(os.fsdecode(n) for n in os.listdir(os.fsencode(folder)))


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


def _plan(cases: list[Case], logs: Path) -> list[tuple[Case, bool]]:
    """Every input forked, and the first of each category in a fresh process as well."""
    firsts = list({case.category: case for case in reversed(cases)}.values())
    # The heavy inputs, built last, start first, so that no worker waits alone at the end.
    runs = [(case, False) for case in reversed(cases)] + [(case, True) for case in firsts]
    with open(logs / "plan", "w", encoding="utf-8") as fh:
        for index, (case, fresh) in enumerate(runs):
            argv = [*case.args, os.fsdecode(case.path)]
            fh.write(json.dumps({"argv": argv, "out": str(logs / f"{index}.out"),
                                 "err": str(logs / f"{index}.err"), "fresh": fresh}) + "\n")
    return runs


def run_cases(cases: list[Case], logs: Path, env: dict[str, str]) -> list[Outcome]:
    before = {case.path: (_fingerprint(case.path), _listing(case.folder)) for case in cases}
    runs = _plan(cases, logs)
    driver = subprocess.run(
        [sys.executable, "-m", "tests.corpus.driver", str(logs / "plan"), str(logs / "results")],
        stdin=subprocess.DEVNULL, capture_output=True, env=env, cwd=ROOT, check=False,
    )
    assert driver.returncode == 0, driver.stderr.decode(errors="replace")
    results = [json.loads(line) for line in (logs / "results").read_text().splitlines()]
    outcomes = []
    for index, ((case, fresh), result) in enumerate(zip(runs, results, strict=True)):
        out = (logs / f"{index}.out").read_bytes().decode("utf-8", errors="replace")
        err = (logs / f"{index}.err").read_bytes().decode("utf-8", errors="replace")
        problems = _check(case, result["code"], out, err)
        if result["timed_out"]:
            problems.append(f"no answer within {TIME_LIMIT_S:.0f} s")
        if result["rss"] > RSS_LIMIT:
            problems.append(f"peak memory {result['rss'] >> 20} MiB")
        if _fingerprint(case.path) != before[case.path][0]:
            problems.append("the input changed")
        if _listing(case.folder) != before[case.path][1]:
            problems.append("something was written beside the input")
        outcomes.append(Outcome(case, fresh, result["code"], out, err, result["seconds"],
                                result["cpu"], result["rss"], problems))
    return outcomes


@pytest.fixture(scope="session")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    root = tmp_path_factory.mktemp("corpus")
    cases = build(root / "inputs")
    temp = root / "tmp"
    logs = root / "logs"
    temp.mkdir()
    logs.mkdir()
    env = dict(os.environ)
    env.update({"XDG_CACHE_HOME": str(root / "cache"), "TMPDIR": str(temp), "NO_COLOR": "1"})
    env.pop("KERNELSCOPE_DEBUG", None)
    done = run_cases(cases, logs, env)
    leftovers = sorted(p.name for p in temp.iterdir())
    _tally(done, leftovers)
    if leftovers:
        done[0].problems.append(f"temporary files left behind: {leftovers[:5]}")
    return done


def _tally(outcomes: list[Outcome], leftovers: list[str]) -> None:
    done = [o for o in outcomes if not o.fresh]
    counts = Counter((o.case.category, o.kind) for o in done)
    in_order = sorted(done, key=lambda o: o.case.folder)  # the generator's order
    categories = list(dict.fromkeys(o.case.category for o in in_order))
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
    TALLY.append(f"the runs' CPU time {sum(o.cpu for o in outcomes):.0f} s; run again by a fresh "
                 f"python -m kernelscope: {len(outcomes) - len(done)}")


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
        f"{o.case.category} / {o.case.label} / {' '.join(o.case.args)}"
        f"{' (fresh process)' if o.fresh else ''}: {', '.join(o.problems)}"
        f" -- {o.stderr.strip()[:300]!r}"
        for o in bad
    )
    assert not bad, f"{len(bad)} of {len(outcomes)} inputs went wrong:\n{detail}"
    assert sum(1 for o in outcomes if not o.fresh) >= 200
    assert {o.kind for o in outcomes} == {"exit 0", "exit 2"}


def test_a_fresh_process_answers_as_the_forked_one(outcomes: list[Outcome]) -> None:
    forked = {o.case.path: o for o in outcomes if not o.fresh}
    fresh = [o for o in outcomes if o.fresh]
    assert {o.case.category for o in fresh} == {o.case.category for o in outcomes}
    for o in fresh:
        twin = forked[o.case.path]
        assert (o.code, o.stdout, o.stderr) == (twin.code, twin.stdout, twin.stderr), o.case.label
