"""The report-kind interface: a kind added in one package with one registration gets the
CLI's ``summary`` and ``export`` and a TUI screen, and nothing else knows it exists."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import textual.constants

from kernelscope.core.errors import ReportError
from kernelscope.kinds import by_subcommand, kind_for, kinds, register, unregister
from kernelscope.tui.app import create_app
from kernelscope.tui.cli import main
from kernelscope.ui.help import HelpScreen
from tests.toykind import TOY, TOY_DIFF
from tests.toykind.tui import ToyScreen
from tests.tui.helpers import screen_text, settle

ROWS = [("alpha", 1.5), ("beta", 40.0), ("gamma", 0.25)]


@pytest.fixture
def toy_kinds() -> Iterator[None]:
    register(TOY)  # the one registration
    register(TOY_DIFF)
    yield
    unregister(TOY.name)
    unregister(TOY_DIFF.name)


def write_toy(path: Path, rows: list[tuple[str, float]]) -> Path:
    path.write_text("TOYREPORT\n" + "".join(f"{n},{v}\n" for n, v in rows), encoding="utf-8")
    return path


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    return write_toy(tmp_path / "run.toy", ROWS)


def test_the_kind_is_found_by_content_once_registered(toy: Path, toy_kinds: None) -> None:
    assert kind_for([toy]) is TOY
    renamed = toy.rename(toy.with_suffix(".ncu-rep"))  # the extension says nothing
    assert kind_for([renamed]) is TOY
    assert by_subcommand("toydiff") is TOY_DIFF
    assert [k.name for k in kinds()][:2] == ["ncu", "nsys"]


def test_without_the_registration_the_file_is_refused(toy: Path) -> None:
    assert TOY not in kinds()
    with pytest.raises(ReportError, match="is not an Nsight Compute"):
        kind_for([toy])


def test_summary_from_the_cli(toy: Path, toy_kinds: None, capsys) -> None:
    assert main(["summary", str(toy)]) == 0
    out = capsys.readouterr().out
    assert "run.toy: 3 rows, total 41.75" in out
    for name, value in ROWS:
        assert name in out and f"{value:g}" in out


@pytest.mark.parametrize("fmt", ["json", "md", "csv"])
def test_export_from_the_cli(toy: Path, toy_kinds: None, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"out.{fmt}"
    assert main(["export", str(toy), "--format", fmt, "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    if fmt == "json":
        assert json.loads(text) == {"schema": "toy/1", "rows": [list(r) for r in ROWS]}
    elif fmt == "csv":
        assert text.splitlines() == ["name,value", "alpha,1.5", "beta,40", "gamma,0.25"]
    else:
        assert text.startswith("# Toy report: run.toy") and "| beta | 40 |" in text


def test_a_subcommand_kind_takes_two_inputs(tmp_path: Path, toy_kinds: None, capsys) -> None:
    before = write_toy(tmp_path / "before.toy", ROWS)
    after = write_toy(tmp_path / "after.toy", [("alpha", 2.0), ("beta", 30.0)])
    assert main(["export", "toydiff", str(before), str(after), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rows"] == [["alpha", 0.5], ["beta", -10.0]]
    assert main(["summary", "toydiff", str(before), str(after)]) == 0
    assert "after.toy: 2 rows, total -9.5" in capsys.readouterr().out
    assert main(["export", "toydiff", str(before), "--format", "json"]) == 2
    assert "'toydiff' takes 2 inputs, not 1." in capsys.readouterr().err
    assert main(["export", "toydiff", str(before), str(after), "--format", "csv"]) == 2
    assert "exports as md, json, html, not csv" in capsys.readouterr().err  # html: derived


async def test_the_tui_shows_exports_and_copies_it(
    toy: Path, toy_kinds: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(textual.constants, "TEXTUAL_ANIMATIONS", "none")
    monkeypatch.chdir(tmp_path)
    app = create_app(toy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ToyScreen)
        text = screen_text(app)
        assert "toy · run.toy · total 41.75" in text
        for name, value in ROWS:
            assert name in text and f"{value:g}" in text
        await pilot.press("e")
        await settle(pilot)
        exported = (tmp_path / "run.toy.md").read_text(encoding="utf-8")
        assert exported.startswith("# Toy report: run.toy")
        await pilot.press("y")
        await settle(pilot)
        assert app.clipboard == exported
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert "Toy report" in app.screen.markdown


async def test_the_tui_opens_a_subcommand_kind(tmp_path: Path, toy_kinds: None) -> None:
    before = write_toy(tmp_path / "before.toy", ROWS)
    after = write_toy(tmp_path / "after.toy", [("alpha", 2.0)])
    app = create_app([before, after], subcommand="toydiff")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ToyScreen)
        assert "total 0.5" in screen_text(app)
