"""The report-kind registry: how each kind of report is detected, opened, analysed,
summarised, exported and shown.

A kind is one :class:`KindSpec`. The CLI, the TUI app and the export path ask the registry for
the kind of their inputs and call its parts; none of them knows which kinds exist. A part is a
callable or a lazy reference ``"package.module:name"`` imported on first use, so a kind's
screens (Textual) and renderers (polars, rich) load only when they are needed, and this module,
low in the layers, imports none of them.

The parts, with the layer each may live in:

- ``detect(probe) -> bool`` (here or the kind's ``model``): whether the inputs are this kind, by
  content (``probe.head``: the first bytes, decompressed);
- ``open(paths, options) -> model`` (``model``): read the inputs (raises ReportError);
- ``analyse(model, options) -> analysis`` (``analysis``): what ``summary`` prints;
- ``summary(analysis, console)`` (``export``): ``kernelscope summary``, a rich Console;
- ``renderers``: for each format it exports (``json``, ``md``, ``csv``, …), the renderer
  ``(model, options) -> str`` of ``kernelscope export --format FORMAT`` (or an
  ``export.writer.Rendered``: the text, or the text in pieces for a large document, and why
  the run fails, for a CI gate); no renderer asks which format it is;
- ``session(app, paths, options)`` (``screens``): the TUI's session of an open report (its
  screens, palette commands, export scopes);
- ``answers`` (``export``): what it answers the MCP server's kernel-level tools;
- ``keys`` (``screens``): the README's heading of its key tables and its help sections.

And the words the shell says of it: ``noun`` (one input, in a sentence), ``suffixes`` (its
files' name endings, which an export's file name drops) and ``usage`` (its line in
``kernelscope --help``).

A kind that takes several inputs (a diff of two reports, a timeline joined with kernel
reports, a directory of per-rank traces) claims a ``subcommand`` (``kernelscope diff A B``,
``kernelscope export diff A B``) and says how many ``inputs`` it takes.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

from kernelscope.core.compressed import head_of
from kernelscope.core.detect import (
    ReportKind,
    _kind_of_head,
    check_readable,
    detect_kind,
)
from kernelscope.core.errors import ReportError, safe_text
from kernelscope.core.options import OpenOptions

Ref = str | Callable[..., Any]
"""A callable, or ``"package.module:attribute"`` naming one (imported when first used)."""


class Probe:
    """The inputs as ``detect`` sees them: their paths and, read once, their first bytes."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = tuple(paths)

    @cached_property
    def head(self) -> bytes:
        """The first 64 bytes of the single input (decompressed), b"" for a directory."""
        path = self.paths[0]
        if is_directory(path):
            return b""
        try:
            return head_of(check_readable(path))
        except OSError as exc:
            raise ReportError(f"{safe_text(path)} cannot be read ({exc.strerror or exc}).") from exc

    @property
    def content(self) -> ReportKind | None:
        """The Nsight format the first bytes announce (None for another format)."""
        return _kind_of_head(self.head)


