"""The Markdown exports are valid GitHub-flavoured Markdown with the record template filled."""

from __future__ import annotations

import io
import json
import re

import polars as pl
import pytest
from markdown_it import MarkdownIt

from kernelscope.export.markdown import cell, code, fenced, table
from kernelscope.export.summary import print_summary
from kernelscope.export.writer import ExportOptions, render
from kernelscope.kinds.ncu.export.ncu_markdown import FAMILY_COLUMNS
from kernelscope.kinds.ncu.model import open_ncu_report
from tests.conftest import NCU_SAMPLES, SAMPLES, ncu_sample_paths
from tests.exports import export_text

ZOO = NCU_SAMPLES / "zoo_a.ncu-rep.xz"
TIMELINE = SAMPLES / "nsys" / "zoo.sqlite.xz"
HEADINGS = (
    "### Launch",
    "### SOL",
    "### Occupancy",
    "### Memory",
    "### Compute",
    "### Scheduler",
    "### Source/SASS",
    "### Diagnosis",
    "### Change",
    "### Re-measure",
    "### Conclusion",
)


def parse_tables(text: str) -> list[list[list[str]]]:
    """Every table as rows of cell texts, as a GFM parser sees it."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    tables: list[list[list[str]]] = []
    row: list[str] | None = None
    for tok in tokens:
        if tok.type == "table_open":
            tables.append([])
        elif tok.type == "tr_open":
            row = []
        elif tok.type == "inline" and row is not None:
            row.append("".join(c.content for c in tok.children or ()))
        elif tok.type == "tr_close" and row is not None:
            tables[-1].append(row)
            row = None
    return tables


def assert_tables_well_formed(text: str, expected_min: int) -> list[list[list[str]]]:
    tables = parse_tables(text)
    assert len(tables) >= expected_min
    # Every pipe-table line in the source became a row: no row was swallowed or split.
    source_rows, in_fence = [], False
    for ln in text.splitlines():
        if ln.startswith("```"):
            in_fence = not in_fence
        elif not in_fence and ln.startswith("| ") and "| ---" not in ln:
            source_rows.append(ln)
    assert sum(len(t) for t in tables) == len(source_rows)
    for t in tables:
        widths = {len(r) for r in t}
        assert len(widths) == 1, widths
    return tables


@pytest.mark.parametrize("path", ncu_sample_paths(), ids=lambda p: p.name)
def test_kernel_markdown_tables_parse_and_records_follow_template(path):
    text = export_text(path, "md", 4)
    tables = assert_tables_well_formed(text, 1)
    families = tables[0]
    with open_ncu_report(path) as report:
        several = len(report.processes) > 1
        process = ["Process"] if several else []  # reports of several processes name each one's
        assert families[0] == [FAMILY_COLUMNS[0], *process, *FAMILY_COLUMNS[1:]]
        col = 3 if several else 2
        launches = sum(int(row[col].replace(",", "")) for row in families[1:])
        assert launches == report.kernel_count  # every launch in exactly one family
    records = text.count("## Kernel Profiling Case:")
    assert records == min(4, len(families) - 1)
    for heading in HEADINGS:
        assert text.count(heading + "\n") == records, heading
    assert "_(to fill in)_" in text
    assert "```text" in text and "roofline" in text


def _records(text: str) -> dict[str, str]:
    """Each record, keyed by the ID of the kernel it shows."""
    out = {}
    for chunk in text.split("\n## Kernel Profiling Case: ")[1:]:
        kid = re.match(r".*? \(ID (\d+)(?:, family of [\d,]+ launches)?\)\n", chunk)
        assert kid is not None
        out[kid.group(1)] = chunk
    return out


def test_records_rendered_by_worker_processes_equal_in_process_ones():
    """A whole-report export renders the records in worker processes during the pass that
    reads the report; --top renders a few afterwards in this process. Same records: one per
    family (1,000 launches of four kernels make four records, not 1,000)."""
    many = NCU_SAMPLES / "many_launches.ncu-rep.xz"
    whole = render(many, ExportOptions(fmt="md"))
    few = render(many, ExportOptions(fmt="md", top=2))
    whole_records, few_records = _records(whole), _records(few)
    assert len(whole_records) == 4 and len(few_records) == 2
    for kid, record in few_records.items():
        assert whole_records[kid] == record
    assert whole.split("## Roofline")[0] == few.split("## Roofline")[0]  # header, families


def test_timeline_markdown_tables_parse():
    text = render(TIMELINE, ExportOptions(fmt="md"))
    tables = assert_tables_well_formed(text, 3)
    assert tables[0][0] == ["Device", "Span", "Busy", "Utilisation"]
    assert "## Largest GPU idle gaps" in text and "## Findings" in text


def test_kernel_filter_and_top():
    text = render(ZOO, ExportOptions(fmt="md", pattern="^transpose"))
    assert text.count("## Kernel Profiling Case:") == 2
    text = render(ZOO, ExportOptions(fmt="md", top=1))
    cases = re.findall(r"## Kernel Profiling Case: (.*) \(ID (\d+)\)", text)
    assert len(cases) == 1
    with open_ncu_report(ZOO) as report:
        frame = report.key_frame()
    longest = frame.sort("duration_ns", descending=True)["id"][0]
    assert int(cases[0][1]) == longest


def test_pipes_and_backticks_are_escaped():
    nasty = "op<|`x`|>(int)"
    t = table(("Name", "N"), [(nasty, 1)])
    parsed = parse_tables(t)
    assert parsed == [[["Name", "N"], [nasty, "1"]]]
    assert cell("a\nb") == "a b"
    assert MarkdownIt().render(code("a`b")).count("<code>") == 1
    assert fenced("```inner```").startswith("````")


def test_csv_is_the_kernel_list():
    text = export_text(ZOO, "csv")
    frame = pl.read_csv(io.StringIO(text))
    with open_ncu_report(ZOO) as report:
        assert frame.height == report.kernel_count
        keys = report.key_frame()
    assert frame["id"].to_list() == keys["id"].to_list()
    assert frame["duration_ns"].to_list() == keys["duration_ns"].to_list()
    assert {"bottleneck", "flags", "top_flag", "time_share"} <= set(frame.columns)
    assert abs(frame["time_share"].sum() - 1.0) < 1e-9


def test_timeline_csv_is_the_kernel_summary():
    text = render(TIMELINE, ExportOptions(fmt="csv"))
    frame = pl.read_csv(io.StringIO(text))
    assert "Name" in frame.columns and "Instances" in frame.columns


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("path", [ZOO, TIMELINE], ids=["kernel", "timeline"])
def test_summary_plain_and_colour(path, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    plain = io.StringIO()
    print_summary(path, file=plain)
    assert "\x1b[" not in plain.getvalue()
    colour = _Tty()
    print_summary(path, file=colour)
    assert "\x1b[" in colour.getvalue()
    monkeypatch.setenv("NO_COLOR", "1")
    no_color = _Tty()
    print_summary(path, file=no_color)
    assert "\x1b[" not in no_color.getvalue()
    # NO_COLOR on a terminal: the same plain text, fitted to the terminal's width (80 here);
    # piped, nothing is cut.
    head = " ".join(plain.getvalue().splitlines()[0].split())
    assert head in " ".join(no_color.getvalue().split())
    assert max(map(len, no_color.getvalue().splitlines())) <= 80
    if path == ZOO:
        with open_ncu_report(ZOO) as report:
            for row in report.key_frame().iter_rows(named=True):
                assert row["name"] in plain.getvalue()
        assert "dram-bound" in plain.getvalue()
    else:
        assert "Top kernels by time" in plain.getvalue() and "Findings" in plain.getvalue()


def test_sectors_per_request_ideal_follows_the_access_width() -> None:
    """saxpy_f4's float4 loads: 16 sectors per request is ideal; the 4-byte gather touches 32
    where 4 would do (8× the ideal)."""
    text = export_text(ZOO, "md")
    assert "| Global load | 1,048,576 | 16,777,216 | 16.00 | 16.00 |" in text
    assert "| Global load | 2,097,152 | 67,108,864 | 32.00 (8× ideal) | 4.00 |" in text
    assert "16 for 16-byte (float4)" in text and "4 is ideal" not in text


def test_a_roofline_with_nothing_to_show_names_the_section(monkeypatch) -> None:
    """Default sections only: the chart, each record and the JSON say which section to
    collect, once each, beside the per-kernel reasons."""
    monkeypatch.chdir(SAMPLES.parent)
    path = (NCU_SAMPLES / "gemm_sets_default.ncu-rep.xz").relative_to(SAMPLES.parent)
    text = render(path, ExportOptions(fmt="md"))
    assert text.count("to plot them: ncu --section SpeedOfLight_RooflineChart (or --set "
                      "full)") == 1
    assert ("- roofline metrics not collected: `ncu --section SpeedOfLight_RooflineChart` "
            "(or `--set full`)") in text
    doc = json.loads(render(path, ExportOptions(fmt="json")))
    assert doc["report"]["roofline_collect"] == {
        "kernels": 4, "command": "ncu --section SpeedOfLight_RooflineChart", "or": "--set full"}
    full = json.loads(export_text(ZOO, "json"))
    assert full["report"]["roofline_collect"] is None
    assert "to plot them" not in export_text(ZOO, "md")
def test_checks_that_did_not_hold_are_apart_from_the_evidence() -> None:
    # issue 23: a grid that is not small is a check the method made, not a fact to print as
    # evidence of the label
    text = export_text(ZOO, "md")
    record = text[text.index("## Kernel Profiling Case: saxpy\\_f4 (ID 0)") :]
    lines = record[record.index("### Diagnosis") :].split("### Change")[0].splitlines()
    assert lines[1:5] == [
        "- **dram-bound**: DRAM bandwidth is the limit.",
        "  - sol: `gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed = 89.1 % (>= 70)` "
        "— holds",
        "  - checked, did not hold:",
        "    - launch: `launch__grid_size = 65,536 block (< 132) — launch__sm_count = 132`",
    ]
    assert "launch__sm_count = 132` — does not hold" not in text


def test_occupancy_stand_downs_are_stated_as_guard_rails() -> None:
    text = export_text(NCU_SAMPLES / "diag_pipe.ncu-rep.xz", "md")
    lines = text.splitlines()
    assert (
        "- guard rail `unit-saturated`: Occupancy is low but the SM is 100% busy: more resident "
        "warps cannot help a unit that is already full, so low occupancy is not this kernel's "
        "problem."
    ) in lines
    assert (
        "- **launch-bound**: The kernel leaves 66 of the 132 SMs without a block: on the SMs "
        "that have work the FMA pipe is 91% busy (compute-bound there), but the GPU-wide "
        "averages stay low because the other SMs get no block. More blocks (or concurrent "
        "work) first."
    ) in lines
