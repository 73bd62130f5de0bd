"""Bad or partial input gives fewer flags and a note of what was missing, never an exception."""

from __future__ import annotations

import json

from kernelscope.kinds.ncu.analysis.diagnosis import LABELS, diagnose
from kernelscope.kinds.ncu.model import Metric
from tests.diagnosis.conftest import find, kernels_of


def m(name: str, value: object, unit: str = "") -> Metric:
    return Metric(name=name, value=value, unit=unit)  # type: ignore[arg-type]


def metrics(**values: object) -> dict[str, Metric]:
    return {name: m(name, v) for name, v in values.items()}


def test_empty_mapping_is_undetermined_with_its_reason() -> None:
    d = diagnose({}, (), ())
    assert d.label == "undetermined"
    assert d.flags == ()
    assert d.bottleneck.summary.endswith(".") and "no timing" in d.bottleneck.summary
    json.dumps(d.to_dict(), allow_nan=False)


def test_all_nan_kernel_is_undetermined_never_balanced() -> None:
    fake = metrics(
        **{
            "gpu__time_duration.sum": float("nan"),
            "sm__throughput.avg.pct_of_peak_sustained_elapsed": float("nan"),
            "launch__grid_size": 80,
        }
    )
    d = diagnose(fake, (), ("SpeedOfLight", "LaunchStats"))
    assert d.label == "undetermined"
    assert "failed" in d.bottleneck.summary
    assert d.flags == ()


def test_only_duration_is_measured_but_undetermined_with_what_to_collect() -> None:
    d = diagnose(metrics(**{"gpu__time_duration.sum": 10_000.0}))
    assert d.label == "undetermined"
    assert "SpeedOfLight" in d.bottleneck.collect  # measured, so the reason is what is missing
    assert "no timing" not in d.bottleneck.summary


def test_zero_duration_kernel_from_a_fake_mapping() -> None:
    fake = {
        "gpu__time_duration.sum": m("gpu__time_duration.sum", 0, "ns"),
        "sm__throughput.avg.pct_of_peak_sustained_elapsed": m(
            "sm__throughput.avg.pct_of_peak_sustained_elapsed", 0.0, "%"
        ),
        "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed": m(
            "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", float("nan"), "%"
        ),
        "launch__grid_size": m("launch__grid_size", 1),
        "launch__sm_count": m("launch__sm_count", 132),
    }
    d = diagnose(fake, (), ("SpeedOfLight", "LaunchStats"))
    assert d.label == "undetermined"
    assert d.flags == ()
    assert "zero duration" in d.notes[0]
    json.dumps(d.to_dict(), allow_nan=False)


def test_text_and_non_finite_values_are_ignored() -> None:
    fake = metrics(
        **{
            "gpu__time_duration.sum": 10_000.0,
            "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed": "n/a",
            "sm__throughput.avg.pct_of_peak_sustained_elapsed": float("inf"),
            "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": None,
        }
    )
    d = diagnose(fake)
    assert d.label in LABELS
    assert not d.has_flag("dram-bandwidth-saturated")


def test_sections_missing_are_named_in_notes() -> None:
    k = find("zoo_a", "strided_gather")
    sections = set(k.summary.sections) - {"SourceCounters"}
    source_only = {
        "derived__memory_l2_theoretical_sectors_global_excessive",
        "sass__inst_executed_register_spilling",
    }
    kept = {name: metric for name, metric in k.summary.metrics.items() if name not in source_only}
    d = diagnose(kept, k.summary.rules, sections)
    assert any("SourceCounters not collected" in note for note in d.notes)
    flag = d.flag("uncoalesced-global-access")
    assert flag is not None  # the memory tables still show the 4-of-32 bytes
    assert all("excessive" not in e.metric for e in flag.evidence)


def test_a_metrics_only_report_runs_every_check_its_metrics_allow() -> None:
    """ncu --metrics: the launch and occupancy metrics without their sections. Every check
    they allow runs, and "not collected" is said only of what is absent."""
    k = find("zoo_a", "strided_gather")
    sections = {"SpeedOfLight"}
    d = diagnose(k.summary.metrics, k.summary.rules, sections)
    for section in ("LaunchStats", "Occupancy", "WarpStateStats", "MemoryWorkloadAnalysis_Tables"):
        assert not any(f"Section {section} not collected" in note for note in d.notes), section
    for flag_id in ("grid-too-small", "tail-effect", "low-occupancy", "occupancy-limiter"):
        assert flag_id not in d.skipped, flag_id
    bare = {name: m for name, m in k.summary.metrics.items() if not name.startswith("sm__warps")
            and not name.startswith("sm__maximum_warps")}
    d = diagnose(bare, k.summary.rules, sections)
    assert any("Section Occupancy not collected" in note for note in d.notes)


def test_speed_of_light_only_view_of_a_real_kernel() -> None:
    """What a basic-set report gives: launch, occupancy and SOL metrics, nothing else."""
    k = find("zoo_a", "saxpy_f4")
    basic = {
        name: metric
        for name, metric in k.summary.metrics.items()
        if name.startswith(
            (
                "launch__",
                "gpu__",
                "sm__throughput",
                "sm__warps_active",
                "sm__maximum_warps",
                "l1tex__throughput",
                "lts__throughput",
            )
        )
    }
    sections = ("LaunchStats", "Occupancy", "SpeedOfLight", "WorkloadDistribution")
    d = diagnose(basic, (), sections)
    assert d.label == "dram-bound"
    full = k.diagnosis
    assert len(d.flags) < len(full.flags)
    assert d.has_flag("dram-bandwidth-saturated")
    assert "long-scoreboard-stalls" in d.skipped
    assert any("WarpStateStats not collected" in note for note in d.notes)
    assert d.roofline is not None and not d.roofline.points


def test_time_share_is_the_first_evidence_and_small_share_noted() -> None:
    k = find("zoo_a", "mm_naive")
    d = diagnose(k.summary.metrics, k.summary.rules, k.summary.sections, time_share=0.004)
    assert d.bottleneck.evidence[0].step == "time"
    assert "0.40%" in d.notes[0]


def test_real_default_set_report_has_labels_fewer_flags_and_notes() -> None:
    full = {f.id for k in kernels_of("zoo") for f in k.diagnosis.flags}
    for k in kernels_of("many_launches"):
        d = k.diagnosis
        assert d.label in LABELS
        assert sorted(k.summary.sections) == [
            "LaunchStats",
            "Occupancy",
            "SpeedOfLight",
            "WorkloadDistribution",
        ]
        assert any("WarpStateStats not collected" in note for note in d.notes)
        assert {"long-scoreboard-stalls", "uncoalesced-global-access"} <= set(d.skipped)
        assert {f.id for f in d.flags} <= {
            "short-kernel",
            "grid-too-small",
            "tail-effect",
            "low-occupancy",
            "occupancy-limiter",
            "dram-bandwidth-saturated",
            "l1tex-pressure",
        }
        assert d.roofline is not None and not d.roofline.points
        json.dumps(d.to_dict(), allow_nan=False)
    assert len(full) > 8
