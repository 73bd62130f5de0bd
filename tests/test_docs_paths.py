"""docs/architecture.md stays true: every path it names in backticks exists in the tree.

A token is a path when it has a `/` or ends like a file (`.py`, `.tcss`, `.md`, `.toml`).
One that starts with a top-level package (`core/`, `kinds/...`) or with `kernelscope/`,
`tests/` is read from that place; a layer name (`model/`, `screens/widgets/`) or a bare file
name (`app.py`) is read in context, so it must end some real path under `kernelscope/`.
`file.py:name` also needs `name` defined in that file. A placeholder (`<kind>`) cuts the
path there; a glob (`name_*.py`) must match at least one file.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "kernelscope"
DOC = ROOT / "docs" / "architecture.md"
FILE_ENDINGS = (".py", ".tcss", ".md", ".toml")
FROM_ROOT = ("kernelscope/", "tests/", "docs/", "benchmarks/")


def top_level_packages() -> set[str]:
    return {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}


def doc_paths() -> list[str]:
    tokens = re.findall(r"`([^`\n]+)`", DOC.read_text(encoding="utf-8"))
    paths = [t for t in tokens if " " not in t and '"' not in t
             and ("/" in t or t.split(":")[0].endswith(FILE_ENDINGS))]
    return sorted(set(paths))


@cache
def every_tail() -> set[tuple[str, ...]]:
    """Each path under kernelscope/, as all its trailing runs of parts."""
    tails: set[tuple[str, ...]] = set()
    for path in PACKAGE.rglob("*"):
        if "__pycache__" in path.parts:
            continue
        parts = path.relative_to(PACKAGE).parts
        tails.update(parts[i:] for i in range(len(parts)))
    return tails


def candidates(path: str) -> list[Path]:
    """Where the path may live, in the order it is read."""
    if (path + "/").startswith(FROM_ROOT) or ("/" not in path and path.endswith(".toml")):
        return [ROOT / path]
    if path.split("/")[0] in top_level_packages():
        return [PACKAGE / path]
    return []


def exists(path: str, tails: set[tuple[str, ...]]) -> bool:
    path = path.split("<")[0].rstrip("/") or "."
    places = candidates(path)
    if "*" in path:
        return any(any(p.parent.glob(p.name)) for p in places) if places else any(
            PACKAGE.rglob(path))
    if places:
        return any(p.exists() for p in places)
    return tuple(path.split("/")) in tails


def defines(path: str, name: str) -> bool:
    text = "\n".join(p.read_text(encoding="utf-8") for p in candidates(path) if p.is_file())
    return re.search(rf"^(?:def|class|async def) {name}\b|^{name}\s*[:=]", text, re.M) is not None


def test_the_doc_names_paths() -> None:
    paths = doc_paths()
    assert "kinds/ncu/model/" in paths and "export/writer.py:render" in paths


def test_a_stale_path_is_caught() -> None:
    tails = every_tail()
    assert exists("kinds/ncu/model/report.py", tails)
    assert not exists("kinds/ncu/model/no_such_module.py", tails)
    assert not exists("parsers/", tails)  # the folder the move emptied
    assert not exists("tui/widgets/", tails)  # read from kernelscope/, not by its tail
    assert exists("screens/widgets/", tails) and not exists("screens/gadgets/", tails)
    assert defines("export/writer.py", "render") and not defines("export/writer.py", "nothing")


@pytest.mark.parametrize("token", doc_paths())
def test_every_path_in_the_architecture_doc_exists(token: str) -> None:
    path, _, name = token.partition(":")
    assert exists(path, every_tail()), f"docs/architecture.md names `{token}`: no such path"
    if name:
        assert defines(path, name), f"docs/architecture.md names `{token}`: {path} has no {name}"
