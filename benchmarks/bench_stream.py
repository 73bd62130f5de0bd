"""Memory does not grow with the report (issue 25): a 100,000-launch report, made here by
repeating the result blocks of a real report (not committed), is summarised at the same peak
RSS as the report it was made from.

Usage: python benchmarks/bench_stream.py [REPORT] [LAUNCHES]
(default: samples/ncu/many_launches.ncu-rep.xz, 100,000 launches)

The copy keeps the report's file header and its leading blocks up to the first result (the
session details, the string table, the sources), then repeats the blocks that hold results
until it has LAUNCHES of them. Each case is a fresh ``kernelscope summary`` process, timed
from outside, its peak RSS from ``RUSAGE_CHILDREN`` of a fresh wrapper.
"""

from __future__ import annotations

import json
import lzma
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

from bytecode import compile_package
from fresh_process import WRAPPER

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "samples" / "ncu" / "many_launches.ncu-rep.xz"


def blocks(data: bytes) -> tuple[bytes, list[tuple[bytes, int]]]:
    """(magic and file header, [(block bytes, results in it)])."""
    sys.path.insert(0, str(ROOT))
    from kernelscope.kinds.ncu.model.file_format.schema import BlockHeader

    size = struct.unpack_from("<I", data, 4)[0]
    head, at, out = data[: 8 + size], 8 + size, []
    while at < len(data):
        size = struct.unpack_from("<I", data, at)[0]
        header = BlockHeader.FromString(data[at + 4 : at + 4 + size])
        end = at + 4 + size + header.payload_size
        count = (header.num_results + header.num_range_results + header.num_cmdlist_results
                 + header.num_graph_results)
        out.append((data[at:end], count))
        at = end
    return head, out


def repeated(source: Path, launches: int, target: Path) -> int:
    data = lzma.decompress(source.read_bytes()) if source.suffix == ".xz" else source.read_bytes()
    head, found = blocks(data)
    first = next(i for i, (_, n) in enumerate(found) if n)
    lead, body = found[:first], [b for b in found[first:] if b[1]]
    written = 0
    with open(target, "wb") as out:
        out.write(head)
        for block, _ in lead:
            out.write(block)
        while written < launches:
            for block, count in body:
                out.write(block)
                written += count
                if written >= launches:
                    break
    return written


READER_PASS = (
    "import sys\n"
    "from kernelscope.kinds.ncu.analysis.kernel_analysis import REQUIRED_METRICS\n"
    "from kernelscope.kinds.ncu.model.report import NcuReport\n"
    "with NcuReport(sys.argv[1], extra_metrics=REQUIRED_METRICS) as report:\n"
    "    print(sum(len(batch) for batch in report.iter_summaries()))\n"
)


def measure(path: Path, reader_only: bool = False) -> dict[str, float]:
    cmd = ([sys.executable, "-c", READER_PASS, str(path)] if reader_only
           else [sys.executable, "-m", "kernelscope", "summary", str(path)])
    done = subprocess.run([sys.executable, "-c", WRAPPER, *cmd], capture_output=True,
                          text=True, check=False, cwd=ROOT)
    if done.returncode:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout)


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    launches = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    compile_package()
    with tempfile.TemporaryDirectory(prefix="bench-stream-") as name:
        plain = Path(name) / "original.ncu-rep"
        plain.write_bytes(lzma.decompress(source.read_bytes()))
        big = Path(name) / "repeated.ncu-rep"
        count = repeated(source, launches, big)
        rows = [(what, n, measure(path, reader_only))
                for reader_only, what in ((True, "reader pass (every summary, none kept)"),
                                          (False, "`kernelscope summary`"))
                for path, n in ((plain, "original"), (big, f"{count:,}"))]
    print(f"{source.name.split('.')[0]}, its result blocks repeated to {count:,} launches")
    print("| what | launches | time | peak RSS | target |")
    print("| --- | ---: | ---: | ---: | --- |")
    for i, (what, n, res) in enumerate(rows):
        target = ""
        if i % 2:
            original = rows[i - 1][2]["mb"]
            met = res["mb"] <= 300 and res["mb"] <= original * 1.1 + 5
            target = f"≤ 300 MB, the original's: {'met' if met else '**missed**'}"
        print(f"| {what} | {n} | {res['s']:.2f} s | {res['mb']:.0f} MB | {target} |")


if __name__ == "__main__":
    main()
