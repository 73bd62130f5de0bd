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
FROM_ROOT = ("kernelscope/", "tests/", "docs/", "benchmarks/", "samples/")


def top_level_packages() -> set[str]:
    return {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}


NOT_OURS = re.compile(
    r"://"  # a resource URI
    r"|^[/.]"  # a unit (`/s`), a device, a path outside the project (`../shared/wild`)
    r"|^kernelscope/\w[\w-]*/\d+$"  # a JSON schema id (`kernelscope/join/2`)
    r"|^extras/"  # a folder of Nsight Compute's install
)


def doc_paths() -> list[str]:
    tokens = re.findall(r"`([^`\n]+)`", DOC.read_text(encoding="utf-8"))
    paths = [t for t in tokens if " " not in t and '"' not in t and not NOT_OURS.search(t)
             and ("/" in t or t.split(":")[0].endswith(FILE_ENDINGS))]
    return sorted(set(paths))


@cache
def every_tail() -> set[tuple[str, ...]]:
    """Each file under kernelscope/ and each folder that holds one, as all its trailing runs
    of parts. Bytecode and tools' hidden caches are not paths, and neither is a folder that
    holds nothing else (as a move leaves one in a working tree)."""
    tails: set[tuple[str, ...]] = set()
    for path in PACKAGE.rglob("*"):
        parts = path.relative_to(PACKAGE).parts
        if any(p == "__pycache__" or p.startswith(".") for p in parts) or not path.is_file():
            continue
        for end in range(1, len(parts) + 1):
            tails.update(parts[i:end] for i in range(end))
    return tails


def candidates(path: str) -> list[Path]:
    """Where the path may live, in the order it is read."""
    if (path + "/").startswith(FROM_ROOT) or ("/" not in path and path.endswith(".toml")):
        return [ROOT / path]
    if path.split("/")[0] in top_level_packages():
        return [PACKAGE / path]
    return []


def present(place: Path) -> bool:
    """A file, or a folder holding a file that is not bytecode."""
    if place.is_dir():
        return any(f.is_file() and "__pycache__" not in f.parts for f in place.rglob("*"))
    return place.exists()


def exists(path: str, tails: set[tuple[str, ...]]) -> bool:
    path = path.split("<")[0].rstrip("/") or "."
    places = candidates(path)
    if "*" in path:
        return any(any(p.parent.glob(p.name)) for p in places) if places else any(
            PACKAGE.rglob(path))
    if places:
        # a sample is named by its stem (`samples/nsys/join_trace`: its .nsys-rep, .sqlite...)
        return any(present(p) or any(p.parent.glob(p.name + ".*")) for p in places)
    return tuple(path.split("/")) in tails


def files_named(path: str) -> list[Path]:
    """The files ``path`` names: read from its place, or (a bare or layer-relative name) every
    file under kernelscope/ that it ends."""
    places = candidates(path)
    if places:
        return [p for p in places if p.is_file()]
    parts = tuple(path.split("/"))
    return [p for p in PACKAGE.rglob(parts[-1]) if p.parts[-len(parts):] == parts]


def split_attribute(token: str) -> tuple[str, str]:
    """``kinds/diff/render/diff.kernel_names`` -> (``kinds/diff/render/diff.py``, ``kernel_names``);
    ``a/b.py:name`` -> (``a/b.py``, ``name``)."""
    path, _, name = token.partition(":")
    last = path.rsplit("/", 1)[-1]
    if not name and re.fullmatch(r"\w+\.\w+", last) and not last.endswith(FILE_ENDINGS):
        stem, _, name = path.rpartition(".")
        path = stem + ".py"
    return path, name


def defines(path: str, name: str) -> bool:
    text = "\n".join(p.read_text(encoding="utf-8") for p in files_named(path))
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
    path, name = split_attribute(token)
    assert exists(path, every_tail()), f"docs/architecture.md names `{token}`: no such path"
    if name:
        assert defines(path, name), f"docs/architecture.md names `{token}`: {path} has no {name}"


def test_no_module_names_the_old_parsers_package() -> None:
    """The move into ``kinds/`` left no docstring or comment naming ``parsers.*``."""
    stale = re.compile(r"\bparsers[./]\w")
    found = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
             if stale.search(p.read_text(encoding="utf-8"))]
    assert not found
