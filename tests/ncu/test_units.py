"""Metric units without ncu_report: `units.unit_for` against NCU's raw page.

The raw pages of our samples (`samples/ncu/oracle/*.raw.csv.xz`, `samples/big/*.raw.csv.xz`,
all `--print-units base`) are the truth; the third-party ones are checked in
`tests/wild/test_units_wild.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelscope.kinds.ncu.model.units import unit_for
from tests.conftest import NCU_ORACLE, SAMPLES
from tests.ncu.units_oracle import unit_mismatches

# samples/README.md: every sample report was written by ncu 2025.3.1.0.
SAMPLES_NCU_VERSION = (2025, 3, 1, 0)
RAW_PAGES = sorted(NCU_ORACLE.glob("*.raw.csv.xz")) + sorted(
    (SAMPLES / "big").glob("*.raw.csv.xz")
)


def test_every_sample_has_a_raw_page() -> None:
    assert len(RAW_PAGES) == 29


@pytest.mark.parametrize("path", RAW_PAGES, ids=lambda p: p.name)
def test_units_equal_the_raw_page(path: Path) -> None:
    checked, wrong = unit_mismatches(path, SAMPLES_NCU_VERSION)
    assert checked > 200
    assert wrong == [], f"{len(wrong)} of {checked} units differ:\n" + "\n".join(wrong[:40])


@pytest.mark.parametrize(
    ("name", "unit"),
    [
        ("sm__cycles_elapsed.avg", "cycle"),
        ("sm__cycles_elapsed.avg.per_second", "hz"),
        ("l1tex__lsu_writeback_active.sum.peak_sustained", ""),
        ("dram__bytes_read.sum.per_second", "byte/s"),
        ("lts__t_sectors_srcunit_tex_op_write.sum.per_cycle_elapsed", "sector/cycle"),
        ("sm__inst_executed.avg.per_cycle_active", "inst/cycle"),
        ("smsp__warps_active.avg.per_cycle_active", "warp"),
        ("gpu__time_duration.sum", "ns"),
        ("lts__t_sector_hit_rate.pct", "%"),
        ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%"),
        ("smsp__thread_inst_executed_per_inst_executed.ratio", ""),
        ("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", "inst"),
        ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", ""),
        ("lts__t_requests_srcunit_tex_op_read.sum", "request"),
        ("smsp__imc_requests.sum", "cycle"),
        ("smsp__pcsamp_warps_issue_stalled_long_scoreboard", "warp"),
        ("smsp__pcsamp_warps_issue_stalled_no_instructions", "inst"),
        ("pmsampling:sm__ctas_launched.sum", "block"),
        ("TPC.TriageCompute.sm__cycles_active.avg", "cycle"),
        ("launch__registers_per_thread", "register/thread"),
        ("launch__shared_mem_per_block_static", "byte/block"),
        ("launch__grid_size", ""),
        ("device__attribute_max_warps_per_multiprocessor", ""),
        ("memory_l2_theoretical_sectors_global", "sectors"),
        ("derived__pct_occupancy_per_register_count", "%/register"),
    ],
)
def test_units_by_convention(name: str, unit: str) -> None:
    assert unit_for(name, 1.0) == unit


def test_a_string_value_has_no_unit() -> None:
    assert unit_for("launch__func_cache_config", "CachePreferNone") == ""
    assert unit_for("gpu__time_duration.sum", "n/a") == ""


def test_units_that_changed_with_the_ncu_version() -> None:
    name = "derived__memory_l2_theoretical_sectors_global_excessive"
    assert unit_for(name, 0.0, ncu_version=(2025, 3, 1, 0)) == "sector"
    assert unit_for(name, 0.0, ncu_version=(2025, 1, 0, 0)) == "byte"
    assert unit_for(name, 0.0) == "sector"


def test_pre_2020_reports_name_units_only_for_what_ncu_computes() -> None:
    assert unit_for("gpu__time_duration", 1.0, ncu_version=(2019,)) == ""
    assert unit_for("launch__thread_count", 1.0, ncu_version=(2019,)) == ""
    assert unit_for("launch__occupancy_limit_warps", 1.0, ncu_version=(2019,)) == "block"
    assert unit_for("launch__thread_count", 1.0, ncu_version=(2020, 2, 1, 0)) == "thread"


def test_theoretical_operations_print_thread_beside_the_thread_average() -> None:
    name = "derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2"
    with_average = {name, "derived__avg_thread_executed"}
    assert unit_for(name, 2.0, names_in_result=with_average) == "thread"
    assert unit_for(name, 2.0, names_in_result={name}) == "inst"
    assert unit_for(name, 2.0) == "thread"
