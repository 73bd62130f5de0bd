"""Units of Nsight Compute metrics as NCU's raw page prints them, without ncu_report.

A report stores no units: NCU takes them from its metric tables, which follow the names. A
hardware metric is `unit__counter.rollup.submetric` (`sm__inst_executed.avg.per_cycle_active`):
the counter's words give its unit (`cycles`, `bytes`, `sectors`, `inst`, `warps`, ...), the
rollup (`sum`, `avg`, `max`, `min`) keeps it, and the submetric transforms it: percentages of a
peak and `.pct` are `%`, `.per_second` divides by seconds (cycles per second are `hz`),
`.per_cycle_*` and `.peak_sustained*` divide by cycles (cycles per cycle have no unit). Where
the words mislead and for the metrics without that structure (launch, device, profiler, derived
and source-level metrics), `units_table` holds the facts.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping

from kernelscope.kinds.ncu.model import units_table as table

_ROLLUPS = ("sum", "avg", "max", "min")
_NEWEST_NCU = (9999,)


def unit_for(
    metric_name: str,
    value: object,
    *,
    ncu_version: tuple[int, ...] | None = None,
    names_in_result: Container[str] | None = None,
) -> str:
    """The unit `ncu --page raw --print-units base` prints for this metric ('' for none).

    `value` is the metric's decoded value: a string has no unit. `ncu_version` is the version
    of the Nsight Compute that wrote the report (`(2025, 1, 0, 0)`; `(2019,)` for a report of
    the pre-2020 format, which stores no version); None reads as the newest. `names_in_result`
    are the names of the metrics of the same result (None: not known), for the derived metrics
    whose printed unit depends on the others (see `units_table`).
    """
    if isinstance(value, str):
        return ""
    name = metric_name_in_report(metric_name)
    version = ncu_version or _NEWEST_NCU
    if version < table.FIRST_VERSION_WITH_UNITS:
        return table.UNITS_IN_PRE_2020_REPORTS.get(name, "")
    if name.startswith(table.THEORETICAL_OPERATION_PREFIXES):
        beside_thread_average = (
            names_in_result is None or table.THREAD_UNIT_WITNESS in names_in_result
        )
        return "thread" if beside_thread_average else "inst"
    versioned = table.METRIC_UNITS_SINCE_VERSION.get(name)
    if versioned is not None:
        since, newer, older = versioned
        return newer if version >= since else older
    return _unit_by_name(name)


def _listed_unit(
    name: str, exact: Mapping[str, str], prefixes: Iterable[tuple[str, str]]
) -> str | None:
    """The unit a table gives ``name``: by its exact name, else by its first matching prefix."""
    if name in exact:
        return exact[name]
    return next((unit for prefix, unit in prefixes if name.startswith(prefix)), None)


def _unit_by_name(name: str) -> str:
    listed = _listed_unit(name, table.METRIC_UNITS, table.METRIC_PREFIX_UNITS)
    if listed is not None:
        return listed
    if name.startswith(table.FAMILIES_WITHOUT_UNIT):
        return ""
    counter, _, submetric = name.partition(".")
    if not submetric:
        return counter_unit(counter)
    return unit_of_submetric(counter, submetric)


def metric_name_in_report(metric_name: str) -> str:
    """The metric's own name, without a PM-sampling or section-instance prefix."""
    name = metric_name.rpartition(":")[2]
    parts = name.split(".")
    for index, part in enumerate(parts):
        if "__" in part:
            return ".".join(parts[index:])
    return name


def counter_unit(counter: str) -> str:
    """The unit of a counter's plain value (its `.sum`, `.avg`, `.max`, `.min`)."""
    listed = _listed_unit(counter, table.COUNTER_UNITS, table.COUNTER_PREFIX_UNITS)
    if listed is not None:
        return listed
    if counter.endswith("_pct"):
        return "%"
    words = counter.partition("__")[2].split("_")
    return next((table.WORD_UNITS[word] for word in words if word in table.WORD_UNITS), "")


def unit_of_submetric(counter: str, submetric: str) -> str:
    """The unit of `counter.submetric`, from the counter's unit and NCU's naming conventions."""
    rollup, _, rest = submetric.partition(".")
    if rollup not in _ROLLUPS:
        return _unit_of_counter_submetric(counter, submetric)
    base = counter_unit(counter)
    if rest.startswith("pct_of_peak_sustained"):
        return "%"
    if rest.endswith("per_second"):
        return per_second(base)
    if rest.startswith(("per_cycle", "peak_sustained")):
        return per_cycle(base)
    return base


def _unit_of_counter_submetric(counter: str, submetric: str) -> str:
    if submetric == "pct":
        return "%"
    if submetric in ("ratio", "max_rate"):
        for prefix, unit in table.RATIO_PREFIX_UNITS:
            if counter.startswith(prefix):
                return unit
    return ""


def per_second(unit: str) -> str:
    """`unit` per second: cycles per second are hertz."""
    if unit == "cycle":
        return "hz"
    return f"{unit}/s" if unit else ""


def per_cycle(unit: str) -> str:
    """`unit` per cycle: cycles per cycle have no unit; warps are counted per cycle already."""
    if unit == "cycle" or not unit:
        return ""
    if unit in table.UNITS_ALREADY_PER_CYCLE:
        return unit
    return f"{unit}/cycle"
