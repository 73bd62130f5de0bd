"""Every subcommand prints its own help; a command used the wrong way says what is wrong in
one sentence (exit 2), and the TUI never starts on an output that is not a terminal.

The help and the misuse sentences are read from ``main`` in this process; a program of its
own runs where only one shows the answer: its exit status and standard error on misuse, and
its standard output a file rather than a terminal."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from dataclasses import dataclass

import pytest

from kernelscope.tui.cli import main
from tests.conftest import NCU_SAMPLES

ZOO = NCU_SAMPLES / "zoo_a.ncu-rep.xz"
SMALL = NCU_SAMPLES / "small_family.ncu-rep.xz"


def kernelscope(*args: str, stdout=subprocess.PIPE) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    return subprocess.run([sys.executable, "-m", "kernelscope", *args], stdout=stdout,
                          stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                          timeout=120)


@dataclass
class Answer:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def in_process(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """``run(*args)``: the command line run by ``main`` in this process, its exit code (an
    argparse exit's too), standard output and standard error. The help is wrapped at 80
    columns, as a program whose output is a pipe wraps it."""
    monkeypatch.setenv("COLUMNS", "80")

    def run(*args: str) -> Answer:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as done:
                code = done.code if isinstance(done.code, int) else 2
        return Answer(code, out.getvalue(), err.getvalue())

    return run


@pytest.mark.parametrize(("argv", "usage", "inputs"), [
    (["diff", "--help"], "usage: kernelscope diff [-h]",
     "BEFORE AFTER: the before/after diff of two kernel"),
    (["join", "--help"], "usage: kernelscope join [-h]",
     "TRACE KERNELS...: the timeline joined with kernel"),
    (["ranks", "-h"], "usage: kernelscope ranks [-h]", "TRACE...: the ranks of one run"),
    (["export", "diff", "--help"], "usage: kernelscope export diff [-h]",
     "BEFORE AFTER: the before/after diff"),
    (["summary", "join", "--help"], "usage: kernelscope summary join [-h]",
     "TRACE KERNELS...: the timeline joined"),
])
def test_each_subcommand_prints_its_own_help(in_process, argv, usage, inputs):
    done = in_process(*argv)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(usage)
    assert inputs in done.stdout
    assert "Open a report in the terminal" not in done.stdout  # the top-level help's words


def test_a_subcommand_help_names_its_headless_options(in_process):
    done = in_process("diff", "--help")
    for option in ("--format", "-o OUTPUT", "--pair BEFORE=AFTER", "--fail-if-slower PCT"):
        assert option in done.stdout


def test_summary_of_two_reports_says_what_is_wrong():
    done = kernelscope("summary", str(ZOO), str(SMALL))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "kernelscope: 2 kernel reports are not one report: say how to read them together "
        "('ranks TRACE...', 'join TRACE KERNELS...', 'diff BEFORE AFTER'), or give one.\n"
    )


@pytest.mark.parametrize("argv", [[str(ZOO)], []], ids=["a report", "the bundled sample"])
def test_the_tui_refuses_an_output_that_is_not_a_terminal(tmp_path, argv):
    out = tmp_path / "out.txt"
    with open(out, "w") as fh:
        done = kernelscope(*argv, stdout=fh)
    assert done.returncode == 2
    assert done.stderr == (
        "kernelscope: Standard output is not a terminal, so the TUI does not start; print the "
        "essentials with 'kernelscope summary REPORT' or write a report with 'kernelscope "
        "export REPORT -f md -o FILE'.\n"
    )
    assert out.read_bytes() == b""


@pytest.mark.parametrize(("kind", "listed", "left_out"), [
    ("join", ["--format", "-o OUTPUT", "--top TOP", "--cache-dir"],
     ["--all-metrics", "--kernel", "--process", "--pair", "--fail-if-slower", "--workers"]),
    ("ranks", ["--format", "-o OUTPUT", "--top TOP", "--workers", "--scheduler"],
     ["--all-metrics", "--kernel", "--process", "--pair", "--fail-if-slower"]),
])
def test_join_and_ranks_help_list_only_their_options(in_process, kind, listed, left_out):
    done = in_process(kind, "--help")
    assert done.returncode == 0, done.stderr
    for option in listed:
        assert option in done.stdout, option
    for option in left_out:
        assert option not in done.stdout, option


def test_a_left_out_option_is_still_refused_with_a_sentence(in_process):
    trace = NCU_SAMPLES.parent / "nsys" / "join_trace.sqlite.xz"
    done = in_process("join", str(trace), str(ZOO), "--format", "md", "-k", "gemm")
    assert done.returncode == 2
    assert done.stderr.strip() == ("kernelscope: -k filters the kernels of one report; a join "
                                   "ranks them all.")


def test_help_and_the_not_a_report_sentence_name_pytorch_traces(in_process, tmp_path):
    help_text = in_process("--help").stdout
    assert "a PyTorch profiler (Kineto) trace" in help_text
    assert ".pt.trace.json;" in " ".join(help_text.split())  # the inputs argument's endings
    other = tmp_path / "notes.txt"
    other.write_text("not a report\n")
    done = in_process("summary", str(other))
    assert done.returncode == 2
    assert done.stderr.strip().endswith("nor a PyTorch profiler (Kineto) trace.")