@dataclass(frozen=True)
class KindSpec:
    """One kind of report and its parts (see the module docstring)."""

    name: str
    title: str
    detect: Callable[[Probe], bool]
    open: Ref
    analyse: Ref
    summary: Ref
    renderers: Mapping[str, Ref]
    """Format name (``json``, ``md``, ``csv``) → its renderer ``(model, options)``, in the
    order ``--help`` lists them."""
    session: Ref
    subcommand: str | None = None
    """The word that picks this kind on the command line (``diff``), if any."""
    inputs: tuple[int, int | None] = (1, 1)
    """How many input paths it takes: (fewest, most; None for any number)."""
    arguments: str = "INPUT..."
    """How a subcommand's help names its inputs (``BEFORE AFTER``)."""
    reads: frozenset[str] = frozenset()
    """The export options beyond the common ones it reads (``pairs``, ``fail_if_slower``);
    the others are refused with a sentence."""
    noun: str = ""
    """One input of this kind in a sentence (``kernel report``); the title when empty."""
    suffixes: tuple[str, ...] = ()
    """Its files' name endings (``.ncu-rep``), which an export's file name drops."""
    usage: str = ""
    """Its line in ``kernelscope --help``: how it is opened and what it shows."""
    answers: Ref | None = None
    """What it answers an agent about its kernels (a module with ``summary``, ``kernel``,
    ``metrics`` and ``record``: ``kinds/ncu/export/ncu_answers.py``), for the MCP server's
    kernel-level tools; None for a kind without kernel records."""
    keys: tuple[str, Ref] | None = None
    """The README's heading of its key tables, and its help sections (a
    ``ui.session.HelpSections``, or a function returning them); None for a kind whose
    screens another kind's tables already cover."""
    _loaded: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def part(self, name: str) -> Any:
        """The part ``name`` (``open``, ``summary``, ``session``, …), imported if a reference."""
        if name not in self._loaded:
            self._loaded[name] = resolve(getattr(self, name))
        return self._loaded[name]

    @property
    def formats(self) -> tuple[str, ...]:
        """The formats it exports, in the order registered: its renderers', then the derived
        formats made from one of them (``DerivedFormat``)."""
        derived = (d.name for d in _derived().values() if d.source in self.renderers)
        return tuple(dict.fromkeys((*self.renderers, *derived)))

    def renderer(self, fmt: str) -> Any:
        """The renderer of ``fmt`` (a format it exports), imported if a reference."""
        key = f"renderers.{fmt}"
        if key not in self._loaded:
            if fmt in self.renderers:
                self._loaded[key] = resolve(self.renderers[fmt])
            else:
                self._loaded[key] = _derived()[fmt].renderer(self.renderer(_derived()[fmt].source))
        return self._loaded[key]

    def accepts(self, count: int) -> bool:
        low, high = self.inputs
        return count >= low and (high is None or count <= high)


class DerivedFormat(NamedTuple):
    """A format made, for every kind, from another format's text (HTML from the Markdown):
    one registration instead of a renderer in each kind."""

    name: str
    source: str
    """The format it is made from (``md``)."""
    convert: Ref
    """``(rendered) -> rendered``: the source renderer's result (text, or an
    ``export.writer.Rendered``) turned into this format's."""

    def renderer(self, source: Callable[..., Any]) -> Callable[..., Any]:
        """The renderer of this format for a kind whose ``source`` renderer is given."""
        convert = resolve(self.convert)

        def render(model: Any, options: Any) -> Any:
            return convert(source(model, options))

        return render


def resolve(ref: Ref) -> Any:
    """The object ``ref`` names (``module``, ``module:name`` or ``module:Class.attribute``; a
    callable is returned as it is)."""
    if not isinstance(ref, str):
        return ref
    module, _, attribute = ref.partition(":")
    found: Any = importlib.import_module(module)
    for name in attribute.split(".") if attribute else ():
        found = getattr(found, name)
    return found


_KINDS: dict[str, KindSpec] = {}
_BUILTIN_LOADED: list[bool] = []
BUILTIN_MODULE = "kernelscope.kinds.builtin"
"""The built-in registrations, imported by name on first use: the registry imports no kind,
so a kind that imports the registry does not import every other kind through it."""


_DERIVED: dict[str, DerivedFormat] = {}


def _registered() -> dict[str, KindSpec]:
    """The registered kinds, the built-in ones first (registered on the first call, with the
    built-in derived formats)."""
    if not _BUILTIN_LOADED:
        _BUILTIN_LOADED.append(True)
        module = importlib.import_module(BUILTIN_MODULE)
        builtin = {kind.name: kind for kind in module.BUILTIN}
        _KINDS.update({**builtin, **_KINDS})
        _DERIVED.update({**{d.name: d for d in module.DERIVED}, **_DERIVED})
    return _KINDS


def _derived() -> dict[str, DerivedFormat]:
    _registered()
    return _DERIVED


