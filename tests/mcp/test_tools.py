"""Each tool of the real server, called on the bundled samples, answers what the JSON export of
the same inputs says; the command serves them over stdio."""

from __future__ import annotations

import json
import re

from tests.conftest import SAMPLES
from tests.mcp.conftest import ANSWER_BYTES, cli, exported, served, served_over_stdio, size

NCU = SAMPLES / "ncu"
NSYS = SAMPLES / "nsys"
MANY = NCU / "many_launches.ncu-rep.xz"
TOOLS = {"summary", "kernel", "timeline", "diff", "join", "ranks", "metrics", "ncu_command",
         "critical_path", "whatif", "operators"}


async def test_lists_the_tools_resources_and_prompts() -> None:
    async with served_over_stdio() as client:
        tools = (await client.list_tools()).tools
        templates = (await client.list_resource_templates()).resource_templates
        prompts = (await client.list_prompts()).prompts
    assert {t.name for t in tools} == TOOLS
    assert all(t.output_schema and t.output_schema["type"] == "object" for t in tools)
    assert {t.uri_template for t in templates} == {
        "kernelscope://report/{+path}", "kernelscope://kernel/{kernel_id}/{+path}"}
    assert {p.name for p in prompts} == {"diagnose", "compare"}


async def test_summary_of_the_thousand_launches_is_the_exports_families() -> None:
    async with served() as client:
        got = await client.call_tool("summary", {"path": "ncu/many_launches.ncu-rep.xz"})
    answer = got.structured_content
    assert not got.is_error and size(answer) < ANSWER_BYTES
    doc = exported(MANY, "--top", "1")
    assert answer["report"]["kernel_count"] == doc["report"]["kernel_count"] == 1000
    assert answer["report"]["total_kernel_time_ns"] == doc["report"]["total_kernel_time_ns"]
    keys = ("index", "name", "count", "representative", "total_duration_ns", "time_share")
    assert [{k: f[k] for k in keys} for f in answer["families"]] == [
        {k: f[k] for k in keys} for f in doc["families"]]
    first = answer["families"][0]
    assert (first["short_name"], first["bottleneck"], first["top_flag"]) == (
        "ml_copy_2m_f4", "launch-bound", "short-kernel (warning)")
    assert first["ids"] == doc["families"][0]["ids"][:64] and first["ids_total"] == 250
    assert answer["page"] == {"total": 4, "start": 0, "count": 4, "next_cursor": None}


async def test_kernel_is_its_entry_in_the_export() -> None:
    async with served() as client:
        got = await client.call_tool("kernel", {"path": "ncu/gemm_naive.ncu-rep.xz",
                                                "kernel_id": 0, "panes": ["launch", "sol"]})
        many = await client.call_tool("kernel", {"path": "ncu/many_launches.ncu-rep.xz",
                                                 "kernel_id": 571, "panes": ["all"],
                                                 "source": True})
    entry = got.structured_content["kernel"]
    full = exported(NCU / "gemm_naive.ncu-rep.xz")["kernels"][0]
    for key in ("id", "name", "demangled", "grid", "block", "duration_ns", "ncu_rules",
                "bottleneck", "flags", "guard_rails", "roofline", "time_share", "family"):
        assert entry[key] == full[key], key
    assert entry["metrics"] and all(full["metrics"][n] == m for n, m in entry["metrics"].items())
    assert "launch__grid_size" in entry["metrics"]
    assert "dram__bytes_read.sum" not in entry["metrics"]  # the memory pane's, not asked
    assert entry["bottleneck"]["label"] == "l1-bound"
    assert not many.is_error and size(many.structured_content) < 20_000
    cut = many.structured_content["kernel"]["metrics_cut"]  # all panes: the rest is paged
    assert 0 < cut["shown"] < cut["total"] and cut["rest"].startswith("call the metrics tool")
    assert many.structured_content["kernel"]["short_name"] == "ml_copy_2m_f4"


async def test_metrics_are_the_exports_all_metrics_with_units() -> None:
    async with served() as client:
        got = await client.call_tool("metrics", {"path": "ncu/gemm_naive.ncu-rep.xz",
                                                 "kernel_id": 0, "pattern": "^dram__bytes"})
    answer = got.structured_content
    full = exported(NCU / "gemm_naive.ncu-rep.xz", "--all-metrics")["kernels"][0]["metrics"]
    expected = [{"name": n, **m} for n, m in full.items() if re.search("^dram__bytes", n)]
    assert answer["metrics"] == expected and len(expected) > 5
    assert {"name": "dram__bytes_read.sum", "value": full["dram__bytes_read.sum"]["value"],
            "unit": "byte"} in answer["metrics"]


async def test_timeline_overview_is_the_exports() -> None:
    async with served() as client:
        got = await client.call_tool("timeline", {"path": "nsys/zoo.sqlite.xz"})
        gaps = await client.call_tool("timeline", {"path": "nsys/zoo.sqlite.xz",
                                                   "section": "gaps"})
    answer = got.structured_content
    doc = exported(NSYS / "zoo.sqlite.xz")
    for key in ("schema", "report", "gpu", "findings", "nvtx"):
        assert answer[key] == doc[key], key
    assert answer["kernels"] == doc["kernels"][:10]
    assert [g["start_ns"] for g in gaps.structured_content["gaps"]] == [
        g["start_ns"] for g in doc["gaps"]]


