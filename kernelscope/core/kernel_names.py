"""Short kernel names by meaning, unique within a report, at most ``MAX_SHORT`` characters.

A demangled CUDA kernel name carries a lot that a glance does not need: the return type
(``void``), the parameter list, namespaces (``at::native::``), literal casts (``(int)4``),
template arguments that are plumbing (``std::array<char *, 3>``, a vector width) and, in
vendor libraries, tuning knobs in the identifier (``stage3_warpsize4x2x1``). What tells two
kernels apart is usually the kernel's own name plus the functor or the distinguishing template
argument: ``vectorized_elementwise<CUDAFunctor_add>`` and ``vectorized_elementwise<Gelu>``.
A kernel that only launches something (``thrust``'s ``_kernel_agent``, Kokkos'
``cuda_parallel_launch_local_memory<ParallelFor<…>>``, CUTLASS' ``Kernel<Gemm<…>>``) is named
by what it launches: the enclosing function and number of a lambda (``graupel λ#4``), the
Kokkos functor, the CUTLASS/CuTe tile shape (``Gemm 128x128x32``).

:func:`compact_name` gives that name for one kernel. :class:`ShortNames` gives every distinct
name of a report a short name that no other kernel of the report shares: names start at the
most compact level and only those that collide are spelled out further (their differing
template arguments or lambda numbers, then every argument, then the namespaces, then the
whole demangled name). Every short name is cut to ``MAX_SHORT`` characters (deep template
arguments first); two that still read alike get a number (``… #2``). Pure string work: no
Textual, no rich; the kernel list, ``summary``, Markdown, CSV, JSON and the timeline all name
kernels through here (the pieces: ``name_syntax``, ``name_args``, ``name_vendors``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from kernelscope.core.name_args import (
    FUNCTION_SUFFIXES,
    INTEGER,
    SCALARS,
    Payload,
    args_text,
    payload,
)
from kernelscope.core.name_syntax import (
    CAST,
    bare_name,
    differing_args,
    drop_suffix,
    param_list_start,
    qualified_parts,
    split_template,
    split_top,
    within_depth,
)
from kernelscope.core.name_vendors import bounded, compact_identifier

LEVELS = 6
"""0: compact (functors by name); 1: functors with their own arguments, lambdas with their
parameter types (or their number when those are only an index); 2: every template argument
but plumbing, lambdas numbered; 3: every template argument as written, without namespaces;
4: the bare name (namespaces kept, no return type or parameters); 5: the whole demangled
name."""

MAX_SHORT = 60
"""The longest short name, in characters."""

SHORT_LEVELS = 3
"""The levels a short name is spelled at (beyond them names only grow: ``_told_apart``)."""

_KERNEL_SUFFIX = "_kernel"
# The spellings ``fit_name`` and its helpers use for the bracket and argument helpers.
_split_template = split_template
_SCALARS = SCALARS
_INT = INTEGER
_MODES = ("compact", "nested", "all", "full")


def _component_at(component: str, level: int) -> str:
    """One unqualified ``ident<args>`` spelled at ``level`` (0 to 3)."""
    ident, args = split_template(component)
    ident = compact_identifier(ident, detail=level > 0)
    if args is None:
        return ident
    if level < 3:
        ident = drop_suffix(ident, (_KERNEL_SUFFIX,))
    shown = args_text(args, _MODES[level])
    return f"{ident}<{shown}>" if shown else ident


def _payload_at(launched: Payload, level: int) -> str:
    """What a launcher kernel launches, spelled at ``level`` (0 to 3)."""
    if launched.arg is not None:
        return launched.arg.spelled(_MODES[level]) or launched.arg.compact
    parts = qualified_parts(launched.component)
    component = parts[-1] if parts else launched.component
    if launched.tile is None:
        return _component_at(component, level)
    name = split_template(component)[0] if level == 0 else _component_at(component, level - 1)
    return f"{name} {launched.tile}"


@lru_cache(maxsize=8192)
def name_at(demangled: str, level: int) -> str:
    """``demangled`` spelled at ``level`` (see ``LEVELS``)."""
    text = CAST.sub(r"\1", demangled.strip())
    if level >= LEVELS - 1:
        return text or demangled
    bare = bare_name(text)
    if level == LEVELS - 2:
        return bare
    parts = qualified_parts(bare)
    component = parts[-1] if parts else bare
    ident, args = split_template(component)
    if args is not None:
        launched = payload("::".join([*parts[:-1], ident]), args)
        if launched is not None:
            return _payload_at(launched, level)
    return _component_at(component, level)


def compact_name(demangled: str) -> str:
    """The most compact meaningful name of one kernel (no report context), at most
    ``MAX_SHORT`` characters: ``void at::native::vectorized_elementwise_kernel<4,
    at::native::CUDAFunctor_add<float>, std::array<char *, 3>>(int, T2, T3)`` →
    ``vectorized_elementwise<CUDAFunctor_add>``."""
    return within_limit(name_at(demangled, 0))


def within_limit(name: str, limit: int = MAX_SHORT) -> str:
    """``name`` in at most ``limit`` characters: its deepest template arguments become ``…``
    first (``reduce<512, ReduceOp<…>>``), then its last ones (``f<A, B, …>``), then the middle
    of what is left."""
    if len(name) <= limit:
        return name
    for depth in (3, 2, 1):
        shorter = within_depth(name, depth)
        if len(shorter) <= limit:
            return shorter
    for depth in (3, 2, 1):
        leading = _leading_args(within_depth(name, depth), limit)
        if leading is not None:
            return leading
    return bounded(within_depth(name, 1), limit)


def _leading_args(name: str, limit: int) -> str | None:
    """``ident<a, b, …>``: as many of the first template arguments as fit in ``limit``."""
    ident, args = split_template(name)
    if args is None:
        return None
    parts = [a.strip() for a in split_top(args, ",")]
    for count in range(len(parts) - 1, 0, -1):
        shorter = f"{ident}<{', '.join(parts[:count])}, …>"
        if len(shorter) <= limit:
            return shorter
    return None


class ShortNames:
    """Short names for the distinct kernel names of one report, unique among them.

    ``add`` more names as a report loads; it returns the names whose short name changed
    (a new name can make an earlier one ambiguous), so a view redraws only those.
    """

    def __init__(self, names: Iterable[str] = ()) -> None:
        self._level: dict[str, int] = {}
        self._short: dict[str, str] = {}
        self.add(names)

    def __len__(self) -> int:
        return len(self._short)

    def __contains__(self, name: object) -> bool:
        return name in self._short

    def __getitem__(self, demangled: str) -> str:
        short = self._short.get(demangled)
        return short if short is not None else compact_name(demangled)

    def get(self, demangled: str) -> str:
        """The short name of ``demangled`` (its compact name when it was never added)."""
        return self[demangled]

    def items(self) -> Iterable[tuple[str, str]]:
        return self._short.items()

    def add(self, names: Iterable[str]) -> set[str]:
        """Take ``names`` into account; the names (old or new) whose short name changed."""
        new = [n for n in dict.fromkeys(str(n) for n in names if n is not None)
               if n not in self._level]
        if not new:
            return set()
        before = dict(self._short)
        for name in new:
            self._level[name] = 0
        self._resolve()
        return {n for n, short in self._short.items() if before.get(n) != short}

    def _resolve(self) -> None:
        """Raise the level of every name that shares its spelling with another until all
        are unique or as spelled out as a short name goes (``SHORT_LEVELS``); those that
        still read alike show where their template arguments or parameters differ, and
        any left alike get a number."""
        while True:
            spelled: dict[str, list[str]] = {}
            for name, level in self._level.items():
                spelled.setdefault(shown_at(name, level), []).append(name)
            raised = False
            for group in spelled.values():
                if len(group) < 2:
                    continue
                for name in group:
                    if self._level[name] < SHORT_LEVELS - 1:
                        self._level[name] = _next_distinct_level(name, self._level[name])
                        raised = True
            if not raised:
                break
        shorts: dict[str, str] = {}
        for short, group in spelled.items():
            shorts.update(_told_apart(group, short) if len(group) > 1 else {group[0]: short})
        self._short = _numbered(shorts)


def _told_apart(group: list[str], short: str) -> dict[str, str]:
    """Names that read ``short`` alike, each with what differs between them: its template
    arguments (``kernel<…, 6, …>``), else its parameters (``f<1>(int)``)."""
    pieces = [_meaning(name) for name in group]
    ident, rest = pieces[0][0], ""
    if short.startswith(ident) and "<" not in short:
        rest = short[len(ident):]  # a lambda's number and parameters
    else:
        ident = split_template(short)[0]
    if len({p[0] for p in pieces}) == 1:
        differ = differing_args([p[1] for p in pieces])
        if differ is not None:
            told = {n: within_limit(f"{ident}<{d}>{rest}")
                    for n, d in zip(group, differ, strict=True)}
            return _apart_within(told, short)
    differ = differing_args([p[2] for p in pieces])
    if differ is not None:
        return {n: within_limit(f"{short}({d})") for n, d in zip(group, differ, strict=True)}
    return dict.fromkeys(group, short)


def _apart_within(told: dict[str, str], short: str) -> dict[str, str]:
    """``told``, with the names that still read alike told apart among themselves (kernels
    whose first difference parts them into families, then differ inside a family)."""
    alike: dict[str, list[str]] = {}
    for name, spelled in told.items():
        alike.setdefault(spelled, []).append(name)
    out = dict(told)
    for group in alike.values():
        if 1 < len(group) < len(told):
            out.update(_told_apart(group, short))
    return out


def _meaning(demangled: str) -> tuple[str, str, str]:
    """(identifier, template arguments, parameters) of what ``demangled`` names: the kernel,
    or for a launcher the class it launches."""
    text = CAST.sub(r"\1", demangled.strip())
    cut = param_list_start(text)
    params = text[cut + 1 : -1] if cut > 0 and text.endswith(")") else ""
    parts = qualified_parts(bare_name(text))
    ident, args = split_template(parts[-1] if parts else text)
    launched = payload("::".join([*parts[:-1], ident]), args) if args is not None else None
    scope = launched.arg.scope if launched is not None and launched.arg is not None else ""
    inner = qualified_parts(launched.component or scope) if launched is not None else []
    if inner:
        ident, args = split_template(inner[-1])
        ident = drop_suffix(ident, FUNCTION_SUFFIXES)
    return ident, args or "", params


def _numbered(shorts: dict[str, str]) -> dict[str, str]:
    """``shorts`` with a number after each of the names that still read alike."""
    alike: dict[str, list[str]] = {}
    for name, short in shorts.items():
        alike.setdefault(short, []).append(name)
    out = dict(shorts)
    for short, group in alike.items():
        if len(group) < 2:
            continue
        for number, name in enumerate(sorted(group), start=1):
            tag = f" #{number}"
            out[name] = within_limit(short, MAX_SHORT - len(tag)) + tag
    return out


@lru_cache(maxsize=8192)
def shown_at(demangled: str, level: int) -> str:
    """``name_at`` within ``MAX_SHORT`` characters."""
    return within_limit(name_at(demangled, level))


def _next_distinct_level(name: str, level: int) -> int:
    """The next short level that shows ``name`` differently from ``level`` (or the last)."""
    here = shown_at(name, level)
    for nxt in range(level + 1, SHORT_LEVELS):
        if shown_at(name, nxt) != here:
            return nxt
    return SHORT_LEVELS - 1


def short_names(names: Iterable[str]) -> dict[str, str]:
    """Every distinct name of ``names`` → its short name, unique among them."""
    return dict(ShortNames(names).items())


def fit_name(name: str, width: int) -> str:
    """``name`` in at most ``width`` characters, for a screen column. A templated name keeps
    its template arguments (what tells it apart) and cuts the identifier:
    ``vectori…<CUDAFunctor_add>``, unless they are only scalar types and numbers:
    ``vectorized_layer_norm<float…>``; others keep their head and tail around a ``…``."""
    if width <= 0 or len(name) <= width:
        return name
    if width <= 2:
        return name[:width]
    ident, args = _split_template(name)
    if args is not None and _only_scalars(args):
        if len(ident) <= width - 3:
            return ident + "<" + args[: width - len(ident) - 3] + "…>"
        return name[: width - 1] + "…"
    if args is not None:
        tail = f"<{args}>"
        if len(tail) <= width - 5:
            return ident[: width - len(tail) - 1] + "…" + tail
    head = (width - 1) * 2 // 3
    tail_len = width - 1 - head
    return name[:head] + "…" + (name[-tail_len:] if tail_len else "")


def _only_scalars(args: str) -> bool:
    """Whether template arguments hold only scalar types and numbers (``float, float, 0``):
    then the identifier, not the arguments, tells the kernel apart."""
    return all(part in _SCALARS or _INT.match(part) for part in
               (a.strip() for a in split_top(args, ",")))


def fit_names(shorts: Iterable[str], width: int) -> dict[str, str]:
    """Each short name fitted to ``width``, keeping them apart: names whose fitted forms
    collide keep their ends instead (``…_coopA_NNT``), and if they still collide their
    start (``nvjet_sm90_tst_256x1…``)."""
    unique = list(dict.fromkeys(shorts))
    fitted = {s: fit_name(s, width) for s in unique}
    for cut in (_keep_tail, _keep_head):
        seen: dict[str, list[str]] = {}
        for s, f in fitted.items():
            seen.setdefault(f, []).append(s)
        clashes = [group for group in seen.values() if len(group) > 1]
        if not clashes:
            break
        for group in clashes:
            for s in group:
                fitted[s] = cut(s, width)
    return fitted


def _keep_tail(name: str, width: int) -> str:
    return name if len(name) <= width else "…" + name[-(width - 1):]


def _keep_head(name: str, width: int) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def short_name(demangled: str, width: int | None = None) -> str:
    """One kernel's compact name by meaning (``compact_name``: no return type, parameters,
    namespaces or template plumbing), fitted to ``width`` columns when given.

    ``void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>,
    std::array<char *, 3>>(int, T2, T3)`` → ``vectorized_elementwise<CUDAFunctor_add>``.
    Where the other kernels of the report are known, name kernels through ``ShortNames``
    instead: its names are unique within the report.
    """
    name = compact_name(demangled)
    return name if width is None else fit_name(name, width)


__all__ = [
    "LEVELS",
    "MAX_SHORT",
    "ShortNames",
    "compact_name",
    "fit_name",
    "fit_names",
    "name_at",
    "short_name",
    "short_names",
    "split_top",
    "within_limit",
]
