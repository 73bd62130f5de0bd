"""PyTorch profiler (Kineto) registrations: one trace (``KIND``), and a run of per-rank
traces (``RUN``). Every part is imported on first use."""

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


def _kineto_spec(name: str, title: str, parts: tuple[str, str, str], **more: Any) -> KindSpec:
    """A Kineto kind, whose data needs no analysis step; ``parts`` are its ``summary``,
    ``export`` and ``session``, each ``MODULE:NAME`` below this package."""
    summary, export, session = (f"{PACKAGE}.{part}" for part in parts)
    return KindSpec(name=name, title=title, analyse=lambda data, options: data,
                    summary=summary, export=export, session=session, **more)


KIND = _kineto_spec(
    "kineto", "PyTorch profiler (Kineto) trace",
    ("export.kineto_export:print_kineto_summary", "export.kineto_export:render_kineto",
     "screens.kineto_session:KinetoSession"),
    detect=_is_kineto, open=_open_kineto,
)


def _is_kineto_run(probe: Probe) -> bool:
    from kernelscope.kinds.kineto.model import is_kineto_run

    return is_kineto_run(probe.paths)


def _open_kineto_run(paths: Sequence[Path], options: OpenOptions) -> Any:
    from kernelscope.kinds.kineto.analysis.ranks import open_kineto_run

    return open_kineto_run(paths, workers=options.workers, scheduler=options.scheduler)


RUN = _kineto_spec(
    "kineto-ranks", "run of per-rank PyTorch profiler (Kineto) traces",
    ("export.kineto_ranks:print_kineto_run_summary", "export.kineto_ranks:render_kineto_run",
     "screens.kineto_session:KinetoRunSession"),
    detect=_is_kineto_run, open=_open_kineto_run, inputs=(1, None),
)
