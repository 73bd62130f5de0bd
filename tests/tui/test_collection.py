"""The collector's thresholds while a report loads, a TUI process's start without
collections, and the program's headless commands without any (``kernelscope.ui.collection``)."""

from __future__ import annotations

import gc
import lzma
import subprocess
import sys
from pathlib import Path

import pytest

from kernelscope.ui.collection import (
    FULL_AFTER,
    YOUNG_THRESHOLD,
    fewer_collections,
    one_app,
    started,
)
from tests.conftest import SAMPLES


def test_thresholds_are_raised_while_loading_and_restored_after() -> None:
    before = gc.get_threshold()
    with fewer_collections():
        young, middle, full = gc.get_threshold()
        assert young >= YOUNG_THRESHOLD and full >= FULL_AFTER and middle == before[1]
        with fewer_collections():  # a second load meanwhile
            assert gc.get_threshold() == (young, middle, full)
        assert gc.get_threshold() == (young, middle, full)  # the first load goes on
    assert gc.get_threshold() == before


def test_a_failed_load_restores_the_thresholds() -> None:
    before = gc.get_threshold()
    with pytest.raises(ValueError, match="bad report"), fewer_collections():
        raise ValueError("bad report")
    assert gc.get_threshold() == before


ONE_APP = """
import gc
from kernelscope.ui.collection import (
    ONE_APP_YOUNG_THRESHOLD, fewer_collections, one_app, started,
)

app = one_app()
app.__enter__()
assert not gc.isenabled() and gc.get_freeze_count() == 0
kept = [[] for _ in range(1000)]  # what the start makes, alive as long as the process
started()
assert gc.isenabled()
frozen = gc.get_freeze_count()
assert frozen >= 1000, frozen
started()  # the first screen only
assert gc.get_freeze_count() == frozen
before = gc.get_threshold()
with fewer_collections():
    # a young collection only after a million allocations while a report loads
    assert gc.isenabled() and gc.get_threshold()[0] == ONE_APP_YOUNG_THRESHOLD
    loaded = [[] for _ in range(1000)]  # the report's objects
assert gc.get_threshold() == before and gc.isenabled()
assert gc.get_freeze_count() >= frozen + 1000
app.__exit__(None, None, None)
assert gc.isenabled()

app = one_app()  # a load that begins before the first screen shows
app.__enter__()
with fewer_collections():
    started()
    assert gc.isenabled() and gc.get_threshold()[0] == ONE_APP_YOUNG_THRESHOLD  # it goes on
assert gc.isenabled()
app.__exit__(None, None, None)
print("ok")
"""


def test_a_process_of_one_tui_collects_after_its_start_and_loads_and_freezes_them() -> None:
    # In a process of its own: the collector's state is the whole process's.
    ran = subprocess.run([sys.executable, "-c", ONE_APP], capture_output=True, text=True,
                         check=False, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "ok"


def test_the_tests_process_freezes_nothing() -> None:
    frozen = gc.get_freeze_count()
    started()  # (outside one_app: the tests run many apps)
    with fewer_collections():
        pass
    assert gc.get_freeze_count() == frozen and gc.isenabled()


def test_an_app_that_never_started_leaves_the_collector_as_it_was() -> None:
    frozen = gc.get_freeze_count()
    with pytest.raises(RuntimeError), one_app():
        assert not gc.isenabled()
        raise RuntimeError("the terminal went away before the first screen")
    started()  # a screen shown later, by an app of this process's tests
    assert gc.isenabled() and gc.get_freeze_count() == frozen


ONE_COMMAND = """
import gc, sys
from kernelscope.tui.cli import main
from kernelscope.ui import collection

seen = []
real = collection.one_command


def watched():
    manager = real()

    class Watch:
        def __enter__(self):
            manager.__enter__()
            seen.append(gc.isenabled())

        def __exit__(self, *exc):
            return manager.__exit__(*exc)

    return Watch()


collection.one_command = watched
code = main(["summary", sys.argv[1]], program=True)
assert code == 0 and seen == [False], (code, seen)
assert gc.isenabled() and gc.get_freeze_count() > 0
frozen = gc.get_freeze_count()
code = main(["summary", sys.argv[1]])  # in process, as the tests call it: nothing changes
assert code == 0 and seen == [False] and gc.isenabled()
assert gc.get_freeze_count() <= frozen  # frozen objects may die, none are added
code = main(["summary", "missing.sqlite"], program=True)  # a failed command
assert code == 2 and gc.isenabled(), code
print("ok")
"""


def test_the_program_runs_a_headless_command_without_collections_and_freezes_at_its_end(
        tmp_path: Path) -> None:
    trace = tmp_path / "timeline_plain.sqlite"
    with lzma.open(SAMPLES / "nsys" / "timeline_plain.sqlite.xz") as src:
        trace.write_bytes(src.read())
    ran = subprocess.run([sys.executable, "-c", ONE_COMMAND, str(trace)], capture_output=True,
                         text=True, check=False, timeout=120, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip().endswith("ok")
