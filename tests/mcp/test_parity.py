"""Every MCP tool accepts what the matching CLI command accepts, and answers what its JSON says
(issue 34).

For each tool and each kind of input its CLI command takes (a kernel report; a Nsight Systems
timeline; a PyTorch profiler trace; a folder of per-rank traces of either kind; one trace of a
run; pairs for ``diff``; a timeline with kernel reports for ``join``; a family's index as a
number, as digits, or a regex on its name for ``ncu_command``), the tool is called on the server
in this process (its answers still come from worker processes, as in use) and the answer is
laid over the CLI's JSON of the same input: every value the answer holds equals the CLI's at
the same place (a list the answer cut is a prefix of the CLI's), and the answer must hold some.
Where the CLI refuses an input (bad input, exit 2), the tool refuses it with the same
sentence; every other input must be answered by both.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.conftest import SAMPLES

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'kernelscope[mcp]')")

from kernelscope.mcp.server import TOOL_NAMES
from tests.mcp.conftest import printed, served

ROOT = SAMPLES.resolve()
NCU = "ncu/gemm_naive.ncu-rep.xz"
NCU_OTHER = "ncu/gemm_tiled.ncu-rep.xz"
NSYS = "nsys/join_trace.sqlite.xz"
NSYS_OTHER = "nsys/timeline_plain.sqlite.xz"
KINETO = "kineto/kineto_step.pt.trace.json.xz"
KINETO_OTHER = "kineto/other_run/rank0.pt.trace.json.xz"
NSYS_RANKS = "nsys/ranks"
KINETO_RANKS = "kineto/ranks"


def whole(relative: str) -> str:
    return str(ROOT / relative)


Locate = Callable[[dict[str, Any], dict[str, Any]], tuple[Any, Any]]
"""(the tool's answer, the CLI's JSON) → the parts of each that must agree."""


def same(answer: dict[str, Any], doc: dict[str, Any]) -> tuple[Any, Any]:
    return answer, doc


def kernel_entry(kernel_id: int) -> Locate:
    return lambda answer, doc: (answer["kernel"], doc["kernels"][kernel_id])


def metric_rows(answer: dict[str, Any], doc: dict[str, Any]) -> tuple[Any, Any]:
    rows = {m["name"]: {k: v for k, v in m.items() if k != "name"} for m in answer["metrics"]}
    return rows, doc["kernels"][0]["metrics"]


def families_of_kernels(answer: dict[str, Any], doc: dict[str, Any]) -> tuple[Any, Any]:
    """A summary of one process against the export of that process (``--process``): the
    export's families with a kernel it kept, as ``kernelscope summary --process`` lists
    them."""
    kept = {k["id"] for k in doc["kernels"]}
    families = [f for f in doc["families"] if kept & set(f["ids"])]
    assert families
    return answer["families"], families


def unprofiled_entry(answer: dict[str, Any], doc: dict[str, Any]) -> tuple[Any, Any]:
    """An ncu_command answer against the join's JSON: the family's ``unprofiled`` entry (the
    command depends on the timeline alone)."""
    mine = answer["families"][0]
    entry = next(u for u in doc["unprofiled"]
                 if (u["family"], u["total_ns"]) == (mine["name"], mine["total_ns"]))
    keys = ("ncu_command", "total_ns", "instances", "nvtx_range")
    return {k: mine[k] for k in keys}, {k: entry[k] for k in keys}


@dataclass(frozen=True)
class Case:
    tool: str
    arguments: dict[str, Any]
    cli: tuple[str, ...]
    """The CLI's arguments (its JSON is read from standard output)."""
    locate: Locate = same
    marks: tuple[Any, ...] = field(default=())
    refused: bool = False
    """Bad input: the CLI refuses it (exit 2), and the tool must refuse it alike."""

    @property
    def id(self) -> str:
        shown = ",".join(f"{k}={v}" for k, v in self.arguments.items())
        return f"{self.tool}({shown})"


