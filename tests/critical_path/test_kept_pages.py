"""``kernelscope whatif`` as a program of its own has polars' allocator keep the pages it
frees (``export/whatif.py:keep_freed_pages``): a setting the allocator reads only as polars
loads, so the command must make it before anything loads polars."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from kernelscope.export.whatif import KEPT_PAGES

SETTING = "_RJEM_MALLOC_CONF"
"""What polars' allocator reads; polars puts its own settings first and a set value after."""

PROGRAM = ("import os, sys\n"
           "from kernelscope.tui.cli import main\n"
           "code = main(sys.argv[1:], program=True)\n"
           f"print(os.environ.get({SETTING!r}), file=sys.stderr)\n"
           "raise SystemExit(code)\n")


def _setting_after_whatif(trace: Path, own: str | None) -> str:
    env = {key: value for key, value in os.environ.items() if key != SETTING}
    if own is not None:
        env[SETTING] = own
    done = subprocess.run([sys.executable, "-c", PROGRAM, "whatif", str(trace), "--faster",
                           ".=2"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stderr.strip().splitlines()[-1]


def test_the_whatif_command_sets_the_allocator_before_polars_loads(
        sample_sqlite: Callable[[str], Path]) -> None:
    setting = _setting_after_whatif(sample_sqlite("timeline_plain"), None)
    assert setting.split(",")[-1] == KEPT_PAGES  # polars read it as it loaded: after its own


def test_a_setting_of_the_users_own_is_left_as_it_is(
        sample_sqlite: Callable[[str], Path]) -> None:
    setting = _setting_after_whatif(sample_sqlite("timeline_plain"), "narenas:2")
    assert setting.split(",")[-1] == "narenas:2"
    assert KEPT_PAGES not in setting
