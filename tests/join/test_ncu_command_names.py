"""Generated ``ncu`` commands name NVTX ranges so that the next run matches them (issue 34).

The range names are those PyTorch's ``emit_nvtx`` writes (``op_id`` and ``seq`` are numbered
afresh in every run) and the one the issue quotes; the filters follow Nsight Compute's NVTX
filtering rules (the ``regex:`` prefix; ``@ , [ ] / * +`` are its quantifiers, escaped with a
backslash in a literal name).
"""

from __future__ import annotations

import re

import pytest

from kernelscope.kinds.join.analysis import JoinReport
from kernelscope.kinds.join.analysis.ncu_command import range_filter

ISSUE = "flash_attn::_flash_attn_forward, op_id = 998583"


def test_the_issue_range_becomes_a_regex_that_matches_the_next_run() -> None:
    chosen = range_filter(ISSUE)
    assert chosen.config == "regex:flash_attn::_flash_attn_forward. op_id = [0-9]+/"
    assert chosen.selects(ISSUE)
    assert chosen.selects("flash_attn::_flash_attn_forward, op_id = 1204")
    assert not chosen.selects("flash_attn::_flash_attn_backward, op_id = 1204")


@pytest.mark.parametrize(("name", "next_run", "other"), [
    ("aten::addmm, seq = 12, op_id = 34, sizes = [[8, 16], [16, 4]]",
     "aten::addmm, seq = 9012, op_id = 77034, sizes = [[8, 16], [16, 4]]",
     "aten::addmm, seq = 9012, op_id = 77034, sizes = [[8, 32], [32, 4]]"),
    ("copy from 0x7f3a2c00 to 0x7f3a4c00", "copy from 0x55aa10 to 0x55bb20",
     "copy from host to 0x55bb20"),
])
def test_per_run_ids_match_any_id_of_their_kind(name: str, next_run: str, other: str) -> None:
    chosen = range_filter(name)
    assert chosen.config.startswith("regex:") and chosen.config.endswith("/")
    pattern = chosen.config.removeprefix("regex:").removesuffix("/")
    assert not re.search(r"[,@/*]|\[(?!0-9)|(?<!0-9A-Fa-f)(?<!0-9)\]", pattern), pattern
    assert chosen.selects(name) and chosen.selects(next_run) and not chosen.selects(other)


def test_a_name_without_ids_stays_literal_with_quantifiers_escaped() -> None:
    assert range_filter("tiny_ops").config == "tiny_ops/"
    assert range_filter("step 3").config == "step 3/"
    assert range_filter("layer[1],attn").config == r"layer\[1\]\,attn/"
    assert not range_filter("step 3").selects("step 4")


def test_the_real_pair_keeps_its_literal_filter(join: JoinReport) -> None:
    commands = [i.ncu_command for i in join.unprofiled if i.ncu_command]
    assert commands and all("--nvtx-include 'regex:" not in c for c in commands)
    assert any("--nvtx --nvtx-include tiny_ops/" in c for c in commands)


def test_a_pytorch_trace_s_commands_filter_by_name_only(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    """A Kineto trace's ranges (``ProfilerStep#N``, ``record_function``) are no NVTX ranges
    when the program runs under ncu: an NVTX filter on them would profile nothing. Its kernel
    names are spelled as GNU's demangler spells them (``(anonymous namespace)``, ``3ul``),
    which Nsight Compute's demangled names do not share: the filter is the function's own
    name, and the skip counts every launch of that name before the representative."""
    import json
    import re

    from kernelscope.kinds.join.analysis.names import function_name
    from kernelscope.kinds.kineto.model.as_timeline import as_timeline_report
    from kernelscope.kinds.kineto.model.model import read_trace
    from kernelscope.tui.cli import main
    from tests.conftest import NCU_SAMPLES, SAMPLES

    trace = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"
    kernels = NCU_SAMPLES / "gemm_naive.ncu-rep.xz"  # of another program: nothing matches
    assert main(["join", str(trace), str(kernels), "-f", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["unprofiled"]
    commands = [r["ncu_command"] for r in rows if r["ncu_command"]]
    assert len(commands) == len(rows) > 0
    assert any(r["nvtx_range"] == "forward" for r in rows)
    assert not any("--nvtx" in c or "--kernel-name-base" in c for c in commands)
    timeline = as_timeline_report(read_trace(trace))
    launches = timeline.kernels.sort("start")["name"].cast(str).to_list()
    for row in rows:
        found = re.search(r"-k 'regex:\^(\S+)\$' --launch-skip (\d+)", row["ncu_command"])
        assert found is not None, row["ncu_command"]
        name, skip = found.group(1).replace("\\", ""), int(found.group(2))
        assert name == function_name(row["family"]) and "<" not in name
        # the launch the skip lands on, among the launches of that function, is the family's
        assert [n for n in launches if function_name(n) == name][skip] == row["family"]