CASES = (
    Case("summary", {"path": NCU}, ("export", whole(NCU), "-f", "json")),
    Case("summary", {"path": "ncu/multi_process.ncu-rep.xz", "process": "nope"},
         ("summary", whole("ncu/multi_process.ncu-rep.xz"), "--process", "nope"),
         refused=True),
    Case("summary", {"path": "ncu/multi_process.ncu-rep.xz", "process": "6163"},
         ("export", whole("ncu/multi_process.ncu-rep.xz"), "--process", "6163", "-f", "json"),
         families_of_kernels),
    Case("summary", {"path": NSYS, "process": "1"}, ("summary", whole(NSYS), "--process", "1"),
         refused=True),
    Case("summary", {"path": NSYS}, ("export", whole(NSYS), "-f", "json")),
    Case("summary", {"path": KINETO}, ("export", whole(KINETO), "-f", "json")),
    Case("summary", {"path": NSYS_RANKS}, ("export", whole(NSYS_RANKS), "-f", "json")),
    Case("summary", {"path": KINETO_RANKS}, ("export", whole(KINETO_RANKS), "-f", "json")),
    Case("timeline", {"path": NSYS}, ("export", whole(NSYS), "-f", "json")),
    Case("timeline", {"path": KINETO}, ("export", whole(KINETO), "-f", "json")),
    Case("timeline", {"path": KINETO, "section": "kernels"},
         ("export", whole(KINETO), "-f", "json")),
    Case("kernel", {"path": NCU, "kernel_id": 0, "panes": ["sol"]},
         ("export", whole(NCU), "-f", "json"), kernel_entry(0)),
    Case("metrics", {"path": NCU, "kernel_id": 0, "pattern": "^dram__"},
         ("export", whole(NCU), "--all-metrics", "-f", "json"), metric_rows),
    Case("diff", {"before": NCU, "after": NCU_OTHER},
         ("diff", whole(NCU), whole(NCU_OTHER), "-f", "json")),
    Case("diff", {"before": NCU, "after": NCU_OTHER, "pairs": ["0=0"],
                  "fail_if_slower_pct": 5},
         ("diff", whole(NCU), whole(NCU_OTHER), "--pair", "0=0", "--fail-if-slower", "5",
          "-f", "json")),
    Case("diff", {"before": NSYS_OTHER, "after": NSYS},
         ("diff", whole(NSYS_OTHER), whole(NSYS), "-f", "json")),
    Case("diff", {"before": KINETO_OTHER, "after": KINETO},
         ("diff", whole(KINETO_OTHER), whole(KINETO), "-f", "json")),
    Case("join", {"trace": NSYS, "kernel_reports": ["ncu/join_kernels.ncu-rep.xz"]},
         ("join", whole(NSYS), whole("ncu/join_kernels.ncu-rep.xz"), "-f", "json")),
    Case("join", {"trace": KINETO, "kernel_reports": [NCU]},
         ("join", whole(KINETO), whole(NCU), "-f", "json")),
    Case("ranks", {"paths": [NSYS_RANKS]}, ("ranks", whole(NSYS_RANKS), "-f", "json")),
    Case("ranks", {"paths": ["nsys/ranks/rank0.sqlite.xz", "nsys/ranks/rank1.sqlite.xz"]},
         ("ranks", whole("nsys/ranks/rank0.sqlite.xz"), whole("nsys/ranks/rank1.sqlite.xz"),
          "-f", "json")),
    # The ranks of a Kineto folder: the CLI opens it as a run (`kernelscope FOLDER`)
    Case("ranks", {"paths": [KINETO_RANKS]}, ("export", whole(KINETO_RANKS), "-f", "json")),
    Case("ncu_command", {"trace": NSYS, "family": 8},
         ("join", whole(NSYS), whole("ncu/join_kernels.ncu-rep.xz"), "-f", "json"),
         unprofiled_entry),
    Case("ncu_command", {"trace": NSYS, "family": "8"},
         ("join", whole(NSYS), whole("ncu/join_kernels.ncu-rep.xz"), "-f", "json"),
         unprofiled_entry),
    Case("ncu_command", {"trace": NSYS, "family": "launch_clamp_scalar"},
         ("join", whole(NSYS), whole("ncu/join_kernels.ncu-rep.xz"), "-f", "json"),
         unprofiled_entry),
    Case("critical_path", {"path": NSYS}, ("export", whole(NSYS), "-f", "json"),
         lambda answer, doc: (answer, doc["critical_path"])),
    Case("critical_path", {"path": KINETO}, ("export", whole(KINETO), "-f", "json"),
         lambda answer, doc: (answer, doc["critical_path"])),
    Case("whatif", {"trace": KINETO, "faster": ["aten::randn=4"]},
         ("whatif", whole(KINETO), "--faster", "aten::randn=4")),
    Case("whatif", {"trace": NSYS, "faster": ["no kernel has this name=2"]},
         ("whatif", whole(NSYS), "--faster", "no kernel has this name=2"), refused=True),
    Case("operators", {"path": KINETO}, ("export", whole(KINETO), "-f", "json")),
)


def cli_json(args: tuple[str, ...]) -> tuple[int, dict[str, Any] | None, str]:
    """The CLI's exit code, JSON (None when it printed none) and standard error."""
    done = printed(*args)  # once for the cases that read the same command's JSON
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else None, done.stderr


def agrees(answer: Any, doc: Any, where: str = "") -> int:
    """How many values of ``answer`` were found equal at the same place in ``doc`` (keys the
    CLI's JSON lacks are the answer's own: paging, what it cut); fails where one differs."""
    if isinstance(answer, dict):
        assert isinstance(doc, dict), where
        return sum(agrees(v, doc[k], f"{where}.{k}") for k, v in answer.items() if k in doc)
    if isinstance(answer, list):
        assert isinstance(doc, list) and len(answer) <= len(doc), where
        return sum(agrees(a, d, f"{where}[{i}]")
                   for i, (a, d) in enumerate(zip(answer, doc, strict=False)))
    assert answer == doc, f"{where}: {answer!r} != {doc!r}"
    return 1


def test_every_tool_is_covered() -> None:
    assert {case.tool for case in CASES} == set(TOOL_NAMES)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=c.marks) for c in CASES])
async def test_the_tool_answers_what_the_cli_says(case: Case) -> None:
    code, doc, err = cli_json(case.cli)
    async with served() as client:
        got = await client.call_tool(case.tool, case.arguments)
    if case.refused:  # the CLI refuses it: the tool refuses it with the same sentence
        assert code == 2 and got.is_error
        assert err == f"kernelscope: {got.content[0].text}\n"  # type: ignore[union-attr]
        return
    assert code in (0, 1) and doc is not None, err
    assert not got.is_error, got.content
    mine, theirs = case.locate(got.structured_content or {}, doc)
    assert agrees(mine, theirs) > 0
