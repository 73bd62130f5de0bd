"""Which rank each trace is, and how the ranks' clocks line up.

**Rank numbers**, from the first source that gives every trace a distinct number: the
launcher's environment recorded in the export (``RANK``, ``OMPI_COMM_WORLD_RANK``,
``PMI_RANK``, ``PMIX_RANK``, ``MV2_COMM_WORLD_RANK``, ``SLURM_PROCID``; a PyTorch trace's
``distributedInfo``), an NVTX event naming the rank (``MPI Rank 7``), a number in the file
name (``rank3.nsys-rep``, ``report2``: only for several files, each with its own), else the
order of the files (and of the processes inside one file).

**Clocks**: every export's times count from its own session's start, whose wall-clock time is
in ``TARGET_INFO_SESSION_START_TIME``; adding each trace's session start (relative to the
earliest) puts all ranks on one axis. That is exact for the processes of one trace file, good
to the host's clock for traces made on one host, and only as good as the hosts' clock
synchronisation (NTP: often 0.1–10 ms) across hosts. The collectives themselves give a check:
every rank leaves a collective at about the same moment, so the spread of the exit times
bounds the alignment error.
"""

from __future__ import annotations

import re
from pathlib import Path

from kernelscope.core.errors import ReportError, safe_text
from kernelscope.kinds.ranks.analysis.model import ClockAlignment, RankSummary

_RANK_IN_NAME = re.compile(r"(?i)rank[_\-.]?(\d+)")
_LAST_NUMBER = re.compile(r"(\d+)(?!.*\d)")


def _file_number(summary: RankSummary) -> int | None:
    stem = Path(summary.file).name.split(".")[0]
    m = _RANK_IN_NAME.search(stem) or _LAST_NUMBER.search(stem)
    return int(m.group(1)) if m else None


def _world_size(summary: RankSummary) -> int | None:
    dist = (summary.extras.get("kineto") or {}).get("distributed")
    return dist.get("world_size") if isinstance(dist, dict) else None


def check_one_run(summaries: list[RankSummary]) -> None:
    """Refuse traces that are ranks of different runs (one sentence): world sizes that
    differ, one ``distributedInfo`` rank in two traces, or traces whose time spans on the
    wall clock do not overlap."""
    worlds = {w for s in summaries if (w := _world_size(s)) is not None}
    if len(worlds) > 1:
        raise ReportError(f"The traces are ranks of different runs: world sizes "
                          f"{sorted(worlds)} differ.")
    seen: dict[int, str] = {}
    for s in summaries:
        if s.env_rank_variable == "distributedInfo" and s.env_rank is not None:
            if s.env_rank in seen and seen[s.env_rank] != s.file:
                raise ReportError(f"{safe_text(Path(seen[s.env_rank]).name)} and "
                                  f"{safe_text(Path(s.file).name)} are both rank {s.env_rank}: "
                                  "they are ranks of different runs.")
            seen[s.env_rank] = s.file
    if any(s.session_start_utc_ns is None for s in summaries):
        return
    spans = sorted((s.first_ns + int(s.session_start_utc_ns or 0),
                     s.last_ns + int(s.session_start_utc_ns or 0), s.file) for s in summaries)
    first = spans[0]
    for span in spans[1:]:
        if span[0] > first[1] or span[1] < first[0]:
            raise ReportError(f"{safe_text(Path(first[2]).name)} and "
                              f"{safe_text(Path(span[2]).name)} do not overlap in time: they "
                              "are ranks of different runs.")


def number_ranks(summaries: list[RankSummary]) -> tuple[dict[int, RankSummary], str]:
    """``{rank: summary}`` in rank order, and a phrase saying where the numbers came from."""
    ordered = sorted(summaries, key=lambda s: (s.file, s.pid or 0))
    variables = sorted({s.env_rank_variable for s in ordered if s.env_rank_variable})
    env_label = (f"{'/'.join(variables)} in each trace's environment" if variables else "")
    if variables == ["distributedInfo"]:
        env_label = "each trace's distributedInfo (torch.distributed's rank)"
    for label, values in (
        (env_label, [s.env_rank for s in ordered]),
        ("NVTX events naming the rank", [s.nvtx_rank for s in ordered]),
        ("numbers in the file names", [_file_number(s) for s in ordered]
         if len({s.file for s in ordered}) > 1 else [None]),
    ):
        if None not in values and len(set(values)) == len(values):
            return dict(sorted(zip(values, ordered, strict=True))), label  # type: ignore[arg-type]
    return dict(enumerate(ordered)), "the order of the files"


def align_clocks(ranks: dict[int, RankSummary]) -> ClockAlignment:
    """Offsets that put every rank's local times on the earliest session's clock (a PyTorch
    trace's base time stands for its session start)."""
    files = {s.file for s in ranks.values()}
    hosts = sorted({s.host or "unknown host" for s in ranks.values()})
    zero = dict.fromkeys(ranks, 0)
    if len(files) == 1:
        return ClockAlignment("one session", zero, hosts, True,
                              "all ranks are processes of one trace: one clock, no alignment "
                              "needed.")
    kineto = all("kineto" in s.extras for s in ranks.values())
    start = "base time" if kineto else "session start time"
    starts = {k: s.session_start_utc_ns for k, s in ranks.items()}
    if any(v is None for v in starts.values()):
        missing = sorted(k for k, v in starts.items() if v is None)
        table = "baseTimeNanoseconds" if kineto else "TARGET_INFO_SESSION_START_TIME"
        return ClockAlignment(
            "none", zero, hosts, False,
            f"rank(s) {', '.join(map(str, missing))} carry no {start} ({table}), so the "
            "clocks were not aligned: cross-rank times are comparable only if the traces "
            "share a clock.")
    base = min(v for v in starts.values() if v is not None)
    offsets = {k: int(v) - base for k, v in starts.items() if v is not None}
    method = "base time" if kineto else "session start"
    if len(hosts) > 1 or hosts == ["unknown host"]:
        where = (f"{len(hosts)} hosts ({', '.join(hosts[:4])}{'…' if len(hosts) > 4 else ''})"
                 if hosts != ["unknown host"] else "hosts the traces do not name")
        return ClockAlignment(
            method, offsets, hosts, False,
            f"ranks ran on {where}; aligned on each trace's {start}, which comes from its "
            "own host's clock, so the hosts' clock difference (often 0.1-10 ms under NTP) "
            "would add to every cross-rank time.")
    return ClockAlignment(
        method, offsets, hosts, True,
        f"all traces were made on {hosts[0]}: aligned on their {start}s, one host clock.")
