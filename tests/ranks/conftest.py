"""Fixtures for the multi-rank tests: the four-rank sample, its oracles, the wild MPI traces."""

from __future__ import annotations

import csv
import io
import lzma
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from kernelscope.kinds.ranks.analysis.model import RunAnalysis
from kernelscope.kinds.ranks.analysis.reduce import ReduceOptions
from kernelscope.kinds.ranks.analysis.run import analyse_run

ROOT = Path(__file__).resolve().parents[2]
RANKS = ROOT / "samples" / "nsys" / "ranks"
ORACLE = RANKS / "oracle"
WILD_MPI = ("openhackathons-org__gpubootcamp__report1", "openhackathons-org__gpubootcamp__report2")


def wild_dir() -> Path | None:
    """``$KERNELSCOPE_WILD``, else ``../shared/wild`` beside the repository, else
    ``/work/shared/wild``; None when none exists."""
    for candidate in (os.environ.get("KERNELSCOPE_WILD"), ROOT.parent / "shared" / "wild",
                      Path("/work/shared/wild")):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


def need_wild() -> Path:
    found = wild_dir()
    if found is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("../shared/wild is missing, and CI must run the third-party reports")
        pytest.skip("the third-party reports (../shared/wild) are not here")
    return found


def oracle_rows(rank: int, report: str) -> list[dict[str, str]]:
    text = lzma.decompress((ORACLE / f"rank{rank}_{report}.csv.xz").read_bytes()).decode()
    return list(csv.DictReader(io.StringIO(text)))


def session_start(sqlite: Path) -> int:
    with sqlite3.connect(f"file:{sqlite}?mode=ro", uri=True) as conn:
        return int(conn.execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME")
                   .fetchone()[0])


def decompress(source: Path, target: Path) -> Path:
    with lzma.open(source) as src, open(target, "wb") as dst:
        shutil.copyfileobj(src, dst)
    target.chmod(0o444)
    return target


@pytest.fixture(scope="session")
def rank_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The four ranks' SQLite exports, decompressed into a directory of their own."""
    out = tmp_path_factory.mktemp("ranks")
    for rank in range(4):
        decompress(RANKS / f"rank{rank}.sqlite.xz", out / f"rank{rank}.sqlite")
    return out


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ranks-cache")


@pytest.fixture(scope="session")
def run(rank_dir: Path, cache_dir: Path) -> RunAnalysis:
    """The sample run, analysed in this process."""
    return analyse_run([rank_dir], options=ReduceOptions(cache_dir=str(cache_dir)), workers=0)
