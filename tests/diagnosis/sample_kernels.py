"""The launches the diagnosis' kept-answer tests walk: three samples (many_launches, whose
launches share their configuration; gemm_sets_full, with a Warp State section; zoo, mixing
kernels of both kinds) and the first 30 launches of each."""

from __future__ import annotations

from collections.abc import Iterator

from kernelscope.kinds.ncu.analysis.kernel_analysis import open_for_analysis
from kernelscope.kinds.ncu.model.model import KernelSummary
from tests.conftest import NCU_SAMPLES

REPORTS = ["many_launches", "gemm_sets_full", "zoo"]


def first_summaries(name: str, count: int = 30) -> Iterator[KernelSummary]:
    """The summaries of the sample ``name``'s first ``count`` launches, in order."""
    with open_for_analysis(NCU_SAMPLES / f"{name}.ncu-rep.xz") as report:
        for kernel_id in range(min(report.kernel_count, count)):
            yield report.summary(kernel_id)
