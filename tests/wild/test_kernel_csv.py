"""The kernel CSV export of every third-party timeline equals what ``nsys stats -r
cuda_gpu_kern_sum --format csv`` printed for it, byte for byte (one decimal rounded half away
from zero, as nsys's SQL does), where nsys printed that report."""

from __future__ import annotations

import lzma
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.exports import export_text
from tests.wild.conftest import require_wild, wild_files

NAMES = wild_files("nsys")


@pytest.mark.parametrize("name", NAMES)
def test_the_kernel_csv_is_what_nsys_printed(
    wild_plain: Callable[[str, str], Path], name: str
) -> None:
    root = require_wild()
    stem = name.removesuffix(".sqlite.xz")
    oracle = root / "oracle" / "nsys" / f"{stem}_cuda_gpu_kern_sum.csv.xz"
    if not oracle.exists():
        pytest.skip("nsys printed no cuda_gpu_kern_sum for this trace")
    ours = export_text(wild_plain("nsys", name), "csv")  # (test_nsys_exports reads it too)
    assert ours == lzma.decompress(oracle.read_bytes()).decode("utf-8")
