"""The ``kernelscope`` command: open a report in the TUI, or export/summarise it headless."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from kernelscope import __version__
from kernelscope.parsers.errors import ReportError

if TYPE_CHECKING:
    from kernelscope.export.ranks import RunOptions

SUBCOMMANDS = ("export", "summary")


def _tui_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kernelscope",
        description=(
            "Open an Nsight Compute (.ncu-rep) or Nsight Systems (.nsys-rep, .sqlite) report "
            "in the terminal. Without REPORT, opens the bundled sample report; a directory of "
            "per-rank traces (or several traces) opens as the ranks of one run. "
            "Also: 'kernelscope export REPORT ...' and 'kernelscope summary REPORT'."
        ),
    )
    p.add_argument(
        "report", nargs="*", type=Path,
        help="report (.ncu-rep, .nsys-rep, .sqlite; .xz/.gz ok); a directory or several "
        "traces open as the ranks of one run",
    )
    p.add_argument(
        "--cache-dir", type=Path, default=None, help="where .nsys-rep SQLite exports are cached"
    )
    _run_arguments(p)
    p.add_argument("--version", action="version", version=f"kernelscope {__version__}")
    return p


def _run_arguments(p: argparse.ArgumentParser) -> None:
    """Options for a run of many ranks (a directory, or several traces)."""
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes reducing the ranks' traces (0: in this process; "
                   "default: by size and cores)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="reduce the ranks on this Dask scheduler (needs kernelscope[dask])")
    p.add_argument("--ranks", action="store_true",
                   help="read the trace(s) as the ranks of one run even when one file is given "
                   "(one trace holding every rank's process)")


def _is_run(args: argparse.Namespace) -> bool:
    from kernelscope.parsers.ranks.discover import is_run

    return bool(args.report) and (args.ranks or is_run(args.report))


def _run_options(args: argparse.Namespace) -> RunOptions:
    from kernelscope.export.ranks import RunOptions

    return RunOptions(workers=args.workers, scheduler=args.scheduler, cache_dir=args.cache_dir)


def _export_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kernelscope export", description="Export a report headless.")
    p.add_argument("report", type=Path, nargs="+",
                   help="a report; or a directory or several traces: the ranks of one run")
    p.add_argument("--format", "-f", choices=("json", "md", "csv"), default="json")
    p.add_argument("-o", "--output", type=Path, default=None, help="output file (default: stdout)")
    p.add_argument("--all-metrics", action="store_true", help="every metric of each kernel")
    p.add_argument("-k", "--kernel", dest="pattern", default=None, help="regex on kernel names")
    p.add_argument("--top", type=int, default=None, help="only the N longest kernels' records")
    p.add_argument("--cache-dir", type=Path, default=None)
    _run_arguments(p)
    return p


def _summary_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kernelscope summary", description="Print a report's essentials."
    )
    p.add_argument("report", type=Path, nargs="+",
                   help="a report; or a directory or several traces: the ranks of one run")
    p.add_argument("--cache-dir", type=Path, default=None)
    _run_arguments(p)
    return p


def _fail(message: str) -> int:
    print(f"kernelscope: {message}", file=sys.stderr)
    return 2


def run_export(args: argparse.Namespace) -> int:
    from kernelscope.export.writer import ExportOptions, render, write_text

    if _is_run(args):
        from kernelscope.export.ranks import render_run

        text = render_run(args.report, args.format, _run_options(args), top=args.top)
        if args.output is None:
            sys.stdout.write(text)
        else:
            write_text(text, args.output)
        return 0
    args.report = args.report[0]
    options = ExportOptions(
        fmt=args.format,
        pattern=args.pattern,
        top=args.top,
        all_metrics=args.all_metrics,
        cache_dir=args.cache_dir,
    )
    text = render(args.report, options)
    if args.output is None:
        sys.stdout.write(text)
    else:
        write_text(text, args.output)
    return 0


def run_summary(args: argparse.Namespace) -> int:
    from kernelscope.export.summary import print_summary

    if _is_run(args):
        from kernelscope.export.ranks import print_run_summary

        print_run_summary(args.report, _run_options(args))
        return 0
    print_summary(args.report[0], cache_dir=args.cache_dir)
    return 0


def run_tui(args: argparse.Namespace) -> int:
    from kernelscope.parsers.detect import check_readable

    if _is_run(args):
        from kernelscope.parsers.ranks.discover import trace_files
        from kernelscope.tui.app import create_app

        traces = trace_files(args.report)
        create_app(cache_dir=args.cache_dir, ranks=traces,
                   run_options=_run_options(args)).run()
        return 0
    report = args.report[0] if args.report else None
    if report is not None:
        check_readable(report)
    from kernelscope.tui.app import create_app

    create_app(report, cache_dir=args.cache_dir).run()
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] == "export":
            return run_export(_export_parser().parse_args(argv[1:]))
        if argv and argv[0] == "summary":
            return run_summary(_summary_parser().parse_args(argv[1:]))
        return run_tui(_tui_parser().parse_args(argv))
    except ReportError as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
