"""One kernel, one answer: the Diagnosis pane's view object, ``kernelscope summary``, the
Markdown export and the MCP kernel answer give a kernel the same bottleneck label, share of
the time and top flag, on every committed sample (here) and every third-party report
(``tests/wild/test_one_answer_wild.py``).

Each report's largest families are checked by their median launch (the launch ``summary``
and the Markdown speak for): the pane reads the detail as the TUI's detail screen does
(``NcuReport.detail``) among the report's kernels as the TUI's analysis holds them;
``summary`` its family rows; the Markdown its family table and each record's Diagnosis; MCP
the kernel's entry.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kernelscope.core.shares import fmt_pct, fmt_share
from kernelscope.kinds.ncu.analysis.kernel_analysis import analyze, open_for_analysis
from kernelscope.kinds.ncu.analysis.report_analysis import ReportAnalysis
from kernelscope.kinds.ncu.analysis.summary_stream import stream_summary
from kernelscope.kinds.ncu.export.ncu_answers import kernel_entry
from kernelscope.kinds.ncu.export.ncu_summary import family_rows
from kernelscope.kinds.ncu.render.flag_cells import top_flag_text
from kernelscope.kinds.ncu.screens.diagnosis_view import DiagnosisPaneView
from tests.conftest import NCU_SAMPLES
from tests.exports import export_text

FAMILIES = 4
"""The largest families of a report whose median launches are compared."""
SAMPLES = sorted(NCU_SAMPLES.glob("*.ncu-rep.xz"))
_CELL = re.compile(r"(?<!\\)\|")


def _table(markdown: str) -> list[dict[str, str]]:
    """The Markdown's family table, a dict per row by column title."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines)
                 if line.startswith("| # |") and "| Kernel |" in line)
    head = [c.strip() for c in _CELL.split(lines[start])[1:-1]]
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append(dict(zip(head, (c.strip() for c in _CELL.split(line)[1:-1]), strict=True)))
    return rows


def _record_labels(markdown: str) -> dict[int, str]:
    """Each case record's kernel ID and the label its Diagnosis section leads with."""
    found = {}
    for part in markdown.split("\n## Kernel Profiling Case: ")[1:]:
        kernel_id = re.search(r"\(ID (\d+)[,)]", part.splitlines()[0])
        label = re.search(r"^### Diagnosis\n- \*\*(.+?)\*\*", part, re.M)
        assert kernel_id and label, part[:200]
        found[int(kernel_id.group(1))] = label.group(1).replace("\\", "")
    return found


def _percent(share: float | None) -> float | None:
    return None if share is None else 100 * share


def check_one_answer(path: Path) -> None:
    markdown = export_text(path, "md", FAMILIES)
    table, records = _table(markdown), _record_labels(markdown)
    with open_for_analysis(path) as report:
        analyzed = analyze(report)
        chosen = list(analyzed.families)[:FAMILIES]
        summary_rows, _ = family_rows(stream_summary(report), chosen)
        pane = DiagnosisPaneView(ReportAnalysis.read(report))  # the report as the TUI holds it
        for family, row, md_row in zip(chosen, summary_rows, table, strict=False):
            kernel_id = family.representative
            where = f"{path.name} kernel {kernel_id}"
            reading = pane.read(report.detail(kernel_id))
            answer = kernel_entry(analyzed, kernel_id)
            measured = analyzed.kernel(kernel_id).summary.measured
            labels = {"pane": reading.label, "mcp": answer["bottleneck"]["label"],
                      "markdown record": records.get(kernel_id),
                      "markdown table": md_row["Bottleneck"].partition(" (")[0],
                      "summary": row["bottleneck"].partition(" (")[0]}
            assert len(set(labels.values())) == 1, (where, labels)
            step0 = [e["value"] for e in answer["bottleneck"]["evidence"] if e["step"] == "time"]
            assert (step0 or [None]) == [reading.share], (where, step0, reading.share)
            # Each view writes the share in its own precision: ``summary`` 46.33, Markdown 46.3 %.
            shares = {"summary": (row["share"], fmt_pct(_percent(reading.share))),
                      "markdown": (md_row["Share"], fmt_share(reading.share))}
            assert all(shown == pane for shown, pane in shares.values()), (where, shares)
            if measured:  # else the cells say why it has no measurement
                top = answer["top_flag"]  # the JSON export's: id, severity, the rule that chose it
                mcp = "—" if top is None else f"{top['id']} ({top['severity']})"
                flags = {"pane": top_flag_text(reading.diagnosis), "mcp": mcp,
                         "summary": row["flag"], "markdown": md_row["Top flag"]}
                assert len(set(flags.values())) == 1, (where, flags)


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name.split(".")[0] for p in SAMPLES])
def test_every_view_gives_a_sample_kernel_one_answer(path: Path) -> None:
    check_one_answer(path)

