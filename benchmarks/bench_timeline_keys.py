"""The timeline's keys on a large trace: from a key to the repainted screen (issue 18).

Usage: python benchmarks/bench_timeline_keys.py [--kernels 300000] [--width 200] [--sample NAME]

Builds a trace of at least ``--kernels`` kernels by replicating every CUDA row of a sample
(``bench_nsys.replicate``: kernels, copies, memsets, API calls, time-shifted), opens it in the
real app (the real opener: SQLite read, cache, analysis), shows the Timeline view in a
``width`` x 50 terminal, and presses each key as the terminal driver posts it, at a person's
pace. Each key's latency runs from posting the key until the first screen update after it has
been written to a terminal-sized console (headless Textual computes updates but writes them
nowhere). Median and worst of each key's presses (a press that repaints nothing within 2 s
is left out). Target: every key <= 50 ms at 200 columns.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import lzma
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench_nsys import SAMPLES, replicate
from bytecode import compile_package

KEYS = ("i", "i", "o", "l", "h", "g", "g", "G", "right", "left", "down", "up", "0")
ROUNDS = int(os.environ.get("ROUNDS", "5"))
TARGET_MS = 50.0


async def drive(path: Path, cache: Path, width: int) -> dict[str, list[float]]:
    from rich.console import Console
    from textual import events

    from kernelscope.timeline.screens.timeline import TimelineScreen
    from kernelscope.timeline.screens.timeline_views import TimelinePane
    from kernelscope.tui.app import create_app

    app = create_app(path, cache_dir=cache)
    async with app.run_test(size=(width, 50)) as pilot:
        end = time.perf_counter() + 300
        while not (isinstance(app.screen, TimelineScreen) and app.screen.data is not None):
            if time.perf_counter() > end:
                raise SystemExit("the trace did not open in 300 s")
            await pilot.pause(0.05)
        for _ in range(600):  # the Timeline view (its key works once the views are up)
            await pilot.press("2")
            await pilot.pause(0.05)
            if isinstance(app.focused, TimelinePane):
                break
        else:
            raise SystemExit("the Timeline view did not take the focus")
        await pilot.pause(0.5)
        console = Console(width=width, height=50, file=io.StringIO(), color_system="truecolor")
        painted: list[float] = []
        real_display = app._display

        def display(screen, renderable) -> None:  # type: ignore[no-untyped-def]
            real_display(screen, renderable)
            if renderable is not None:
                console.print(renderable)
                painted.append(time.perf_counter())

        app._display = display  # type: ignore[method-assign]
        latency: dict[str, list[float]] = {key: [] for key in KEYS}
        for _ in range(ROUNDS):
            for key in KEYS:
                await asyncio.sleep(0.15)
                painted.clear()
                t = time.perf_counter()
                app.post_message(events.Key(key, key if len(key) == 1 else None))
                limit = t + 2
                while not painted and time.perf_counter() < limit:
                    await asyncio.sleep(0.001)
                if painted:  # (a key that changes nothing repaints nothing: not counted)
                    latency[key].append((painted[0] - t) * 1000)
    return latency


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernels", type=int, default=300_000)
    ap.add_argument("--width", type=int, default=200)
    ap.add_argument("--sample", default="gpu_metrics")
    args = ap.parse_args()
    compile_package()
    with tempfile.TemporaryDirectory(prefix="bench-timeline-keys-") as name:
        tmp = Path(name)
        sample = tmp / f"{args.sample}.sqlite"
        with lzma.open(SAMPLES / f"{args.sample}.sqlite.xz") as src, open(sample, "wb") as dst:
            shutil.copyfileobj(src, dst)
        big = tmp / "big.sqlite"
        kernels = replicate(sample, big, args.kernels)
        latency = asyncio.run(drive(big, tmp / "cache", args.width))
    print(f"({kernels:,} kernels, {args.width} columns; {ROUNDS} presses a key, median / worst)")
    print("| key | median | worst | target |")
    print("| --- | ---: | ---: | --- |")
    for key, values in latency.items():
        if not values:
            print(f"| `{key}` | no repaint | | |")
            continue
        verdict = "met" if max(values) <= TARGET_MS else "missed"
        print(f"| `{key}` | {statistics.median(values):.1f} ms | {max(values):.1f} ms | "
              f"≤ {TARGET_MS:.0f} ms: {verdict} |")


if __name__ == "__main__":
    main()