async def test_diff_pairs_and_gate_are_the_exports() -> None:
    before, after = "ncu/gemm_naive.ncu-rep.xz", "ncu/gemm_tiled.ncu-rep.xz"
    async with served() as client:  # paired by hand, as --pair: no name or shape in common
        got = await client.call_tool("diff", {"before": before, "after": after,
                                              "fail_if_slower_pct": 5, "pairs": ["0=0"]})
        slower = await client.call_tool("diff", {"before": after, "after": before,
                                                 "fail_if_slower_pct": 5, "pairs": ["0=0"]})
    answer = got.structured_content
    doc = exported("diff", NCU / "gemm_naive.ncu-rep.xz", NCU / "gemm_tiled.ncu-rep.xz",
                   "--pair", "0=0")
    assert answer["summed"] == doc["summed"]
    pair = {k: v for k, v in doc["pairs"][0].items() if k not in ("metrics", "roofline")}
    assert answer["pairs"] == [pair]
    assert answer["gate"] == {"fail_if_slower_pct": 5.0, "failed": False, "sentence": None}
    gate = slower.structured_content["gate"]
    assert gate["failed"] is True and gate["sentence"].startswith("The summed kernel time")


async def test_join_ranking_and_ncu_command_are_the_exports() -> None:
    trace, kernels = NSYS / "join_trace.sqlite.xz", NCU / "join_kernels.ncu-rep.xz"
    async with served() as client:
        got = await client.call_tool("join", {"trace": "nsys/join_trace.sqlite.xz",
                                              "kernel_reports": ["ncu/join_kernels.ncu-rep.xz"]})
        doc = exported("join", trace, kernels)
        unprofiled = next(i for i in doc["unprofiled"] if i.get("ncu_command"))
        command = await client.call_tool("ncu_command", {
            "trace": "nsys/join_trace.sqlite.xz",
            "family": f"^{re.escape(unprofiled['family'])}$"})
    answer = got.structured_content
    shown = answer["page"]["count"]
    assert shown >= 5 and answer["ranking"] == doc["ranking"][:shown]
    assert answer["timeline"] == doc["timeline"]
    assert answer["unprofiled"][0] == doc["unprofiled"][0]
    assert answer["unprofiled_count"] == len(doc["unprofiled"])
    assert [f["ncu_command"] for f in command.structured_content["families"]] == [
        unprofiled["ncu_command"]]


async def test_ranks_are_the_exports() -> None:
    async with served() as client:
        got = await client.call_tool("ranks", {"paths": ["nsys/ranks"]})
        summary = await client.call_tool("summary", {"path": "nsys/ranks"})
    answer = got.structured_content
    doc = exported("ranks", NSYS / "ranks")
    assert answer["straggler"] == doc["straggler"]
    assert answer["ranks"] == doc["ranks"][: answer["page"]["count"]]
    assert answer["families"] == doc["families"][: len(answer["families"])]
    assert summary.structured_content["straggler"] == doc["straggler"]


async def test_timeline_steps_are_the_runs_export() -> None:
    async with served() as client:
        got = await client.call_tool("timeline", {"path": "nsys/timeline_torch.sqlite.xz",
                                                  "section": "steps"})
    process = got.structured_content["processes"][0]
    doc = exported("ranks", NSYS / "timeline_torch.sqlite.xz")
    assert got.structured_content["processes"] == doc["ranks"]
    assert (process["steps"], process["step_source"], process["step_time_ns"]) == (
        5, "nvtx", 1977752.0)


async def test_kernel_source_lines_come_from_the_line_table() -> None:
    """The hot lines name file:line whether or not ncu-report is installed (the cubin's line
    table), and each hot instruction its line."""
    async with served() as client:
        got = await client.call_tool("kernel", {"path": "ncu/gemm_naive.ncu-rep.xz",
                                                "kernel_id": 0, "panes": ["launch"],
                                                "source": True})
    source = got.structured_content["kernel"]["source"]
    assert source["has_line_info"] and source["lines"][0]["file"].endswith(".cu")
    assert source["lines"][0]["line"] > 0 and source["lines"][0]["text"]
    assert all(s["file"] and s["line"] > 0 for s in source["sass"])


async def test_critical_path_and_whatif_are_the_exports() -> None:
    async with served() as client:
        path = await client.call_tool("critical_path", {"path": "nsys/timeline_torch.sqlite.xz"})
        whatif = await client.call_tool("whatif", {
            "trace": "kineto/kineto_step.pt.trace.json.xz", "faster": ["aten::randn=4"]})
        bad = await client.call_tool("whatif", {
            "trace": "kineto/kineto_step.pt.trace.json.xz", "faster": ["gemm"]})
    assert not path.is_error and not whatif.is_error
    assert path.structured_content["kinds"] == exported(
        NSYS / "timeline_torch.sqlite.xz")["critical_path"]["kinds"]
    done = cli("whatif", SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz",
               "--faster", "aten::randn=4")
    assert whatif.structured_content == json.loads(done.stdout)
    assert bad.is_error and "REGEX=FACTOR" in bad.content[0].text


async def test_operators_is_the_exports_operator_efficiency() -> None:
    trace = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"
    async with served() as client:
        got = await client.call_tool("operators", {"path": "kineto/kineto_step.pt.trace.json.xz",
                                                   "model_flops": 1e12})
    answer = got.structured_content
    assert not got.is_error and size(answer) < ANSWER_BYTES
    doc = exported(trace, "--model-flops", "1e12")
    assert answer["op_efficiency_basis"] == doc["op_efficiency_basis"]
    mfu = answer["mfu"]  # cut to its first steps where the answer's budget asks
    assert mfu and mfu == doc["mfu"][:len(mfu)]
    if len(mfu) < len(doc["mfu"]):
        assert answer["truncated"]["mfu"] == len(doc["mfu"])
    assert {m["source"] for m in mfu} == {"--model-flops"}
    count = answer["page"]["count"]
    assert answer["op_efficiency"] == doc["op_efficiency"][:count]
    assert answer["page"]["total"] == len(doc["op_efficiency"])
