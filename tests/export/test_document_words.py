"""What a shared document says: counts with the right plural, no "−0.0 %", none of the TUI's
pane numbers, no empty heading, and the bundled sample by its name, never its install path."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from kernelscope.export.writer import ExportOptions, render
from kernelscope.kinds.ncu.analysis.kernel_analysis import diagnose_detail, open_for_analysis
from kernelscope.kinds.ncu.export.ncu_markdown import record_body
from kernelscope.kinds.ncu.render.changes import fmt_change
from tests.conftest import BUNDLED, NCU_SAMPLES, SAMPLES
from tests.exports import export_text

NAIVE = NCU_SAMPLES / "gemm_naive.ncu-rep.xz"
WMMA = NCU_SAMPLES / "gemm_wmma.ncu-rep.xz"


def kernelscope(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "kernelscope", *args], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_one_of_a_thing_is_singular():
    md = export_text(NAIVE, "md")
    assert "- Kernels: 1 launch of 1 kernel family, summed duration 3.18 ms" in md
    assert kernelscope("summary", str(NAIVE)).startswith(
        "gemm_naive.ncu-rep.xz: 1 kernel (1 family) on NVIDIA H200"
    )
    diff = render((NAIVE, WMMA), ExportOptions(fmt="md", pairs=(("0", "0"),)),
                  subcommand="diff")
    assert "- Matched: 1 pair; unmatched: 0 before, 0 after" in diff
    one_rank = render(SAMPLES / "nsys" / "timeline_plain.sqlite.xz", ExportOptions(fmt="md"),
                      subcommand="ranks")
    assert one_rank.startswith("# Ranks report: 1 rank\n")


def test_a_change_too_small_to_show_has_no_sign():
    assert fmt_change(-0.04) == "0.0 %"
    assert fmt_change(0.04) == "0.0 %"
    assert fmt_change(-0.05) == "−0.1 %"
    assert fmt_change(12.34) == "+12.3 %"


def test_markdown_keeps_no_pane_numbers_of_the_tui():
    md = export_text(NAIVE, "md")
    assert "Check the Source Counters section for uncoalesced global loads." in md
    assert "Reducing stalls indicated on the Warp State Statistics and Source Counters " \
        "sections can help, too." in md
    assert not re.search(r"\\\[\d+\\\]", md)


def test_a_record_leaves_out_a_section_with_nothing_in_it():
    with open_for_analysis(NAIVE) as report:
        detail = report.detail(0)
    body = record_body(detail, diagnose_detail(detail), ((), ("- 3.18 ms → 1.02 ms",), ("",)))
    assert "### Re-measure\n- 3.18 ms → 1.02 ms\n" in body
    assert "### Change" not in body and "### Conclusion" not in body
    assert body.rstrip().endswith("- 3.18 ms → 1.02 ms")


def test_the_bundled_sample_is_named_and_no_install_path_is_printed():
    md = render(BUNDLED, ExportOptions(fmt="md"))
    assert md.startswith("# Kernel report: sample\\_zoo\\_h200.ncu-rep.xz\n")
    assert "- Report file: `sample_zoo_h200.ncu-rep.xz` (the sample bundled with kernelscope)\n" \
        in md
    assert str(BUNDLED.parent) not in md and "kernelscope/data" not in md
    doc = json.loads(render(BUNDLED, ExportOptions(fmt="json", top=1)))
    assert doc["report"]["path"] == "sample_zoo_h200.ncu-rep.xz"
