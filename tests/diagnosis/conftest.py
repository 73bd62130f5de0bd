"""Fixtures for the diagnosis tests: each committed kernel report, opened and diagnosed once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import pytest

from kernelscope.kinds.ncu.analysis.diagnosis import REQUIRED_METRICS, Diagnosis, diagnose
from kernelscope.kinds.ncu.model import KernelSummary, NcuReport, open_ncu_report
from tests.conftest import NCU_SAMPLES


@dataclass(frozen=True)
class Kernel:
    """One real kernel of a sample: its summary and its diagnosis from that summary."""

    id: int
    name: str
    demangled: str
    summary: KernelSummary
    diagnosis: Diagnosis


@lru_cache(maxsize=2)
def opened(stem: str) -> NcuReport:
    """The sample's report, open for the tests that read it in turn (a report holds its latest
    decoded results: the 25 samples' held to the end of the session were ~300 MB a worker)."""
    return open_ncu_report(NCU_SAMPLES / f"{stem}.ncu-rep.xz", extra_metrics=REQUIRED_METRICS)


@cache
def kernels_of(stem: str) -> tuple[Kernel, ...]:
    report = opened(stem)
    out = []
    for kernel_id in range(report.kernel_count):
        s = report.summary(kernel_id)
        d = diagnose(s.metrics, s.rules, s.sections)
        out.append(Kernel(kernel_id, str(s.row["name"]), str(s.row["demangled"]), s, d))
    return tuple(out)


def sample_exists(stem: str) -> bool:
    return (NCU_SAMPLES / f"{stem}.ncu-rep.xz").exists()


def needs(stem: str) -> pytest.MarkDecorator:
    """Skip a test whose sample has not been committed yet."""
    return pytest.mark.skipif(not sample_exists(stem), reason=f"samples/ncu/{stem} not committed")


def find(stem: str, text: str, nth: int = 0) -> Kernel:
    """The ``nth`` kernel of ``stem`` whose demangled name contains ``text``."""
    hits = [k for k in kernels_of(stem) if text in k.demangled]
    if len(hits) <= nth:
        names = sorted({k.demangled for k in kernels_of(stem)})
        raise LookupError(f"no kernel #{nth} matching {text!r} in {stem}: {names}")
    return hits[nth]


@pytest.fixture(scope="session")
def zoo_a() -> Callable[[str], Kernel]:
    """Kernels of samples/ncu/zoo_a by a piece of their demangled name."""
    return lambda text: find("zoo_a", text)


def sample_path(stem: str) -> Path:
    return NCU_SAMPLES / f"{stem}.ncu-rep.xz"
