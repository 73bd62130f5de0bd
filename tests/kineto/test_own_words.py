"""A PyTorch profiler trace is described in its own words: no nsys option, version or report
name; what is missing is collected the torch.profiler way, or said to be unavailable; a
communication kernel on top is sent to overlap and waiting, not to Nsight Compute; one step
statistic."""

from __future__ import annotations

import json
import re

import polars as pl

from kernelscope.kinds.kineto.analysis.timeline import open_kineto
from kernelscope.kinds.ranks.screens.ranks import RanksScreen
from kernelscope.timeline.screens.timeline_views.overview import verdict
from kernelscope.tui.app import create_app
from tests.conftest import SAMPLES
from tests.kineto.test_kineto_inputs import run_cli
from tests.timeline_tui.helpers import screen_text
from tests.tui.helpers import settle
from tests.wild.conftest import require_wild

STEP = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"
NSYS_WORDS = re.compile(r"nsys|Nsight Systems|--trace=|--sample=|gpu-metrics|osrt", re.I)


def test_the_markdown_has_no_nsys_wording() -> None:
    out = run_cli("export", str(STEP), "--format", "md")
    assert out.returncode == 0, out.stderr
    assert NSYS_WORDS.findall(out.stdout) == []
    assert "- Span: 53.20 ms; PyTorch profiler (Kineto) trace" in out.stdout
    assert ("This report has no GPU metrics: torch.profiler does not sample GPU metrics"
            in out.stdout)
    assert "trace more of the CPU (torch.profiler with\\_stack=True)" in out.stdout


def test_summary_and_json_give_one_median_step() -> None:
    summary = run_cli("summary", str(STEP))
    doc = json.loads(run_cli("export", str(STEP), "--format", "json").stdout)
    durations = pl.Series([s["duration_ns"] for s in doc["kineto"]["steps"]])
    assert doc["kineto"]["median_step_ns"] == durations.median()
    assert "3 profiler steps, median 17.00 ms" in summary.stdout
    assert NSYS_WORDS.findall(summary.stdout) == []


def test_a_communication_kernel_on_top_is_sent_to_overlap_not_to_nsight_compute() -> None:
    """DeepEP's combine holds 41 % of a decode step's kernel time on a GPU busy 97 %."""
    data = open_kineto(require_wild() / "kineto" / "ModelTC__lightllm__forward_decode_0"
                       ".pt.trace.json.xz")
    text = verdict(data).plain
    assert "the top kernel, combine, takes 40.9 % of the kernel time" in text
    assert "it is communication: check that it overlaps compute" in text
    assert "Nsight Compute" not in text


async def test_help_on_the_run_screen_is_its_own() -> None:
    app = create_app(SAMPLES / "kineto" / "ranks")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)  # the run analysed (a worker) and its screen shown
        assert isinstance(app.screen, RanksScreen) and app.screen.run is not None
        await pilot.press("question_mark")
        await settle(pilot)  # the help screen pushed and its Markdown mounted
        text = screen_text(app)
    assert "ranks of one run" in text  # the ranks screen's help, not the kernel list's
    assert "Straggler" in text


async def test_help_on_the_timeline_of_a_trace_is_in_its_words() -> None:
    app = create_app(STEP)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)  # the trace read and its screen mounted (tabs and all) before exit
        assert getattr(app.screen, "data", None) is not None
        page = app.screen.help_page()  # type: ignore[attr-defined]
    assert page.startswith("# kernelscope — timeline (a PyTorch profiler trace)")
    assert "`record_function` ranges" in page
    assert NSYS_WORDS.findall(page) == []


def test_ranges_and_graph_launches_are_in_pytorch_words() -> None:
    """A PyTorch trace's ranges are record_function annotations, not NVTX ranges, in their
    section and in the idle gaps' CPU activity; CUDA graph launches without kernels are not
    sent to nsys (the lightllm decode trace replays one graph; the SDPA sample has steps)."""
    decode = require_wild() / "kineto" / "ModelTC__lightllm__forward_decode_0.pt.trace.json.xz"
    out = run_cli("export", str(decode), "--format", "md")
    assert out.returncode == 0, out.stderr
    assert "## Annotated ranges (record_function)\n\nThis trace has no annotated ranges." in (
        out.stdout)
    assert ("1 graph launches without their kernels: the trace holds none of the kernels they "
            "ran." in out.stdout)
    sdpa = run_cli("export", str(SAMPLES / "opeff" / "sdpa.pt.trace.json.xz"), "--format", "md")
    assert "| range ProfilerStep#" in sdpa.stdout or "; range ProfilerStep#" in sdpa.stdout
    for text in (out.stdout, sdpa.stdout):
        assert NSYS_WORDS.findall(text) == [] and "NVTX" not in text
