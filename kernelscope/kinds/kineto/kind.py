"""PyTorch profiler (Kineto) registration: one trace (``KIND``); a run of per-rank traces is
the ranks kind's (``kinds/ranks/kind.py``), as for Nsight Systems traces. Every part is
imported on first use."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kernelscope.core.options import OpenOptions
from kernelscope.kinds.registry import KindSpec, Probe


def _is_kineto(probe: Probe) -> bool:
    from kernelscope.kinds.kineto.model import is_kineto_file

    return len(probe.paths) == 1 and not probe.paths[0].is_dir() and (
        probe.head.lstrip().startswith(b"{") and is_kineto_file(probe.paths[0]))


def _open_kineto(paths: Sequence[Path], options: OpenOptions) -> Any:
    from kernelscope.kinds.kineto.analysis.timeline import open_kineto

    if options.process:
        from kernelscope.core.errors import ReportError

        raise ReportError("--process selects kernels of a kernel report (.ncu-rep) only.")
    data = open_kineto(paths[0])
    data.model_flops = options.model_flops
    return data


PACKAGE = "kernelscope.kinds.kineto"


def _kineto_spec(name: str, title: str, parts: tuple[str, str], **more: Any) -> KindSpec:
    """A Kineto kind, whose data needs no analysis step; ``parts`` are its ``summary`` and
    ``session``, each ``MODULE:NAME`` below this package."""
    summary, session = (f"{PACKAGE}.{part}" for part in parts)
    return KindSpec(name=name, title=title, analyse=lambda data, options: data,
                    summary=summary, session=session, **more)


KIND = _kineto_spec(
    "kineto", "PyTorch profiler (Kineto) trace",
    ("export.kineto_export:print_kineto_summary", "screens.kineto_session:KinetoSession"),
    renderers={"json": f"{PACKAGE}.export.kineto_export:render_kineto_json",
               "md": f"{PACKAGE}.export.kineto_export:render_kineto_md",
               "csv": "kernelscope.timeline.export.timeline_export:render_timeline_csv"},
    detect=_is_kineto, open=_open_kineto, noun="PyTorch profiler trace",
    suffixes=(".pt.trace.json",),
    usage="TRACE.pt.trace.json(.gz): a PyTorch profiler (Kineto) trace, as a timeline",
)
