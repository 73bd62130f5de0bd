"""``kernelscope mcp`` on the command line: a root that is not a folder is one sentence and
exit 2, before any server starts."""

from __future__ import annotations

from pathlib import Path

from tests.mcp.conftest import cli_process


def test_a_root_that_is_not_a_folder_is_one_sentence(tmp_path: Path) -> None:
    done = cli_process("mcp", "--root", tmp_path / "nope")
    assert done.returncode == 2
    assert done.stderr == f"kernelscope: The root {tmp_path}/nope is not a folder.\n"
    assert done.stdout == ""


def test_help_names_the_roots() -> None:
    done = cli_process("mcp", "--help")
    assert done.returncode == 0
    assert "--root DIR" in done.stdout and "reading only files under the roots" in done.stdout


def test_an_unforeseen_error_is_the_clis_one_sentence() -> None:
    from kernelscope.core.errors import unexpected_sentence

    assert unexpected_sentence(ValueError("bad value\nsecond line")) == (
        "Unexpected error (ValueError: bad value); set KERNELSCOPE_DEBUG=1 for the traceback "
        "and please report it.")
    assert unexpected_sentence(KeyError()) == (
        "Unexpected error (KeyError); set KERNELSCOPE_DEBUG=1 for the traceback and please "
        "report it.")
