"""The third-party reports in ``../shared/wild`` (beside the clone; ``KERNELSCOPE_WILD`` to
point elsewhere), decompressed once per session into a temporary folder.

Outside CI the tests skip, with a reason, when the folder is absent; with ``CI=true`` they
fail instead, so that CI never passes without having read them.
"""

from __future__ import annotations

import csv
import lzma
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT


def wild_root() -> Path | None:
    candidates = []
    if os.environ.get("KERNELSCOPE_WILD"):
        candidates.append(Path(os.environ["KERNELSCOPE_WILD"]))
    candidates += [ROOT.parent / "shared" / "wild", Path("/work/shared/wild")]
    return next((p for p in candidates if (p / "PROVENANCE.tsv").is_file()), None)


WILD = wild_root()
IN_CI = os.environ.get("CI", "").lower() == "true"


def wild_files(kind: str) -> list[str]:
    """The compressed reports of ``kind`` ("ncu" or "nsys"), by name; one placeholder that
    skips (or fails in CI) when the folder is absent."""
    if WILD is None:
        return ["<no ../shared/wild>"]
    return sorted(p.name for p in (WILD / kind).glob("*.xz"))


def require_wild() -> Path:
    if WILD is None:
        message = "the third-party reports (../shared/wild or $KERNELSCOPE_WILD) are absent"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return WILD


def provenance() -> dict[str, dict[str, str]]:
    """PROVENANCE.tsv by file name (repository, GPU, version of each report)."""
    root = require_wild()
    with open(root / "PROVENANCE.tsv", encoding="utf-8") as fh:
        return {row["file"]: row for row in csv.DictReader(fh, delimiter="\t")}


@pytest.fixture(scope="session")
def wild_plain(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, str], Path]:
    """``get(kind, name)``: the report ``wild/kind/name`` decompressed (once) into a private
    temporary folder, read-only."""
    folder = tmp_path_factory.mktemp("wild")
    done: dict[tuple[str, str], Path] = {}

    def get(kind: str, name: str) -> Path:
        root = require_wild()
        if (kind, name) not in done:
            target = folder / kind / name.removesuffix(".xz")
            target.parent.mkdir(exist_ok=True)
            with lzma.open(root / kind / name) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            target.chmod(0o444)
            done[(kind, name)] = target
        return done[(kind, name)]

    return get
