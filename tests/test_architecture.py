"""The layers import one way, with no cycle, deferred imports included.

``core`` (the shared vocabulary) ← ``parsers`` (model and analysis) ← ``render`` (text and
charts) ← ``kinds`` (the registry) ← ``export`` ← ``tui.widgets`` ← ``screens`` ← the app shell
(the rest of ``tui``). Every module's
source is parsed, so imports inside functions and under ``TYPE_CHECKING`` count as much as the
ones at the top; import-linter checks the same arrows in CI (pyproject.toml).
"""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import kernelscope
import kernelscope.parsers
from kernelscope.kinds import BUILTIN, KindSpec

ROOT = Path(kernelscope.__file__).resolve().parent
REPO = ROOT.parent
ZOO = REPO / "samples" / "ncu" / "zoo_a.ncu-rep.xz"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # lowest first: a module may import its own layer and the ones before it
    ("base", ("kernelscope",)),
    ("core", ("kernelscope.core",)),
    ("parsers", ("kernelscope.parsers",)),
    ("render", ("kernelscope.render",)),
    ("kinds", ("kernelscope.kinds",)),
    ("export", ("kernelscope.export",)),
    ("widgets", ("kernelscope.tui.widgets",)),
    ("screens", ("kernelscope.screens",)),
    ("shell", ("kernelscope.tui", "kernelscope.__main__", "kernelscope.mcp")),
)
NO_UI = ("textual", "rich")
"""Third-party UI packages each layer may not import."""
FORBIDDEN = {"core": NO_UI, "parsers": NO_UI, "render": ("textual",), "kinds": NO_UI,
             "export": ("textual",)}
KIND_PARTS = {  # the layers each part of a kind may come from
    "open": ("parsers", "kinds"),
    "analyse": ("parsers", "kinds"),
    "summary": ("export",),
    "export": ("export",),
    "session": ("screens",),
}


def modules() -> dict[str, Path]:
    """Every kernelscope module by its dotted name (packages by their ``__init__``)."""
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = modules()


def layer(module: str) -> int:
    """The index in LAYERS of the deepest prefix that names ``module``'s layer."""
    best, best_len = -1, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = i, len(prefix)
    assert best >= 0, f"{module} is in no layer"
    if best == 0 and module != "kernelscope":
        raise AssertionError(f"{module} is in no layer: add its package to LAYERS")
    return best


def _target(name: str) -> str:
    """The kernelscope module ``name`` lives in (a module, else its nearest package)."""
    while name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def imports(module: str) -> set[tuple[str, int]]:
    """(imported name, line) of every import in ``module``, at any depth of its source;
    kernelscope imports are resolved to the module that holds the name."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[tuple[str, int]] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add((full if full in MODULES else base, node.lineno))
    return {
        (_target(name) if name.split(".")[0] == "kernelscope" else name, line)
        for name, line in found
    }


def graph() -> dict[str, set[str]]:
    return {
        m: {name for name, _ in imports(m) if name in MODULES and name != m} for m in MODULES
    }


def test_every_module_is_in_a_layer() -> None:
    assert "kernelscope.tui.app" in MODULES and "kernelscope.parsers.ncu.report" in MODULES
    for module in MODULES:
        layer(module)


def test_no_import_goes_up_a_layer() -> None:
    bad = []
    for module in MODULES:
        own = layer(module)
        for name, line in sorted(imports(module)):
            if name in MODULES and layer(name) > own:
                bad.append(f"{module}:{line} imports {name} ({LAYERS[layer(name)][0]})")
            top = name.split(".")[0]
            if top in FORBIDDEN.get(LAYERS[own][0], ()):
                bad.append(f"{module}:{line} imports {name}")
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle() -> None:
    cycles = _cycles(graph())
    assert not cycles, f"import cycles: {cycles}"


def test_the_cycle_check_finds_cycles() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(edges) == [["a", "b", "c"]]


def test_kinds_parts_come_from_their_layers() -> None:
    """A kind's lazily named parts are imports too: each from the layer its role allows."""
    for kind in BUILTIN:
        for part, allowed in KIND_PARTS.items():
            ref = getattr(kind, part)
            module = ref.partition(":")[0] if isinstance(ref, str) else ref.__module__
            assert LAYERS[layer(module)][0] in allowed, (kind.name, part, module)
            assert callable(KindSpec.part(kind, part)), (kind.name, part)


def _imported_after(code: str) -> list[str]:
    probe = (
        "import sys\n" + code + "\n"
        "print(','.join(sorted({n.split('.')[0] for n in sys.modules})))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout.strip().splitlines()[-1]
    return out.split(",")


def test_parsers_never_import_textual_or_rich() -> None:
    names = [
        m.name for m in pkgutil.walk_packages(kernelscope.parsers.__path__, "kernelscope.parsers.")
    ]
    assert "kernelscope.parsers.ncu.report" in names
    loaded = _imported_after(f"import importlib\nfor m in {names!r}: importlib.import_module(m)")
    assert not {"textual", "rich"} & set(loaded)
    assert "kernelscope" in loaded


@pytest.mark.skipif(not ZOO.exists(), reason=f"no sample {ZOO}")
def test_the_kernel_list_pass_imports_neither_polars_textual_nor_the_binding() -> None:
    code = (
        "from kernelscope.parsers.ncu.report import NcuReport\n"
        f"report = NcuReport({str(ZOO)!r})\n"
        "assert sum(len(b) for b in report.iter_summaries()) == report.kernel_count\n"
    )
    loaded = _imported_after(code)
    assert "kernelscope" in loaded
    assert not {"polars", "textual", "rich", "ncu_report"} & set(loaded)


@pytest.mark.skipif(not ZOO.exists(), reason=f"no sample {ZOO}")
@pytest.mark.parametrize("fmt", ["md", "json"])
def test_markdown_and_json_exports_import_neither_polars_nor_textual(fmt: str) -> None:
    code = (
        "import contextlib, io\n"
        "from kernelscope.tui.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['export', {str(ZOO)!r}, '--format', {fmt!r}]) == 0"
    )
    loaded = _imported_after(code)
    assert "kernelscope" in loaded
    assert not {"polars", "textual"} & set(loaded)


def test_import_linter_layers_name_every_shell_module() -> None:
    """import-linter's layers cannot nest ``tui.widgets`` inside ``tui``, so its top layer
    names the shell's modules one by one: a new one must be added there too."""
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c["type"] == "layers")
    shell = {name.strip() for name in layers[0].split(":")}
    expected = {  # the MCP server's package is named whole: it has no layer inside it
        m.partition(".mcp.")[0] + ".mcp" if ".mcp." in m else m
        for m in MODULES if LAYERS[layer(m)][0] == "shell" and m != "kernelscope.tui"
    }
    assert shell == expected
    below = [name for name, _ in reversed(LAYERS[1:-1])]
    assert [name.removeprefix("kernelscope.").removeprefix("tui.") for name in layers[1:]] == (
        below
    )
