"""The ``kernelscope`` command: open a report in the TUI, or export/summarise it headless."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

from kernelscope import __version__
from kernelscope.core.errors import DEBUG_ENV, ReportError, safe_text, unexpected_sentence

SUBCOMMANDS = ("export", "summary")
SMART_CASE = "case-insensitive unless it has a capital letter, as the TUI's / filter"
"""The one rule of every kernel-name filter (``core.table.compile_filter``)."""


CACHE_DIR_HELP = "where .nsys-rep SQLite exports are cached"

def _tui_parser() -> argparse.ArgumentParser:
    from kernelscope.kinds import kinds, suffixes

    opened = [textwrap.fill(f"kernelscope {kind.usage}", width=78, initial_indent="  ",
                            subsequent_indent="      ") for kind in kinds() if kind.usage]
    p = argparse.ArgumentParser(
        prog="kernelscope",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="\n".join([
            "Open a report in the terminal; its kind is found by its content:", *opened,
            textwrap.fill(
                "A kind's word with --format or -o writes it headless instead. Also: "
                "'kernelscope export INPUT...', 'kernelscope summary INPUT...' and "
                "'kernelscope whatif TRACE --faster REGEX=FACTOR'; "
                "'kernelscope mcp' serves it all to agents.", width=78),
        ]),
    )
    p.add_argument(
        "report", nargs="*", type=Path,
        help=f"report ({', '.join(suffixes())}; .xz/.gz/.zst ok), or the inputs of a KIND",
    )
    p.add_argument("--cache-dir", type=Path, default=None, help=CACHE_DIR_HELP)
    _reduction_arguments(p)
    p.add_argument("--version", action="version", version=f"kernelscope {__version__}")
    p.add_argument("-k", "--kernel", dest="pattern", default=None,
                   help=f"diff: only the kernels whose name this regex matches ({SMART_CASE})")
    p.add_argument(
        "--pair", action="append", default=[], metavar="BEFORE=AFTER",
        help="diff: pair these kernels (an ID or a name on each side); repeat for more",
    )
    return p


def _reduction_arguments(p: argparse.ArgumentParser) -> None:
    """Where a kind of many inputs (a directory of per-rank traces) reduces them."""
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes reducing many traces (0: in this process; default: "
                   "by size and cores)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="reduce them on this Dask scheduler instead (needs dask and distributed: "
                   "the dask extra)")


def _model_flops_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model-flops", type=float, default=None, metavar="FLOPS",
                   help="the model's FLOPs per step, for MFU (default: the operators' FLOPs "
                        "from the shapes a timeline records)")


def _comparing(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """The options of a diff: kernels paired by hand and the CI gate."""
    p.add_argument(
        "--pair", action="append", default=[], metavar="BEFORE=AFTER",
        help="diff: pair these kernels (an ID or a name on each side); repeat for more",
    )
    p.add_argument(
        "--fail-if-slower", type=float, default=None, metavar="PCT",
        help="diff: exit 1 when the summed kernel time (of the -k kernels) grew by more than "
        "PCT %%, naming the kernels that did",
    )


def _export_parser(kind: str | None = None, *, prog: str | None = None,
                   description: str = "Export a report headless.") -> argparse.ArgumentParser:
    from kernelscope.kinds import formats

    p = argparse.ArgumentParser(
        prog=prog or " ".join(["kernelscope export", *([kind] if kind else [])]),
        description=description,
    )
    p.add_argument("report", nargs="+", type=Path, help=_inputs_help(kind))
    p.add_argument("--format", "-f", choices=formats(), default="json")
    p.add_argument("-o", "--output", type=Path, default=None, help="output file (default: stdout)")
    p.add_argument("--all-metrics", action="store_true", help="every metric of each kernel")
    p.add_argument("-k", "--kernel", dest="pattern", default=None,
                   help=f"only the kernels whose name this regex matches ({SMART_CASE})")
    p.add_argument(
        "--top",
        type=int,
        default=None,
        help="only the N kernel families with the most time (their launches, one record each)",
    )
    p.add_argument(
        "--process", default=None, help="only kernels of this process (its id or name)"
    )
    p.add_argument("--cache-dir", type=Path, default=None, help=CACHE_DIR_HELP)
    _model_flops_argument(p)
    _reduction_arguments(p)
    _comparing(p)
    return p


def _summary_parser(kind: str | None = None) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=" ".join(["kernelscope summary", *([kind] if kind else [])]),
        description="Print a report's essentials.",
    )
    p.add_argument("report", nargs="+", type=Path, help=_inputs_help(kind))
    p.add_argument(
        "--process", default=None, help="only kernels of this process (its id or name)"
    )
    p.add_argument("--cache-dir", type=Path, default=None, help=CACHE_DIR_HELP)
    _model_flops_argument(p)
    _reduction_arguments(p)
    return p


def _inputs_help(kind: str | None) -> str:
    if kind is None:
        return "the report (or, after a KIND's word, its inputs)"
    from kernelscope.kinds import by_subcommand

    spec = by_subcommand(kind)
    return f"{spec.arguments}: the {spec.title}" if spec is not None else "the inputs"


KIND_OPTIONS = {
    "diff": {"pattern", "pair", "fail_if_slower"},
    "join": {"top"},
    "ranks": {"top", "workers", "scheduler"},
}
"""The options beyond the inputs, --format, -o and --cache-dir that each kind's command takes
(``--help`` lists those only; the others are still read, to be refused with a sentence)."""
COMMON_OPTIONS = {"help", "report", "format", "output", "cache_dir"}
TOP_HELP = {
    "join": "only the first N rows of the ranking and of the kernels not profiled",
    "ranks": "only the first N rows of each long table",
}


def _kind_parser(kind: str) -> argparse.ArgumentParser:
    """``kernelscope diff|join|ranks ...``: its own help, and its headless options."""
    p = _export_parser(
        kind, prog=f"kernelscope {kind}",
        description=(
            f"Open the inputs in the terminal; with --format or -o, write them headless instead "
            f"(as 'kernelscope export {kind}' does; 'kernelscope summary {kind}' prints the "
            "essentials)."
        ),
    )
    shown = COMMON_OPTIONS | KIND_OPTIONS.get(kind, set())
    for action in p._actions:  # argparse has no public way to hide an option once added
        if action.dest not in shown:
            action.help = argparse.SUPPRESS
        elif action.dest == "top" and kind in TOP_HELP:
            action.help = TOP_HELP[kind]
    return p


def _fail(message: str) -> int:
    print(f"kernelscope: {safe_text(message)}", file=sys.stderr)
    return 2


def _kind_word(argv: list[str]) -> tuple[str | None, list[str]]:
    """A leading word naming a kind that claims a subcommand (``diff A B``), and the rest."""
    from kernelscope.kinds import by_subcommand

    if argv and by_subcommand(argv[0]) is not None:
        return argv[0], argv[1:]
    return None, argv


EXPORT_OPTIONS = ("--format", "-f", "--output", "-o", "--top", "--fail-if-slower")


def _wants_export(argv: list[str]) -> bool:
    """A kind's subcommand given export options (``--format``, ``-o``) runs headless."""
    return any(a in EXPORT_OPTIONS
               or a.startswith(("--format=", "--output=", "--top=", "--fail-if-slower="))
               for a in argv)


