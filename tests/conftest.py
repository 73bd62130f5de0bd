"""Shared fixtures: the real sample reports and their NCU/nsys oracle files."""

from __future__ import annotations

import csv
import io
import lzma
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
NCU_SAMPLES = SAMPLES / "ncu"
NCU_ORACLE = NCU_SAMPLES / "oracle"
BUNDLED = ROOT / "kernelscope" / "data" / "sample_zoo_h200.ncu-rep.xz"


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
