"""A real ``emit_nvtx(record_shapes=True)`` trace (samples/opeff/gemm_sweep_nvtx: every
operator call its own range name, ``aten::mm, seq = N, op_id = N, sizes = [...]``): the NVTX
table folds the per-call names into one row per operation, keeps every range countable, and
the Markdown stays short with its findings first."""

from __future__ import annotations

import json

from tests.conftest import SAMPLES
from tests.kineto.test_kineto_inputs import run_cli

TRACE = SAMPLES / "opeff" / "gemm_sweep_nvtx.sqlite.xz"


def test_per_call_names_fold_into_operations() -> None:
    doc = json.loads(run_cli("export", str(TRACE), "--format", "json").stdout)
    rows = {row["name"]: row for row in doc["nvtx"]}
    raw = sum(row["raw_names"] for row in doc["nvtx"])
    assert raw > 5 * len(rows)  # hundreds of per-call names, a few dozen operations
    mm = [row for name, row in rows.items() if name.endswith("aten::mm")]
    # a step: 3 reps of 3 mm, the matmul folded to mm and the linear backward's 2; 2 steps
    assert len(mm) == 1 and mm[0]["instances"] == 36
    assert not any("seq =" in name or "op_id =" in name for name in rows)


def test_markdown_is_short_and_opens_on_the_findings() -> None:
    out = run_cli("export", str(TRACE), "--format", "md")
    assert out.returncode == 0, out.stderr
    assert len(out.stdout.encode()) < 150_000
    assert "## Findings at a glance" in out.stdout.splitlines()[:20]
