"""The real pair: ``samples/nsys/join_trace`` (nsys) and ``samples/ncu/join_kernels`` (ncu) of
``samples/torch/join_app.py``, joined once per session."""

from __future__ import annotations

import lzma
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from kernelscope.kinds.join.analysis import JoinInputs, JoinReport, build_join, open_join
from tests.conftest import SAMPLES

TRACE_XZ = SAMPLES / "nsys" / "join_trace.sqlite.xz"
KERNELS_XZ = SAMPLES / "ncu" / "join_kernels.ncu-rep.xz"
ORACLE = SAMPLES / "nsys" / "oracle"
NCU_ORACLE = SAMPLES / "ncu" / "oracle" / "join_kernels.raw.csv.xz"


def unpack(src: Path, target: Path) -> Path:
    with lzma.open(src) as inp, open(target, "wb") as out:
        shutil.copyfileobj(inp, out)
    target.chmod(0o444)
    return target


@pytest.fixture(scope="session")
def join_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("join")
    return (unpack(TRACE_XZ, folder / "join_trace.sqlite"),
            unpack(KERNELS_XZ, folder / "join_kernels.ncu-rep"))


@pytest.fixture(scope="session")
def join_inputs(join_files: tuple[Path, Path]) -> Iterator[JoinInputs]:
    inputs = open_join(list(join_files))
    yield inputs
    inputs.close()


@pytest.fixture(scope="session")
def join(join_inputs: JoinInputs) -> JoinReport:
    return build_join(join_inputs.timeline, join_inputs.reports)


@pytest.fixture(autouse=True)
def _no_animations(monkeypatch: pytest.MonkeyPatch) -> None:
    """No animations: stable snapshots."""
    import textual.constants

    monkeypatch.setattr(textual.constants, "TEXTUAL_ANIMATIONS", "none")
