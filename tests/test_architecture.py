"""The layers import one way, with no cycle, deferred imports included.

The tree is shaped by kind (docs/architecture.md): the shared ``core`` at the bottom, each
kind's package (``kinds/<kind>/``, and the ``timeline`` both timeline kinds share) with its
layer subpackages ``model`` < ``analysis`` < ``render`` < ``export`` < ``screens``, the
registry (``kinds/registry.py``, ``kinds/builtin.py``), the shared ``render``, ``export`` and
``ui``, and the app shell (``tui``, ``mcp``). A module may import its own tier and the tiers
below it. Every module's source is parsed, so imports inside functions and under
``TYPE_CHECKING`` count as much as the ones at the top; import-linter checks the same arrows in
CI, and that the kinds stay independent of each other (pyproject.toml).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import kernelscope
from kernelscope.kinds import BUILTIN, KindSpec
from kernelscope.kinds.builtin import DERIVED

ROOT = Path(kernelscope.__file__).resolve().parent
REPO = ROOT.parent
ZOO = REPO / "samples" / "ncu" / "zoo_a.ncu-rep.xz"

TIERS = (  # lowest first: a module may import its own tier and the ones before it
    "base", "core", "model", "analysis", "render", "registry", "export", "ui", "screens", "shell",
)
KIND_LAYERS = ("model", "analysis", "render", "export", "screens")
"""The layer subpackages of a kind's package (and of the shared timeline)."""
SHARED = {"core": "core", "render": "render", "export": "export", "ui": "ui", "tui": "shell",
          "mcp": "shell", "__main__": "shell"}
NO_UI = ("textual", "rich")
"""Third-party UI packages each tier may not import."""
FORBIDDEN = {"core": NO_UI, "model": NO_UI, "analysis": NO_UI, "registry": NO_UI,
             "render": ("textual",), "export": ("textual",)}
KIND_PARTS = {  # the tiers each part of a kind may come from
    "open": ("model", "analysis", "registry"),
    "analyse": ("model", "analysis", "registry"),
    "summary": ("export",),
    "session": ("screens",),
}
RENDERERS_FROM = ("export",)
"""The tier every renderer of a format comes from."""


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


def tier(module: str) -> str:
    """The tier of ``module``: a kind's layer subpackage, else its shared package's."""
    parts = module.split(".")
    if module == "kernelscope":
        return "base"
    top = parts[1]
    if top in SHARED:
        return SHARED[top]
    inner = {"kinds": 3, "timeline": 2}.get(top)
    if inner is None:
        raise AssertionError(f"{module} is in no layer: add its package to SHARED")
    if len(parts) > inner and parts[inner] in KIND_LAYERS:
        return parts[inner]
    if top == "kinds":
        return "registry"  # the registry, builtin, and a kind package's own __init__
    return "core"  # the timeline package's own __init__


def layer(module: str) -> int:
    return TIERS.index(tier(module))


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
    assert "kernelscope.tui.app" in MODULES and "kernelscope.kinds.ncu.model.report" in MODULES
    assert tier("kernelscope.kinds.ncu.model.report") == "model"
    assert tier("kernelscope.timeline.screens.timeline") == "screens"
    for module in MODULES:
        layer(module)


def test_no_import_goes_up_a_layer() -> None:
    bad = []
    for module in MODULES:
        own = layer(module)
        for name, line in sorted(imports(module)):
            if name in MODULES and layer(name) > own:
                bad.append(f"{module}:{line} imports {name} ({tier(name)})")
            top = name.split(".")[0]
            if top in FORBIDDEN.get(TIERS[own], ()):
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


def test_an_empty_cell_is_one_mark() -> None:
    """An empty cell is ``core.units.EMPTY_CELL`` (an em dash); a lone en dash, which only
    joins a range, never stands for one."""
    lone_en_dash = re.compile(r"""(["'])\u2013\1""")
    found = [name for name, path in modules().items()
             if lone_en_dash.search(path.read_text(encoding="utf-8"))]
    assert not found


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
            assert tier(module) in allowed, (kind.name, part, module)
            assert callable(KindSpec.part(kind, part)), (kind.name, part)
        for fmt, ref in kind.renderers.items():
            module = ref.partition(":")[0] if isinstance(ref, str) else ref.__module__
            assert tier(module) in RENDERERS_FROM, (kind.name, fmt, module)
            assert callable(kind.renderer(fmt)), (kind.name, fmt)
        for derived in DERIVED:  # a format made from another one's text, by the shared export
            assert isinstance(derived.convert, str), derived.name
            assert tier(derived.convert.partition(":")[0]) in RENDERERS_FROM, derived.name
            if derived.source in kind.renderers:
                assert callable(kind.renderer(derived.name)), (kind.name, derived.name)
        if kind.answers is not None:  # what it answers the MCP server, text of the export
            assert isinstance(kind.answers, str) and tier(kind.answers) == "export", kind.name
            assert callable(kind.part("answers").kernel), kind.name
        if kind.keys is not None:  # the help sections of its screens
            ref = kind.keys[1]
            assert isinstance(ref, str) and tier(ref.partition(":")[0]) == "screens", kind.name


