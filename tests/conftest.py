"""Shared fixtures: the real sample reports and their NCU/nsys oracle files."""

from __future__ import annotations

import csv
import gc
import io
import lzma
from pathlib import Path

import pytest
import textual.app
import textual.pilot
from textual._context import active_app
from textual.pilot import Pilot

from tests.tui.helpers import drawn

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
NCU_SAMPLES = SAMPLES / "ncu"
NCU_ORACLE = NCU_SAMPLES / "oracle"
BUNDLED = ROOT / "kernelscope" / "data" / "sample_zoo_h200.ncu-rep.xz"
SASS_TESTS = frozenset({
    "tests/diagnosis/test_consistency.py",
    "tests/diagnosis/test_real_workloads.py",
    "tests/diff/test_cli.py",
    "tests/diff/test_tui.py::test_matched_kernels_and_a_pair",
    "tests/export/test_document_words.py",
    "tests/export/test_markdown.py",
    "tests/join/test_join_screens.py::test_b_and_e_on_a_kernel_opened_from_the_join",
    "tests/ncu/test_line_table.py",
    "tests/ncu/test_one_answer.py",
    "tests/ncu/test_streaming.py",
    "tests/wild/test_ncu_reports.py",
})
"""The tests that ask for instructions' SASS text (``sass.with_binding`` with PCs, in this
process or a kernelscope they start), the one place kernelscope branches on the ncu-report
binding: a whole file where its tests share what they read, else the test. Marked ``sass``;
the README's test command runs them again with the binding uninstalled. Found by logging
every such call while the kernel-report tests ran."""


def ncu_sample_paths() -> list[Path]:
    """Every committed kernel report that has an oracle beside it."""
    out = []
    for path in sorted(NCU_SAMPLES.glob("*.ncu-rep.xz")):
        stem = path.name.removesuffix(".ncu-rep.xz")
        if (NCU_ORACLE / f"{stem}.raw.csv.xz").exists():
            out.append(path)
    return out


def read_csv_xz(path: Path) -> list[list[str]]:
    text = lzma.decompress(path.read_bytes()).decode("utf-8")
    # ncu prints "==PROF==" or warning lines before the CSV on some versions.
    start = text.find('"')
    return list(csv.reader(io.StringIO(text[start:])))


@pytest.fixture(scope="session")
def ncu_samples() -> list[Path]:
    paths = ncu_sample_paths()
    assert paths, "no kernel report samples with oracles under samples/ncu"
    return paths


def pytest_configure(config: pytest.Config) -> None:
    """No cyclic collection while the tests are collected: importing the test modules (and
    the few reports some read to name their cases) makes many objects and few cycles, and each
    full collection would walk all of them again."""
    gc.disable()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Collect once, then freeze what collection left (imported modules, their classes, the
    cases' data): it lives to the end of the process, so no collection during the tests walks
    it again (a full collection walked it each time: ~10 % of a test process's CPU time). The
    tests' own objects are collected as before."""
    gc.enable()
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        test = item.nodeid.split("[")[0]
        if test in SASS_TESTS or test.split("::")[0] in SASS_TESTS:
            item.add_marker(pytest.mark.sass)


async def _key_handled(*_: float) -> None:
    """What a test's ``pilot.press`` awaits after each key it sends, in place of Textual's
    ``wait_for_idle`` (a sleep of 20 ms at least, until the process's CPU time stops growing,
    up to 1 s while any thread runs): ``drawn``, rounds in which every widget of the screen
    handles the messages queued for it and the screen is drawn, until a round leaves nothing
    waiting (the key's own message, posted from the driver, every message its handling
    posted, and what the draw set going: a Resize, a ``call_after_refresh``). A worker the
    key started is the test's to wait for (``settle``)."""
    await drawn(Pilot(active_app.get()))


@pytest.fixture(autouse=True)
def _keys_without_idle_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_key_handled`` for every idle wait of Textual's: after each key (``App._press_keys``)
    and in each ``Pilot.pause()``, which ``pilot.click``, ``pilot.resize_terminal`` and the
    snapshot plugin's last look at the screen call (a test itself waits for what it means:
    ``tests/tui/helpers.py``'s ``drawn``, ``settle``)."""
    monkeypatch.setattr(textual.app, "wait_for_idle", _key_handled)
    monkeypatch.setattr(textual.pilot, "wait_for_idle", _key_handled)