def _wants_help(argv: list[str]) -> bool:
    return any(a in ("-h", "--help") for a in argv)


def _pairs(texts: list[str]) -> tuple[tuple[str, str], ...]:
    if not texts:
        return ()
    from kernelscope.core.options import parse_pair

    return tuple(parse_pair(text) for text in texts)


def run_export(args: argparse.Namespace, subcommand: str | None = None) -> int:
    from kernelscope.core.options import checked_model_flops
    from kernelscope.export.writer import (
        ExportOptions,
        check_not_an_input,
        check_stdout_not_an_input,
        render_checked,
        write_text,
    )

    if args.fail_if_slower is not None and not args.fail_if_slower >= 0:
        raise ReportError("--fail-if-slower takes a percentage of 0 or more.")
    options = ExportOptions(
        fmt=args.format,
        pattern=args.pattern,
        top=getattr(args, "top", None),
        all_metrics=getattr(args, "all_metrics", False),
        cache_dir=args.cache_dir,
        workers=args.workers,
        scheduler=args.scheduler,
        process=getattr(args, "process", None),
        pairs=_pairs(args.pair),
        fail_if_slower=args.fail_if_slower,
        model_flops=checked_model_flops(getattr(args, "model_flops", None), "--model-flops"),
    )
    if args.output is None:  # refused before the work, not after it
        check_stdout_not_an_input(args.report)
    else:
        check_not_an_input(args.output, args.report)
    result = render_checked(args.report, options, subcommand=subcommand)
    if args.output is None:
        result.write_to(sys.stdout)
        sys.stdout.flush()
    else:
        write_text(result, args.output, inputs=args.report)
    if result.failure is not None:
        print(f"kernelscope: {safe_text(result.failure)}", file=sys.stderr)
        return result.failure_code
    return 0


