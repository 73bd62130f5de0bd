"""What each tool answers, computed in the worker process (``worker.py``).

Every answer is the JSON export's document of the same inputs (``export/writer.py``'s
``render_checked`` with ``fmt="json"``, or for a kernel report the export's own functions:
``answers_ncu.py``), trimmed to what the question needs: short lists cut to their first
entries, the long one a page at a time (``paging.py``). Paths arrive resolved and checked
against the roots (``roots.py``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kernelscope.core.errors import ReportError, kernel_filter, safe_text
from kernelscope.core.options import checked_model_flops
from kernelscope.export.whatif import TIMELINE_KINDS
from kernelscope.export.writer import ExportOptions, render_checked
from kernelscope.kinds import kind_for
from kernelscope.mcp import answers_ncu
from kernelscope.mcp.answers_ncu import Progress
from kernelscope.mcp.paging import PAGE_BYTES, page

SHORT_LIST = 10
"""Entries kept of a list that is not the one being paged (``truncated`` gives its length)."""
ANSWER_BYTES = 19_000
"""What the shortened lists of an answer may take in all (a page comes on top of them)."""
TIMELINE_SECTIONS = ("overview", "gaps", "kernels", "nvtx", "findings", "gpu_metrics", "steps")


def export_document(paths: Sequence[Path], progress: Progress, *, subcommand: str | None = None,
                    **options: Any) -> tuple[dict[str, Any], str | None]:
    """The JSON export of ``paths`` as a dict, and the kind's verdict (a diff's gate)."""
    names = ", ".join(safe_text(p.name) for p in paths)
    progress(0, None, f"reading {names}")
    rendered = render_checked(paths, ExportOptions(fmt="json", **options), subcommand=subcommand)
    progress(1, 2, "answering")
    return json.loads(rendered.full_text()), rendered.failure


def shortened(doc: dict[str, Any], *, skip: Sequence[str] = (), budget: int = ANSWER_BYTES
              ) -> dict[str, Any]:
    """``doc`` with each top-level list (but ``skip``'s) cut to its first ``SHORT_LIST``
    entries, or fewer where that is still over ``budget`` bytes of JSON; the lengths of the
    lists cut are under ``truncated``."""
    for keep in (SHORT_LIST, 5, 3, 1):
        out = _cut(doc, keep, skip)
        if len(json.dumps(out, default=str)) <= budget:
            break
    return out


def _cut(doc: dict[str, Any], keep: int, skip: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    cut: dict[str, int] = {}
    for key, value in doc.items():
        if isinstance(value, list) and key not in skip and len(value) > keep:
            out[key] = value[:keep]
            cut[key] = len(value)
        else:
            out[key] = value
    if cut:
        out["truncated"] = cut
    return out


def paged(doc: dict[str, Any], key: str, start: int, question: str) -> dict[str, Any]:
    """``doc`` shortened, with ``key``'s list a page at a time (``page`` describes it)."""
    out = shortened(doc, skip=(key,), budget=ANSWER_BYTES - PAGE_BYTES)
    out[key], out["page"] = page(doc[key], start, question)
    return out


def _timeline_only(path: Path, why: str = "") -> None:
    """ReportError unless ``path`` is a timeline (``TIMELINE_KINDS``); ``why``: what the
    question reads from one."""
    if kind_for([path]).name not in TIMELINE_KINDS:
        raise ReportError(f"{safe_text(path.name)} is not a timeline (.nsys-rep, .sqlite or a "
                          f"PyTorch profiler trace){why}.")


def summary(path: Path, start: int, question: str, progress: Progress,
            process: str | None = None) -> dict[str, Any]:
    """What ``kernelscope summary PATH [--process P]`` reads: a kernel report's families (of
    ``process`` only, when given), a timeline's overview (Nsight Systems or PyTorch
    profiler), a run's ranks; any other kind the CLI summarises, its JSON export shortened."""
    kind = kind_for([path])
    if kind.name == "ncu":
        return answers_ncu.ncu_summary(path, start, question, progress, process)
    if process:
        raise ReportError("--process selects kernels of a kernel report (.ncu-rep) only.")
    if kind.name in TIMELINE_KINDS:
        return timeline(path, "overview", None, None, start, question, progress)
    if kind.name == "ranks":
        return ranks([path], start, question, progress)
    doc, _ = export_document([path], progress)
    return shortened(doc)


def _in_window(gap: dict[str, Any], begin: int | None, end: int | None) -> bool:
    return (begin is None or gap["end_ns"] > begin) and (end is None or gap["start_ns"] < end)


def timeline(path: Path, section: str, begin: int | None, end: int | None, start: int,
             question: str, progress: Progress) -> dict[str, Any]:
    """A timeline's JSON export: ``overview`` (the report, GPU busy, the first gaps, NVTX
    ranges, findings) or one of its lists a page at a time; gaps only within the window
    [``begin``, ``end``) of the report's clock (ns) when one is given."""
    if section not in TIMELINE_SECTIONS:
        raise ReportError(f"No timeline section is called {section!r}; choose one of "
                          f"{', '.join(TIMELINE_SECTIONS)}.")
    _timeline_only(path)
    if section == "steps":
        return steps(path, progress)
    doc, _ = export_document([path], progress)
    doc["gaps"] = [g for g in doc["gaps"] if _in_window(g, begin, end)]
    for gap in doc["gaps"]:
        gap["cpu"] = gap["cpu"][:3]  # the CPU activity that overlapped it, the first three
    if section == "overview":
        overview = {k: doc[k] for k in ("schema", "report", "gpu", "gaps", "nvtx", "findings",
                                        "gpu_metrics_verdicts")}
        overview["kernels"] = doc["kernels"]
        overview["cuda_graphs"] = {"graphs": doc["cuda_graphs"]["graphs"][:SHORT_LIST]}
        return shortened(overview)
    return paged({k: doc[k] for k in ("schema", "report", section)}, section, start, question)


def operators(path: Path, model_flops: float | None, start: int, question: str,
              progress: Progress) -> dict[str, Any]:
    """A timeline's operator efficiency (its JSON export's ``op_efficiency``, a page at a
    time, ``mfu`` and ``op_efficiency_basis``)."""
    _timeline_only(path)
    checked_model_flops(model_flops, "model_flops")
    doc, _ = export_document([path], progress, model_flops=model_flops)
    keys = ("schema", "op_efficiency_basis", "mfu", "op_efficiency")
    return paged({k: doc[k] for k in keys}, "op_efficiency", start, question)


def steps(path: Path, progress: Progress) -> dict[str, Any]:
    """Each process's steps (NVTX step ranges, else the repeating kernel pattern): how many,
    found how, the median step time, with its GPU busy and communication, as the run's JSON
    export (``kernelscope ranks TRACE``) lists its ranks."""
    doc, _ = export_document([path], progress, subcommand="ranks")
    return shortened({"schema": doc["schema"], "processes": doc["ranks"]})


def diff(before: Path, after: Path, pattern: str | None, gate_pct: float | None, start: int,
         question: str, progress: Progress, *, pairs: Sequence[str] = ()) -> dict[str, Any]:
    """The diff's JSON export: the matched pairs a page at a time (without their metrics
    and roofline points), the rest shortened, and the gate's verdict for ``gate_pct``;
    ``pairs`` (``BEFORE=AFTER``) pairs kernels by hand, as ``--pair``."""
    from kernelscope.core.options import parse_pair

    if gate_pct is not None and not gate_pct >= 0:
        raise ReportError("fail_if_slower_pct takes a percentage of 0 or more.")
    doc, failure = export_document([before, after], progress, subcommand="diff",
                                   pattern=pattern, fail_if_slower=gate_pct,
                                   pairs=tuple(parse_pair(p) for p in pairs))
    for pair in doc["pairs"]:
        pair.pop("metrics", None)
        pair.pop("roofline", None)
    answer = paged(doc, "pairs", start, question)
    if gate_pct is not None:
        answer["gate"] = {"fail_if_slower_pct": gate_pct, "failed": failure is not None,
                          "sentence": failure}
    return answer


def join(trace: Path, reports: Sequence[Path], start: int, question: str,
         progress: Progress) -> dict[str, Any]:
    """The join's JSON export: what to fix first, a page of the ranking at a time, and the
    largest families nobody profiled (gain unknown, by time) with their ncu commands."""
    doc, _ = export_document([trace, *reports], progress, subcommand="join")
    unprofiled = doc.get("unprofiled", [])
    doc["unprofiled"] = unprofiled[:SHORT_LIST]
    doc["unprofiled_count"] = len(unprofiled)
    return paged(doc, "ranking", start, question)


def ranks(paths: Sequence[Path], start: int, question: str, progress: Progress
          ) -> dict[str, Any]:
    """The run's JSON export: the straggler, its waits, the slower families; the ranks a
    page at a time (the per-step rows and the heatmap are the export's, not an answer's)."""
    doc, _ = export_document(paths, progress, subcommand="ranks")
    doc.pop("heatmap", None)
    doc["steps"] = doc["steps"][:SHORT_LIST]
    return paged(doc, "ranks", start, question)


def ncu_command(trace: Path, family: int | str, progress: Progress) -> dict[str, Any]:
    """The ncu command for each timeline family that ``family`` names (its index on the
    timeline, as a number or digits, or a regex on its name), as the join writes it for an
    unprofiled family; the trace is any timeline the join reads."""
    from kernelscope.kinds.join.analysis import build_join
    from kernelscope.kinds.join.analysis.opener import open_timeline

    _timeline_only(trace, "; ncu_command reads the launches from one")
    text = str(family)
    index = int(text) if text.isdigit() else None
    regex = None if index is not None else kernel_filter(text)
    progress(0, None, f"reading {safe_text(trace.name)}")
    join = build_join(open_timeline(trace), [])  # (the worker exits after)
    items = [i for i in (*join.ranking, *join.unprofiled) if i.kind == "kernel"]
    chosen = [i for i in items if (i.timeline_family == index if regex is None
                                   else regex.search(i.name or "") or regex.search(i.title))]
    if not chosen:
        raise ReportError(f"No kernel family of {safe_text(trace.name)} is {family!r}; give "
                          "its index on the timeline or a regex on its name.")
    return {"trace": str(trace), "families": [
        {"timeline_family": i.timeline_family, "name": i.name, "short_name": i.title,
         "instances": i.instances, "total_ns": i.total_ns, "nvtx_range": i.nvtx,
         "ncu_command": i.ncu_command} for i in chosen[:SHORT_LIST]],
        "matched": len(chosen)}


def critical_path(path: Path, progress: Progress) -> dict[str, Any]:
    """What every step of a timeline waits on (docs/critical_path.md)."""
    from kernelscope.export.whatif import critical_path_document

    progress(0, None, f"reading {safe_text(path.name)}")
    return critical_path_document(path)


def whatif(path: Path, faster: list[str], progress: Progress) -> dict[str, Any]:
    """``kernelscope whatif``'s JSON: every step replayed with the named work faster."""
    from kernelscope.export.whatif import whatif_document

    progress(0, None, f"reading {safe_text(path.name)}")
    return whatif_document(path, faster)


def report_record(path: Path, progress: Progress) -> str:
    """The Markdown export of a report: a kernel report's families and the case records of
    the largest (``answers_ncu.RECORD_FAMILIES``), a timeline's whole record."""
    top = answers_ncu.RECORD_FAMILIES if kind_for([path]).name == "ncu" else None
    progress(0, None, f"reading {safe_text(path.name)}")
    return render_checked([path], ExportOptions(fmt="md", top=top)).full_text()