def _imported_after(code: str) -> list[str]:
    probe = (
        "import sys\n" + code + "\n"
        "print(','.join(sorted({n.split('.')[0] for n in sys.modules})))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout.strip().splitlines()[-1]
    return out.split(",")


def _model_modules() -> list[str]:
    """Every module of core and of each model and analysis subpackage."""
    names = []
    for package in [name for name in MODULES if MODULES[name].name == "__init__.py" and (
            name == "kernelscope.core" or name.rpartition(".")[2] in ("model", "analysis"))]:
        module = importlib.import_module(package)
        names.append(package)
        names += [m.name for m in pkgutil.walk_packages(module.__path__, package + ".")]
    return sorted(set(names))


TABLE_MODULE = "kernelscope.ui.widgets.sized_table"


def test_every_table_is_a_sized_table() -> None:
    """Textual's DataTable is used only through ``ui/widgets/sized_table.py``, so every table
    of every screen has its column widths before it first paints (issue 39)."""
    users = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.ImportFrom) and (node.module or "").startswith("textual")
                    and any(alias.name == "DataTable" for alias in node.names)):
                users.append(module)
    assert users == [TABLE_MODULE]


def test_the_model_never_imports_textual_or_rich() -> None:
    names = _model_modules()
    assert "kernelscope.kinds.ncu.model.report" in names
    loaded = _imported_after(f"import importlib\nfor m in {names!r}: importlib.import_module(m)")
    assert not {"textual", "rich"} & set(loaded)
    assert "kernelscope" in loaded


@pytest.mark.skipif(not ZOO.exists(), reason=f"no sample {ZOO}")
def test_the_kernel_list_pass_imports_neither_polars_textual_nor_the_binding() -> None:
    code = (
        "from kernelscope.kinds.ncu.model.report import NcuReport\n"
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


def test_import_linter_holds_the_contracts_of_the_tree() -> None:
    """At least five contracts: the shared layers, the layers inside every kind, the base
    kinds independent of each other, and each package named in them exists."""
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    assert len(contracts) >= 5
    kinds = {p.name for p in (ROOT / "kinds").iterdir() if (p / "__init__.py").exists()}
    inside = next(c for c in contracts if "containers" in c)
    contained = {m for name in inside["containers"] for m in _matching(name)}
    assert contained >= {"kernelscope.timeline", *(f"kernelscope.kinds.{k}" for k in kinds)}
    assert [layer.strip("()") for layer in inside["layers"]] == list(reversed(KIND_LAYERS))
    independent = [set(c["modules"]) for c in contracts if c["type"] == "independence"]
    assert {"kernelscope.kinds.ncu", "kernelscope.kinds.nsys", "kernelscope.kinds.kineto"} in (
        independent
    )
    for contract in contracts:
        for key in ("containers", "modules", "source_modules"):
            for name in contract.get(key, ()):
                assert _matching(name), (contract["name"], name)


def _matching(name: str) -> list[str]:
    """The modules a contract's name stands for (import-linter's ``*``: one module level)."""
    pattern = re.compile("^" + re.escape(name).replace(r"\*", r"[^.]+") + "$")
    return [module for module in MODULES if pattern.match(module)]


MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def test_no_module_over_400_lines_nor_function_over_60() -> None:
    """The size rule of the developers' guide, for every module of the package (a function
    from its ``def`` to its last line, decorators apart)."""
    over: list[str] = []
    for path in sorted(ROOT.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        name = path.relative_to(REPO).as_posix()
        lines = source.count("\n")
        if lines > MAX_MODULE_LINES:
            over.append(f"{name}: {lines} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    over.append(f"{name}:{node.lineno} {node.name}: {length} lines")
    assert over == []
