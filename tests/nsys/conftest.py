"""Fixtures for the Nsight Systems tests: each committed sample, decompressed and opened once."""

from __future__ import annotations

import lzma
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from kernelscope.kinds.nsys.model.opener import open_report
from kernelscope.timeline.model.model import TimelineReport
from tests.nsys.oracle import NSYS_SAMPLES, sample_names


@pytest.fixture(scope="session")
def nsys_sample_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("nsys-samples")


@pytest.fixture(scope="session")
def sample_sqlite(nsys_sample_dir: Path) -> Callable[[str], Path]:
    """Decompress ``samples/nsys/NAME.sqlite.xz`` once into a temp dir; return its path."""
    done: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in done:
            target = nsys_sample_dir / f"{name}.sqlite"
            with lzma.open(NSYS_SAMPLES / f"{name}.sqlite.xz") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
            target.chmod(0o444)
            done[name] = target
        return done[name]

    return get


@pytest.fixture(scope="session")
def sample_report(sample_sqlite: Callable[[str], Path]) -> Callable[[str], TimelineReport]:
    """The opened report of a sample, shared by the whole session."""
    done: dict[str, TimelineReport] = {}

    def get(name: str) -> TimelineReport:
        if name not in done:
            done[name] = open_report(sample_sqlite(name))
        return done[name]

    return get


@pytest.fixture(scope="session")
def zoo(sample_report: Callable[[str], TimelineReport]) -> TimelineReport:
    return sample_report("zoo")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "sample_name" in metafunc.fixturenames:
        metafunc.parametrize("sample_name", sample_names())
