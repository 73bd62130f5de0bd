"""The kinds kernelscope ships: one registration each.

Adding a kind: write its model (``parsers``), renderers (``export``) and session with its
screens (``screens``), then add one ``KindSpec`` here (docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from kernelscope.core.detect import ReportKind
from kernelscope.kinds.registry import KindSpec, OpenOptions, Probe


def _open_kernels(paths: Sequence[Path], options: OpenOptions) -> Any:
    from kernelscope.kinds.ncu.analysis.kernel_analysis import open_for_analysis

    return open_for_analysis(paths[0])


def _analyse_kernels(report: Any, options: OpenOptions) -> Any:
    from dataclasses import replace

    from kernelscope.kinds.ncu.analysis.summary_stream import stream_summary

    return replace(stream_summary(report), process=options.process)


def _open_timeline(paths: Sequence[Path], options: OpenOptions) -> Any:
    from kernelscope.kinds.nsys.model.opener import open_report

    return open_report(paths[0], cache_dir=options.cache_dir)


def _analyse_timeline(report: Any, options: OpenOptions) -> Any:
    from kernelscope.core.errors import ReportError
    from kernelscope.timeline.analysis.timeline_data import TimelineData

    if options.process:
        raise ReportError("--process selects kernels of a kernel report (.ncu-rep) only.")

    return TimelineData(report)


NCU = KindSpec(
    name="ncu",
    title="Nsight Compute kernel report",
    detect=lambda probe: probe.content is ReportKind.NCU,
    open=_open_kernels,
    analyse=_analyse_kernels,
    summary="kernelscope.kinds.ncu.export.ncu_summary:print_kernels_summary",
    export="kernelscope.kinds.ncu.export.ncu_export:render_ncu_report",
    session="kernelscope.kinds.ncu.screens.kernel_session:KernelSession",
)

NSYS = KindSpec(
    name="nsys",
    title="Nsight Systems timeline (.nsys-rep or its SQLite export)",
    detect=lambda probe: probe.content in (ReportKind.NSYS, ReportKind.SQLITE),
    open=_open_timeline,
    analyse=_analyse_timeline,
    summary="kernelscope.timeline.export.timeline_summary:print_timeline_summary",
    export="kernelscope.timeline.export.timeline_export:render_timeline_report",
    session="kernelscope.kinds.nsys.screens.nsys_session:NsysSession",
)

def _is_kineto(probe: Probe) -> bool:
    from kernelscope.kinds.kineto.model import is_kineto_file

    return len(probe.paths) == 1 and not probe.paths[0].is_dir() and (
        probe.head.lstrip().startswith(b"{") and is_kineto_file(probe.paths[0]))


def _open_kineto(paths: Sequence[Path], options: OpenOptions) -> Any:
    from kernelscope.kinds.kineto.analysis.timeline import open_kineto

    if options.process:
        from kernelscope.core.errors import ReportError

        raise ReportError("--process selects kernels of a kernel report (.ncu-rep) only.")
    return open_kineto(paths[0])


KINETO = KindSpec(
    name="kineto",
    title="PyTorch profiler (Kineto) trace",
    detect=_is_kineto,
    open=_open_kineto,
    analyse=lambda data, options: data,
    summary="kernelscope.kinds.kineto.export.kineto_export:print_kineto_summary",
    export="kernelscope.kinds.kineto.export.kineto_export:render_kineto",
    session="kernelscope.kinds.kineto.screens.kineto_session:KinetoSession",
)


def _is_kineto_run(probe: Probe) -> bool:
    from kernelscope.kinds.kineto.model import is_kineto_run

    return is_kineto_run(probe.paths)


def _open_kineto_run(paths: Sequence[Path], options: OpenOptions) -> Any:
    from kernelscope.kinds.kineto.analysis.ranks import open_kineto_run

    return open_kineto_run(paths, workers=options.workers, scheduler=options.scheduler)


KINETO_RANKS = KindSpec(
    name="kineto-ranks",
    title="run of per-rank PyTorch profiler (Kineto) traces",
    detect=_is_kineto_run,
    open=_open_kineto_run,
    analyse=lambda run, options: run,
    summary="kernelscope.kinds.kineto.export.kineto_ranks:print_kineto_run_summary",
    export="kernelscope.kinds.kineto.export.kineto_ranks:render_kineto_run",
    session="kernelscope.kinds.kineto.screens.kineto_session:KinetoRunSession",
    inputs=(1, None),
)


def _is_join(probe: Any) -> bool:
    from kernelscope.kinds.join.analysis import is_join

    return is_join(probe.paths)


def _open_join(paths: Sequence[Path], options: OpenOptions) -> Any:
    from kernelscope.kinds.join.analysis import open_join

    if options.process:
        from kernelscope.core.errors import ReportError

        raise ReportError("--process selects kernels of a kernel report (.ncu-rep) only.")
    return open_join(paths, cache_dir=options.cache_dir)


JOIN = KindSpec(
    name="join",
    title="timeline joined with kernel reports",
    detect=_is_join,
    open=_open_join,
    analyse="kernelscope.kinds.join.analysis:analyse_join",
    summary="kernelscope.kinds.join.export.join_export:print_join_summary",
    export="kernelscope.kinds.join.export.join_export:render_join",
    session="kernelscope.kinds.join.screens.join_session:JoinSession",
    inputs=(2, None),
)
"""A timeline and kernel reports of one program, found by content (``kernelscope T K...``)."""

JOIN_COMMAND = replace(JOIN, name="join-command", subcommand="join",
                       arguments="TRACE KERNELS...")
"""``kernelscope join TRACE KERNELS...`` (headless with ``--format``)."""

def _detect_ranks(probe: Probe) -> bool:
    from kernelscope.kinds.ranks.analysis.discover import looks_like_run

    return looks_like_run(probe.paths)


def _open_ranks(paths: Sequence[Path], options: OpenOptions) -> Any:
    from kernelscope.kinds.ranks.analysis.reduce import ReduceOptions
    from kernelscope.kinds.ranks.analysis.run import analyse_run

    cache = str(options.cache_dir) if options.cache_dir is not None else None
    return analyse_run(paths, options=ReduceOptions(cache_dir=cache), workers=options.workers,
                       scheduler=options.scheduler)


def _analyse_ranks(run: Any, options: OpenOptions) -> Any:
    return run  # the run is compared when it is opened


RANKS = KindSpec(
    name="ranks",
    title="run of per-rank Nsight Systems traces",
    detect=_detect_ranks,
    open=_open_ranks,
    analyse=_analyse_ranks,
    summary="kernelscope.kinds.ranks.export.ranks:print_run_summary",
    export="kernelscope.kinds.ranks.export.ranks:render_run",
    session="kernelscope.kinds.ranks.screens.ranks_session:RanksSession",
    inputs=(1, None),
)
"""A directory of per-rank traces, or several traces: the ranks of one run."""

RANKS_OF_ONE_TRACE = replace(
    RANKS, name="ranks-command", title="ranks of one run (kernelscope ranks TRACE...)",
    detect=lambda probe: True, subcommand="ranks", arguments="TRACE...",
)
"""``kernelscope ranks TRACE``: the same, for one trace holding every rank's process."""

def _open_diff(paths: Sequence[Path], options: OpenOptions) -> Any:
    from kernelscope.kinds.diff.analysis.inputs import open_pair

    return open_pair(paths, cache_dir=options.cache_dir)


def _analyse_diff(inputs: Any, options: OpenOptions) -> Any:
    return inputs.diff()


DIFF = KindSpec(
    name="diff",
    title="before/after diff of two kernel reports or two timelines",
    detect=lambda probe: False,
    open=_open_diff,
    analyse=_analyse_diff,
    summary="kernelscope.kinds.diff.export.diff_export:print_diff_summary",
    export="kernelscope.kinds.diff.export.diff_export:render_diff",
    session="kernelscope.kinds.diff.screens.diff_session:DiffSession",
    subcommand="diff",
    arguments="BEFORE AFTER",
    inputs=(2, 2),
    reads=frozenset({"pairs", "fail_if_slower"}),
)

BUILTIN: tuple[KindSpec, ...] = (
    NCU, NSYS, KINETO, JOIN, KINETO_RANKS, RANKS, RANKS_OF_ONE_TRACE, JOIN_COMMAND, DIFF,
)
"""In the order they are tried: a trace with kernel reports is a join before it is a run."""
