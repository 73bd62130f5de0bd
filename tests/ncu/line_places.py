"""Each instruction's source line for every kernel of a report with per-PC counters, two ways:
kernelscope's (the cubin's line table, read with pyelftools) and Nsight Compute's (the
``ncu_report`` binding's ``source_info``, in a child process). Both as runs: the offset from
the kernel's first PC where the place changes, and the place (file, line).

``python -m tests.ncu.line_places`` writes the binding's answers for every report of the
samples and of ``../shared/wild`` with per-instruction counters into ``line_places.json.xz``
(needs ncu-report), so a machine without the binding still checks the line table against
them.
"""

from __future__ import annotations

import json
import lzma
import subprocess
import sys
import tempfile
from pathlib import Path

from kernelscope.kinds.ncu.model import NcuReport
from kernelscope.kinds.ncu.model.source import FIXED_COLUMNS, per_pc
from tests.conftest import NCU_SAMPLES
from tests.wild.conftest import require_wild

EXPECTED = Path(__file__).with_name("line_places.json.xz")
Runs = list[list[object]]

_BINDING = r"""
import json, sys
import ncu_report
job = json.load(sys.stdin)
ctx = ncu_report.load_report(job["path"])
actions = [r.action_by_idx(a) for r in (ctx.range_by_idx(i) for i in range(ctx.num_ranges()))
           for a in range(r.num_actions())]
out = {}
for kernel, pcs in job["pcs"].items():
    action = actions[int(kernel)]
    places = []
    for pc in pcs:
        info = action.source_info(pc)
        places.append(["", 0] if info is None else [info.file_name() or "", int(info.line())])
    out[kernel] = places
json.dump(out, sys.stdout)
"""


def kernel_pcs(report: NcuReport) -> dict[int, list[int]]:
    """The PCs with per-instruction counters of each kernel that has any."""
    out = {}
    for kernel_id in range(report.kernel_count):
        result = report._result(kernel_id)
        known: set[int] = set()
        for column in FIXED_COLUMNS:
            known |= set(per_pc(result, column.metric))
        if known:
            out[kernel_id] = sorted(known)
    return out


def runs(pcs: list[int], places: list[tuple[str, int]]) -> Runs:
    """(offset, file, line) where the place changes from the previous PC's."""
    out: Runs = []
    previous: tuple[str, int] | None = None
    for pc, place in zip(pcs, places, strict=True):
        if place != previous:
            out.append([pc - pcs[0], place[0], place[1]])
            previous = place
    return out


def line_table_runs(path: Path) -> dict[str, Runs]:
    """kernelscope's places of every kernel's PCs (the cubin's line table), as the Source
    page and the hot spots get them."""
    out = {}
    with NcuReport(path) as report:
        for kernel_id, pcs in kernel_pcs(report).items():
            found = report._disassembler(kernel_id)(pcs)
            places = [(found[pc].file, found[pc].line) if pc in found else ("", 0) for pc in pcs]
            out[str(kernel_id)] = runs(pcs, places)
    return out


def binding_runs(path: Path, plain: Path) -> dict[str, Runs]:
    """Nsight Compute's places of the same PCs (``plain``: the report decompressed)."""
    with NcuReport(path) as report:
        pcs = {str(k): v for k, v in kernel_pcs(report).items()}
    if not pcs:
        return {}
    job = json.dumps({"path": str(plain), "pcs": pcs})
    done = subprocess.run([sys.executable, "-c", _BINDING], input=job, capture_output=True,
                          text=True, check=True, timeout=600)
    answer = json.loads(done.stdout)
    return {k: runs(pcs[k], [(f, n) for f, n in answer[k]]) for k in pcs}


def report_path(name: str) -> Path:
    """A sample's path, or a third-party report's in ``../shared/wild`` (skips without it)."""
    if (NCU_SAMPLES / name).exists():
        return NCU_SAMPLES / name
    return require_wild() / "ncu" / name


def _write() -> None:
    """The binding's places of every report (samples and ../shared/wild) with counters."""
    names = [p.name for p in sorted(NCU_SAMPLES.glob("*.xz"))]
    names += [p.name for p in sorted((require_wild() / "ncu").glob("*.xz"))]
    expected = {}
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            plain = Path(folder) / "report.ncu-rep"
            plain.write_bytes(lzma.decompress(report_path(name).read_bytes()))
            found = binding_runs(report_path(name), plain)
            if found:
                expected[name] = found
    lines = ",\n".join(
        f"{json.dumps(f'{report}#{kernel}')}: {json.dumps(runs_of)}"
        for report, kernels in sorted(expected.items())
        for kernel, runs_of in sorted(kernels.items(), key=lambda kv: int(kv[0]))
    )
    EXPECTED.write_bytes(lzma.compress(("{\n" + lines + "\n}\n").encode()))


def expected_runs(report: str) -> dict[str, Runs]:
    """The binding's answers stored for ``report`` (a sample's file name), by kernel."""
    stored = json.loads(lzma.decompress(EXPECTED.read_bytes()))
    return {key.split("#")[1]: value for key, value in stored.items()
            if key.split("#")[0] == report}


if __name__ == "__main__":
    _write()
