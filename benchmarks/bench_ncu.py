"""Kernel-report speed and memory, printed as a table (targets from issue 2).

Usage: python benchmarks/bench_ncu.py [REPORT]   (default: samples/ncu/many_launches.ncu-rep.xz)

Each measurement runs in a fresh subprocess so peak RSS and cold-open times are honest:
- floor: open every kernel with ncu_report alone (``range.action_by_idx``), nothing read;
- key metrics: kernelscope's list pass (every kernel's summary incl. diagnosis metrics);
- list shown: the TUI, from start until the kernel list shows its first rows;
- next kernel: the TUI's ``n`` keystroke latency in the kernel detail (median of 20);
- peak RSS: of the TUI process after loading everything and stepping through kernels.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "samples" / "ncu" / "many_launches.ncu-rep.xz"

PRELUDE = textwrap.dedent(
    """
    import json, resource, sys, time, lzma, tempfile, os
    sys.path.insert(0, {root!r})
    path = {path!r}
    def rss_mb():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    def plain(path):
        if not path.endswith((".xz", ".gz")):
            return path
        from kernelscope.parsers.ncu.opener import decompress_to_temp
        from pathlib import Path
        return str(decompress_to_temp(Path(path), ".ncu-rep"))
    """
)

FLOOR = """
p = plain(path)
import ncu_report
t0 = time.perf_counter()
ctx = ncu_report.load_report(p)
n = 0
for r in range(ctx.num_ranges()):
    rng = ctx.range_by_idx(r)
    for a in range(rng.num_actions()):
        rng.action_by_idx(a)
        n += 1
print(json.dumps({"floor_s": time.perf_counter() - t0, "kernels": n, "rss_mb": rss_mb()}))
"""

KEYS = """
p = plain(path)
from kernelscope.tui.report_loader import summary_metrics
from kernelscope.parsers.ncu import open_ncu_report
t0 = time.perf_counter()
report = open_ncu_report(p, extra_metrics=summary_metrics())
n = 0
for batch in report.iter_summaries():
    n += len(batch)
print(json.dumps({"keys_s": time.perf_counter() - t0, "kernels": n, "rss_mb": rss_mb()}))
"""

TUI = """
import asyncio, statistics
from kernelscope.tui.app import create_app
from kernelscope.tui.bench_probe import first_rows_shown, all_rows_loaded, open_first_kernel, press_next

async def main():
    t0 = time.perf_counter()
    app = create_app(__import__("pathlib").Path(path))
    async with app.run_test(size=(120, 36)) as pilot:
        await first_rows_shown(app, pilot)
        shown = time.perf_counter() - t0
        await all_rows_loaded(app, pilot)
        loaded = time.perf_counter() - t0
        await open_first_kernel(app, pilot)
        lat = []
        for _ in range(20):
            lat.append(await press_next(app, pilot))
    print(json.dumps({"shown_s": shown, "tui_loaded_s": loaded,
                      "next_ms": statistics.median(lat) * 1e3, "next_max_ms": max(lat) * 1e3,
                      "rss_mb": rss_mb()}))
asyncio.run(main())
"""


def run(snippet: str, path: Path) -> dict[str, float]:
    code = PRELUDE.format(root=str(ROOT), path=str(path)) + snippet
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"benchmark step failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    floor = run(FLOOR, path)
    keys = run(KEYS, path)
    tui = run(TUI, path)
    rows = [
        ("kernels in report", f"{floor['kernels']}", ""),
        ("floor: open every kernel (ncu_report alone)", f"{floor['floor_s']:.2f} s", ""),
        ("key metrics of all kernels (model)", f"{keys['keys_s']:.2f} s",
         f"≤ 1.2× floor ({keys['keys_s'] / floor['floor_s']:.2f}×)"),
        ("TUI: kernel list shows", f"{tui['shown_s']:.2f} s", "≤ 1 s"),
        ("TUI: all key metrics loaded", f"{tui['tui_loaded_s']:.2f} s", ""),
        ("TUI: next-kernel keystroke (median / max)",
         f"{tui['next_ms']:.0f} / {tui['next_max_ms']:.0f} ms", "≤ 50 ms"),
        ("TUI: peak RSS", f"{tui['rss_mb']:.0f} MB", "≤ 400 MB"),
    ]
    w = max(len(r[0]) for r in rows)
    print(f"report: {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    print(f"{'measure':<{w}}  {'value':>14}  target")
    print(f"{'-' * w}  {'-' * 14}  {'-' * 20}")
    for name, value, target in rows:
        print(f"{name:<{w}}  {value:>14}  {target}")


if __name__ == "__main__":
    main()
