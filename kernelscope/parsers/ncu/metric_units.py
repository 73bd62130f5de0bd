"""The unit of a metric as NCU's raw page prints it (row 2 of ``--page raw --csv
--print-units base``): ``units.unit_for(name, value)``, NCU's naming conventions and a table
of facts (issue 25, written beside this reader).

Until that module is in the tree, the units are learnt once per report from ncu_report where
it is installed: a child process opens the report's first results, prints each metric's unit
and exits (so this process never loads the binding and its memory). Without either, a metric
has no unit ("").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

try:  # the conventions, once merged
    from kernelscope.parsers.ncu.units import (  # type: ignore[import-not-found]
        unit_for as _convention_unit,
    )
except ImportError:  # pragma: no cover - depends on the tree
    _convention_unit = None

_learnt: dict[str, str] = {}
_seen_reports: set[str] = set()
LEARN_RESULTS = 4
"""How many results the child reads to learn units (metric sets differ little between them)."""

_CHILD = r"""
import json, sys
import ncu_report
ctx = ncu_report.load_report(sys.argv[1])
units, seen = {}, 0
for r in range(ctx.num_ranges()):
    rng = ctx.range_by_idx(r)
    for a in range(rng.num_actions()):
        action = rng.action_by_idx(a)
        for name in action.metric_names():
            if name not in units:
                units[name] = action.metric_by_name(name).unit() or ""
        seen += 1
        if seen >= int(sys.argv[2]):
            break
    if seen >= int(sys.argv[2]):
        break
json.dump(units, sys.stdout)
"""


def conventions_available() -> bool:
    return _convention_unit is not None


def learn_units(path: str | os.PathLike[str]) -> None:
    """Learn the units of a report's metrics from ncu_report in a child process (only while
    the conventions module is absent; once per report; nothing when ncu_report is missing)."""
    key = str(Path(path).resolve())
    if _convention_unit is not None or key in _seen_reports:
        return
    _seen_reports.add(key)
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, key, str(LEARN_RESULTS)],
            capture_output=True, timeout=120, check=False,
        )
        units = json.loads(done.stdout or b"{}") if done.returncode == 0 else {}
    except (OSError, subprocess.SubprocessError, ValueError):
        units = {}
    for name, unit in units.items():
        _learnt.setdefault(str(name), str(unit))


def unit_for(name: str, value: object) -> str:
    """The unit NCU's raw page prints for the metric ``name`` holding ``value``."""
    if _convention_unit is not None:
        return str(_convention_unit(name, value))
    return _learnt.get(name, "")
