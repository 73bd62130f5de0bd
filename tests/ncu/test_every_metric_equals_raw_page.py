"""Every metric of every kernel report we have (samples/ and ../shared/wild) equals NCU's
raw page (``ncu --import R --page raw --csv --print-units base``) in value and unit, read
by kernelscope's own reader in a fresh process that never imports ncu_report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import NCU_ORACLE, ROOT, ncu_sample_paths
from tests.ncu.oracle import stem_of
from tests.wild.conftest import WILD, require_wild

WILD_PAGE = ".raw_base.csv.xz"


def _check(report: Path, page: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.ncu.raw_page_check", str(report), str(page)],
        capture_output=True, text=True, cwd=ROOT, check=False, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found: dict[str, object] = json.loads(done.stdout)
    return found


def _assert_equal(found: dict[str, object]) -> None:
    assert found["binding_loaded"] is False
    assert isinstance(found["checked"], int) and found["checked"] > 100
    assert found["wrong_count"] == 0, "\n".join(map(str, found["wrong"]))  # type: ignore[call-overload]


BIG = ROOT / "samples" / "big"


@pytest.mark.parametrize("path", ncu_sample_paths(), ids=stem_of)
def test_every_metric_of_our_samples(path: Path) -> None:
    _assert_equal(_check(path, NCU_ORACLE / f"{stem_of(path)}.raw.csv.xz"))


@pytest.mark.parametrize("path", sorted(BIG.glob("*.ncu-rep.xz")), ids=stem_of)
def test_every_metric_of_the_benchmark_reports(path: Path) -> None:
    """The large reports: 264 --set full launches, 828 and 8,676 many-launch ones, 1,300
    launches of a PyTorch training loop."""
    _assert_equal(_check(path, BIG / f"{stem_of(path)}.raw.csv.xz"))


def _wild_reports() -> list[str]:
    if WILD is None:
        return ["<no ../shared/wild>"]
    folder = WILD / "oracle" / "ncu"
    pages = {p.name.removesuffix(WILD_PAGE) for p in folder.glob(f"*{WILD_PAGE}")}
    reports = (WILD / "ncu").glob("*.xz")
    return sorted(p.name for p in reports if p.name.removesuffix(".xz") in pages)


@pytest.mark.parametrize("name", _wild_reports())
def test_every_metric_of_the_third_party_reports(name: str) -> None:
    root = require_wild()
    page = root / "oracle" / "ncu" / f"{name.removesuffix('.xz')}{WILD_PAGE}"
    _assert_equal(_check(root / "ncu" / name, page))