def run_summary(args: argparse.Namespace, subcommand: str | None = None) -> int:
    from kernelscope.core.options import OpenOptions, checked_model_flops
    from kernelscope.export.summary import print_summary
    from kernelscope.export.writer import check_stdout_not_an_input

    check_stdout_not_an_input(args.report)
    options = OpenOptions(cache_dir=args.cache_dir, process=args.process, workers=args.workers,
                          scheduler=args.scheduler,
                          model_flops=checked_model_flops(args.model_flops, "--model-flops"))
    print_summary(args.report, subcommand=subcommand, options=options)
    return 0


def run_tui(args: argparse.Namespace, subcommand: str | None = None) -> int:
    from kernelscope.core.detect import check_readable
    from kernelscope.kinds import kind_for

    pairs = _pairs(args.pair)
    if (pairs or args.pattern) and subcommand is None:
        raise ReportError("-k and --pair choose the kernels of a diff in the TUI: "
                          "kernelscope diff BEFORE AFTER -k REGEX.")

    if subcommand is not None or len(args.report) > 1 or any(p.is_dir() for p in args.report):
        kind_for(args.report, subcommand)  # the right number of inputs, before the TUI starts
    else:
        for path in args.report:
            check_readable(path)
    if not _on_a_terminal():
        raise ReportError(
            "Standard output is not a terminal, so the TUI does not start; print the "
            "essentials with 'kernelscope summary REPORT' or write a report with 'kernelscope "
            "export REPORT -f md -o FILE'."
        )
    from kernelscope.ui.collection import one_app

    with one_app():  # this process runs one TUI: no collection while it starts
        from kernelscope.tui.app import create_app

        app = create_app(args.report or None, cache_dir=args.cache_dir, subcommand=subcommand,
                         workers=args.workers, scheduler=args.scheduler,
                         pattern=args.pattern, pairs=pairs)
        app.run()
    failed = getattr(app, "fatal_error", None)
    if failed:
        return _fail(str(failed))
    return app.return_code or 0


def _on_a_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):  # no stream, or a closed one
        return False


def _one_command() -> contextlib.AbstractContextManager[None]:
    from kernelscope.ui.collection import one_command

    return one_command()


def _headless_command(argv: list[str]) -> Callable[[], int] | None:
    """The command ``argv`` names when it prints or writes and exits (an export, a summary,
    a what-if, a kind's export such as ``join T K -f json``); None for the app and ``mcp``."""
    word = argv[0] if argv else None
    if word == "export":
        kind, rest = _kind_word(argv[1:])
        return lambda: run_export(_export_parser(kind).parse_args(rest), kind)
    if word == "whatif":
        from kernelscope.export.whatif import run_whatif

        return lambda: run_whatif(argv[1:])
    if word == "summary":
        kind, rest = _kind_word(argv[1:])
        return lambda: run_summary(_summary_parser(kind).parse_args(rest), kind)
    if word == "mcp":
        return None
    kind, rest = _kind_word(argv)
    if kind is not None and (_wants_export(rest) or _wants_help(rest)):
        return lambda: run_export(_kind_parser(kind).parse_args(rest), kind)
    return None


def entry() -> int:
    """The ``kernelscope`` program (the console script, ``python -m kernelscope``)."""
    return main(sys.argv[1:], program=True)


def main(argv: list[str] | None = None, *, program: bool = False) -> int:
    """Run the command line ``argv`` (default: this program's arguments) in this process;
    returns the exit code. ``program``: this process runs only this command line and then
    exits (``entry``), so a headless command runs without cyclic collections
    (``ui/collection.py:one_command``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):
        # A report's text (a kernel or file name) that is not UTF-8 must not fail to print.
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    try:
        command = _headless_command(argv)
        if command is not None:
            with _one_command() if program else contextlib.nullcontext():
                return command()
        if argv and argv[0] == "mcp":
            from kernelscope.mcp.command import main as serve_mcp

            return serve_mcp(argv[1:])
        kind, rest = _kind_word(argv)
        return run_tui(_tui_parser().parse_args(rest), kind)
    except ReportError as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # the last line of defence: one sentence, never a traceback
        if os.environ.get(DEBUG_ENV):
            raise
        return _fail(unexpected_sentence(exc))