def register(kind: KindSpec) -> KindSpec:
    """Add ``kind`` (replacing a kind of the same name); later kinds are tried after."""
    registered = _registered()
    if kind.subcommand is not None:
        other = next((k for k in registered.values() if k.subcommand == kind.subcommand
                      and k.name != kind.name), None)
        if other is not None:
            raise ValueError(f"{other.name} already claims the subcommand {kind.subcommand!r}")
    registered[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    _registered().pop(name, None)


def kinds() -> tuple[KindSpec, ...]:
    """Every registered kind, in the order they are tried."""
    return tuple(_registered().values())


def register_format(derived: DerivedFormat) -> DerivedFormat:
    """Add a format every kind that renders ``derived.source`` exports too."""
    _derived()[derived.name] = derived
    return derived


def suffixes() -> tuple[str, ...]:
    """Every registered kind's file name endings, in the order registered."""
    return tuple(dict.fromkeys(end for kind in _registered().values() for end in kind.suffixes))


def formats() -> tuple[str, ...]:
    """Every format some registered kind exports, in the order they are first registered."""
    return tuple(dict.fromkeys(fmt for kind in _registered().values() for fmt in kind.formats))


def by_subcommand(word: str) -> KindSpec | None:
    return next((k for k in _registered().values() if k.subcommand == word), None)


def as_paths(inputs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> tuple[Path, ...]:
    if isinstance(inputs, (str, os.PathLike)):
        return (Path(inputs),)
    return tuple(Path(p) for p in inputs)


def is_directory(path: Path) -> bool:
    """True for a directory; False for anything else, also a path the system refuses to look
    up (a name too long, a loop of links): ``check_readable`` then says why in one sentence."""
    try:
        return path.is_dir()
    except OSError:
        return False


def kind_for(paths: Sequence[Path], subcommand: str | None = None) -> KindSpec:
    """The kind of ``paths``: the one claiming ``subcommand``, else the first whose
    ``detect`` accepts the content. Raises ReportError with one sentence."""
    paths = tuple(paths)
    if subcommand is not None:
        kind = by_subcommand(subcommand)
        if kind is None:
            raise ReportError(f"No kind of report is opened with {subcommand!r}.")
        if not kind.accepts(len(paths)):
            raise ReportError(f"'{subcommand}' takes {_count(kind.inputs)}, not {len(paths)}.")
        return kind
    if len(paths) == 1 and not is_directory(paths[0]):
        check_readable(paths[0])
    probe = Probe(paths)
    for kind in _registered().values():
        if kind.subcommand is None and kind.accepts(len(paths)) and kind.detect(probe):
            return kind
    if len(paths) == 1:
        detect_kind(paths[0])  # raises the sentence for a file of no known kind
        raise ReportError(
            f"{safe_text(paths[0])} is not a kind of report this kernelscope can open."
        )
    raise _not_together(paths)


def _not_together(paths: Sequence[Path]) -> ReportError:
    """The sentence for several inputs that no kind reads together: what they are, and the
    words that read several reports together."""
    found: dict[str, int] = {}
    for path in paths:
        what = "directory" if is_directory(path) else _noun(kind_for((path,)))
        found[what] = found.get(what, 0) + 1
    these = " and ".join(_counted(count, what) for what, count in found.items())
    words = ", ".join(f"'{kind.subcommand} {kind.arguments}'"
                      for kind in _registered().values() if kind.subcommand is not None)
    return ReportError(
        f"{these} are not one report: say how to read them together ({words}), or give one."
    )


def _counted(count: int, noun: str) -> str:
    if count == 1:
        return f"1 {noun}"
    return f"{count} {'directories' if noun == 'directory' else noun + 's'}"


def _noun(kind: KindSpec) -> str:
    return kind.noun or kind.title


def _count(inputs: tuple[int, int | None]) -> str:
    low, high = inputs
    if high == low:
        return f"{low} input{'s' if low != 1 else ''}"
    return f"{low} or more inputs" if high is None else f"{low} to {high} inputs"


@contextmanager
def opened(kind: KindSpec, paths: Sequence[Path], options: OpenOptions) -> Iterator[Any]:
    """``kind``'s model of ``paths``, closed (when it can be) after the block."""
    model = kind.part("open")(tuple(paths), options)
    try:
        yield model
    finally:
        close = getattr(model, "close", None)
        if callable(close):
            close()
