"""The gaps of a Kineto run's ranks explained in one pass (``rank_gaps.explain_together``) are
the gaps each rank's own explanation gives, also where the ranks share process ids,
correlation ids and devices (copies of one trace under other ranks' numbers)."""

from __future__ import annotations

import json
import lzma
from pathlib import Path

import pytest

from kernelscope.kinds.ranks.analysis.kineto_reduce import reduce_kineto
from kernelscope.kinds.ranks.analysis.rank_gaps import PENDING, PendingGaps, explain_together
from kernelscope.kinds.ranks.analysis.run import analyse_run
from kernelscope.timeline.analysis.gap_causes import GapExplanation, explain_gaps
from tests.conftest import SAMPLES

FOLDERS = (SAMPLES / "kineto" / "ranks", SAMPLES / "kineto" / "uneven",
           SAMPLES / "whatif" / "ranks_base_kineto")
SHIFT_US = 7000


def _pending(folder: Path) -> list[PendingGaps]:
    found = []
    for path in sorted(folder.glob("*.pt.trace.json*")):
        (summary,) = reduce_kineto(str(path), defer_gaps=True)
        found.append(summary.extras[PENDING])
    return found


def _as_compared(gap: GapExplanation) -> tuple[object, ...]:
    """What the one-pass explanation gives (no detail text or calls listed)."""
    return (gap.device, gap.start_ns, gap.end_ns, gap.cause, gap.thread, gap.coverage,
            gap.next_op, gap.reason, gap.hint, gap.graph)


def _each_alone(pending: list[PendingGaps]) -> list[list[tuple[object, ...]]]:
    return [[_as_compared(g) for g in explain_gaps(p.windowed, min_gap_ns=p.min_gap_ns,
                                                   limit=p.max_gaps)] for p in pending]


def _copies_of_ranks(folder: Path) -> Path:
    """Eight ranks from the four of ``samples/kineto/ranks``: ranks 4-7 repeat 0-3 (the same
    pids, thread ids, correlation ids and devices) under their own rank numbers, 7 ms later,
    so that their calls fall in other ranks' gaps."""
    source = SAMPLES / "kineto" / "ranks"
    for rank in range(8):
        trace = json.loads(lzma.decompress(
            (source / f"rank{rank % 4}.pt.trace.json.xz").read_bytes()))
        trace["distributedInfo"] = dict(trace["distributedInfo"], rank=rank, world_size=8)
        for event in trace["traceEvents"] if rank >= 4 else []:
            if isinstance(event.get("ts"), (int, float)):
                event["ts"] += SHIFT_US
        (folder / f"rank{rank}.pt.trace.json").write_text(json.dumps(trace))
    return folder


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_one_pass_explains_each_ranks_gaps_as_its_own_explanation(folder: Path) -> None:
    pending = _pending(folder)
    together = explain_together(pending)
    assert together is not None and any(together)
    assert [[_as_compared(g) for g in rank] for rank in together] == _each_alone(pending)


def test_ranks_sharing_ids_are_kept_apart(tmp_path: Path) -> None:
    pending = _pending(_copies_of_ranks(tmp_path))
    together = explain_together(pending)
    assert together is not None
    alone = _each_alone(pending)
    assert [[_as_compared(g) for g in rank] for rank in together] == alone
    assert all(alone) and [len(rank) for rank in alone[:4]] == [len(r) for r in alone[4:]]


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_a_run_read_in_process_has_the_gap_causes_of_its_ranks_read_alone(folder: Path
                                                                         ) -> None:
    settled = analyse_run([folder], workers=0)
    for summary in settled.ranks.values():
        (alone,) = reduce_kineto(summary.file)  # as a worker process reduces it
        assert PENDING not in summary.extras and PENDING not in alone.extras
        assert summary.gaps.sort("cause").equals(alone.gaps.sort("cause"))
        assert alone.gaps.height and alone.gaps["gaps"].sum() > 0
