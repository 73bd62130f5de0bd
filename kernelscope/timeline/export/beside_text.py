"""The what-if's families kept as measured though they ran beside the changed work
(``critical_path/beside.py``), as JSON rows and a Markdown section."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from kernelscope.core.durations import fmt_ns
from kernelscope.core.units import EMPTY_CELL
from kernelscope.export.markdown import table
from kernelscope.timeline.analysis.critical_path.beside import BESIDE_SCHEMA, MIN_LAUNCHES
from kernelscope.timeline.analysis.critical_path.whatif import WhatIf

NameOf = Callable[[str | None], str | None]
CLOCKS = ("away_clock_mhz", "beside_clock_mhz", "top_clock_mhz")
LOWER_CLOCK = 0.95
"""A clock beside the changed work under this share of the GPU's top is named."""


def _beside(answer: WhatIf) -> pl.DataFrame:
    return answer.beside if answer.beside is not None else pl.DataFrame(schema=BESIDE_SCHEMA)


def beside_rows(answer: WhatIf, name_of: NameOf) -> list[dict[str, Any]]:
    """JSON ``beside_changed``: each family's row with its short name, clocks to 0.1 MHz."""
    rows = _beside(answer).with_columns(pl.col(CLOCKS).round(1)).to_dicts()
    return [{**row, "short_name": name_of(row["name"])} for row in rows]


def beside_markdown(answer: WhatIf, name_of: NameOf) -> list[str]:
    """The section on the families kept as measured beside the changed work (none: no
    lines)."""
    beside = _beside(answer)
    if not beside.height:
        return []
    clocked = bool(beside["beside_clock_mhz"].is_not_null().any())
    lines = ["", "## Kept as measured, beside the changed work", "",
             "These are on the predicted path and the prediction keeps their measured times, "
             "yet they ran beside the work it changes. Kernels that share a GPU slow each other "
             "(its SMs, its memory bandwidth, and its clock when it runs at its power limit): "
             f"{_effect(answer)}. A re-run with the change decides"
             + ("." if clocked else "; `nsys --gpu-metrics-devices=all` records the GPU's "
                "clock."), "",
             table(["Family", "On the predicted path", "Beside the changed work",
                    "Launches away from it", "Launches beside it",
                    *(["GPC clock away · beside · top"] if clocked else [])],
                   (_cells(row, name_of, clocked) for row in beside.iter_rows(named=True)),
                   "lrrrrr")]
    if beside["away_median_ns"].null_count():
        lines += ["", f"{EMPTY_CELL}: fewer than {MIN_LAUNCHES} launches of the family ran "
                  "away from the changed work, so the trace cannot say how long it takes "
                  "alone."]
    lines += _clock_sentences(beside, name_of)
    return lines


def _effect(answer: WhatIf) -> str:
    factors = [c.faster.factor for c in answer.changes]
    if all(f > 1 for f in factors):
        return ("with that work shorter they may run faster, and the steps be shorter than "
                "predicted")
    if all(f < 1 for f in factors):
        return ("with that work longer they may run slower, and the steps be longer than "
                "predicted")
    return "with that work changed their times may change too"


def _cells(row: dict[str, Any], name_of: NameOf, clocked: bool) -> list[str]:
    away, beside = row["away_median_ns"], row["beside_median_ns"]
    slower = ""
    if away and beside is not None:
        slower = f" ({100.0 * (beside - away) / away:+.1f} %)"
    cells = [name_of(row["name"]) or EMPTY_CELL, fmt_ns(row["path_ns"]),
             f"{fmt_ns(row['beside_ns'])} of {fmt_ns(row['gpu_ns'])} "
             f"({100.0 * row['beside_ns'] / row['gpu_ns']:.0f} %)",
             _launches(row["away_launches"], away),
             _launches(row["beside_launches"], beside) + slower]
    if clocked:
        cells.append(" · ".join(_mhz(row[c]) for c in CLOCKS) + " MHz")
    return cells


def _clock_sentences(beside: pl.DataFrame, name_of: NameOf) -> list[str]:
    """One sentence per family whose launches beside the changed work ran at a clock well
    under the GPU's top."""
    lines = []
    for row in beside.iter_rows(named=True):
        clock, top = row["beside_clock_mhz"], row["top_clock_mhz"]
        if clock is None or not top or clock >= LOWER_CLOCK * top:
            continue
        lines += ["", f"Beside the changed work {name_of(row['name'])} ran at a GPC clock of "
                  f"{_mhz(clock)} MHz on average, {100.0 * (1 - clock / top):.0f} % under the "
                  f"GPU's top in this trace ({_mhz(top)} MHz, 95 % of its samples at or "
                  "under it): a kernel whose time the clock "
                  "sets (compute, not memory) runs that much slower, and the clock may rise "
                  "once the work beside it shrinks."]
    return lines


def _launches(count: int, median: int | None) -> str:
    return f"{count}, median {fmt_ns(median)}" if median is not None else f"{count}, {EMPTY_CELL}"


def _mhz(value: float | None) -> str:
    return EMPTY_CELL if value is None else f"{value:,.0f}"
