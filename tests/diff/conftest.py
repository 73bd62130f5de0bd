"""The before/after sample pairs, each diffed once per test session."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kernelscope.kinds.diff.analysis.inputs import DiffInputs, open_pair
from kernelscope.kinds.diff.analysis.kernels import KernelDiff
from tests.conftest import NCU_SAMPLES, SAMPLES

NSYS = SAMPLES / "nsys"


def ncu(stem: str) -> str:
    return str(NCU_SAMPLES / f"{stem}.ncu-rep.xz")


@pytest.fixture(scope="session")
def opened() -> Callable[[str, str], DiffInputs]:
    """Both reports of a pair, opened and analysed once for the session (ncu_report keeps
    every kernel it opens, so the small sample reports are opened once)."""
    cache: dict[tuple[str, str], DiffInputs] = {}

    def get(before: str, after: str) -> DiffInputs:
        if (before, after) not in cache:
            cache[(before, after)] = open_pair([ncu(before), ncu(after)])
        return cache[(before, after)]

    return get


@pytest.fixture(scope="session")
def kernel_diff(opened: Callable[[str, str], DiffInputs]) -> Callable[..., KernelDiff]:
    def get(before: str, after: str, **kwargs: object) -> KernelDiff:
        diff = opened(before, after).diff(**kwargs)  # type: ignore[arg-type]
        assert isinstance(diff, KernelDiff)
        return diff

    return get


@pytest.fixture(scope="session")
def graph_diff():  # type: ignore[no-untyped-def]
    inputs = open_pair([NSYS / "graph_eager.sqlite.xz", NSYS / "graph_replay.sqlite.xz"])
    return inputs.diff()
