"""Every third-party Nsight Systems export in ``../shared/wild/nsys`` (nsys 2020.5 to 2026.2)
against ``nsys stats``/``nsys analyze``: every summary and rule nsys printed, the rules nsys
found empty, the capture span, and the devices and version the file names."""

from __future__ import annotations

import io
import json
import re
import sqlite3
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from kernelscope.export.summary import print_summary
from kernelscope.kinds.nsys.model.opener import open_report
from kernelscope.timeline.analysis import nsys_rules as rules
from kernelscope.timeline.model.model import TimelineReport
from tests.exports import export_text
from tests.nsys.oracle import STATS_REPORTS, assert_rule_matches, assert_summary_matches
from tests.nsys.test_findings_vs_oracle import OURS as RULES
from tests.nsys.test_summaries_vs_oracle import OURS as SUMMARIES
from tests.wild.conftest import provenance, wild_files
from tests.wild.oracles import analyze_status, nsys_csv

NAMES = wild_files("nsys")


@cache
def _opened(path: str) -> TimelineReport:
    return open_report(path)


@pytest.fixture
def report(wild_plain: Callable[[str, str], Path], name: str) -> TimelineReport:
    return _opened(str(wild_plain("nsys", name)))


def _stem(name: str) -> str:
    return name.removesuffix(".sqlite.xz")


@pytest.mark.parametrize("summary", STATS_REPORTS)
@pytest.mark.parametrize("name", NAMES)
def test_summaries_equal_nsys_stats(report, name, summary) -> None:
    ours = SUMMARIES[summary](report)
    expected = nsys_csv(_stem(name), summary)
    if expected is None:
        # nsys stats wrote nothing: the export has none of that data.
        if summary == "cuda_gpu_kern_sum":
            assert report.kernels.height == 0
        return
    if not expected:
        assert ours.height == 0
        return
    assert_summary_matches(ours, expected, summary)


@pytest.mark.parametrize("rule", sorted(RULES))
@pytest.mark.parametrize("name", NAMES)
def test_findings_equal_nsys_analyze(report, name, rule) -> None:
    status = analyze_status(_stem(name)).get(rule, "absent")
    ours = RULES[rule](report)
    expected = nsys_csv(_stem(name), rule)
    if status.startswith("skipped") and "does not contain the required" not in status:
        # nsys skips the rule on this schema (e.g. no ENUM_CUDA_MEM_KIND table): nothing to
        # compare with; kernelscope still runs it on what the export holds.
        return
    if status in ("empty", "absent") or status.startswith("skipped") or not expected:
        assert ours.height == 0, f"nsys analyze found no {rule} problem ({status})"
        return
    assert_rule_matches(ours, expected, rules.RULE_COLUMNS[rule])


def _analysis(path: Path) -> tuple[int, int, int] | None:
    with sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        if "ANALYSIS_DETAILS" not in tables:
            return None
        return conn.execute(
            "SELECT min(startTime), max(stopTime), max(duration) FROM ANALYSIS_DETAILS"
        ).fetchone()


@pytest.mark.parametrize("name", NAMES)
def test_span_is_within_the_capture(report, name, wild_plain) -> None:
    analysis = _analysis(wild_plain("nsys", name))
    assert report.start_ns <= report.end_ns
    if analysis is not None:
        assert report.duration_ns <= analysis[2]
    for frame in (report.kernels, report.memcpy, report.memset, report.cuda_api, report.osrt):
        if frame.height:
            assert frame["start"].min() >= report.start_ns
            assert frame["end"].max() <= report.end_ns
    for dev in report.gpu_ops["device_id"].unique().to_list():
        busy = report.device_busy[dev]
        assert busy.busy_between(report.start_ns, report.end_ns) <= report.duration_ns


def _sm_counts(path: Path) -> dict[int, int]:
    """Device id -> SM count as the file's own tables state it (either schema)."""
    out: dict[int, int] = {}
    with sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True) as conn:
        for table, id_col, sm_col in (("TARGET_INFO_GPU", "id", "smCount"),
                                      ("TARGET_INFO_CUDA_GPU", "deviceId", "numMultiprocessors")):
            cols = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
            if {id_col, sm_col} <= cols:
                for dev, sms in conn.execute(f"SELECT {id_col}, {sm_col} FROM {table}"):
                    if sms is not None:
                        out.setdefault(dev, sms)
    return out


@pytest.mark.parametrize("name", NAMES)
def test_devices_version_and_cuda_trace_are_read(report, name, wild_plain) -> None:
    for dev in report.devices:
        assert dev.sm_count == _sm_counts(wild_plain("nsys", name)).get(dev.id)
    row = provenance()[name]
    names = {d.name for d in report.devices}  # the devices the trace used (or, with no GPU
    gpus = [g.strip() for g in row["gpu"].split(",") if g.strip() not in ("", "-")]  # work, all)
    if gpus:
        for n in names:
            assert any(n.startswith(g) or g.startswith(n) for g in gpus), (n, gpus)
        assert not any(re.fullmatch(r"GPU \d+", n) for n in names), names
    marked = re.fullmatch(r"(\S+) \((META_DATA_EXPORT|EXPORT_META_DATA)\)", row["version"])
    if marked:
        assert report.nsys_version == marked.group(1)
    cuda = any(t.startswith("CUPTI_ACTIVITY_KIND_") for t in report.tables)
    assert report.has_cuda_trace == cuda


@pytest.mark.parametrize("name", NAMES)
def test_summary_prints_without_nan(name, wild_plain) -> None:
    out = io.StringIO()
    print_summary(wild_plain("nsys", name), file=out)
    text = out.getvalue()
    assert "nan" not in text.lower().replace("nanosleep", "")
    if "no CUDA trace" in text:
        assert " 0 kernels" in text


@pytest.mark.parametrize("name", NAMES)
def test_every_format_exports(name, wild_plain) -> None:
    """Markdown, JSON and CSV of every third-party trace render; a trace without kernels says
    so in one sentence instead of an empty kernel table."""
    path = wild_plain("nsys", name)
    texts = {fmt: export_text(path, fmt) for fmt in ("md", "json", "csv")}
    assert json.loads(texts["json"])
    assert texts["csv"].startswith("Time (%),Total Time (ns)")
    markdown = texts["md"]
    assert "## Kernels" in markdown
    if _opened(str(path)).kernels.height == 0:
        assert "The trace holds no kernel launches.\n" in markdown
        assert "Top 0 of 0" not in markdown
    else:
        assert "kernel names by total time." in markdown
