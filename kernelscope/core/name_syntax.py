"""Bracket-aware pieces of a demangled C++ name, for ``kernel_names``.

A demangled kernel name nests ``<>``, ``()``, ``[]`` and ``{}``: template arguments, the
parameter list, lambdas (``[lambda(int) (instance 1)]``) and the functions that enclose them.
Splitting at ``,`` or ``::`` only where the text is outside every bracket is what the rest of
the naming needs. Pure string work; an unbalanced name never breaks anything.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

CAST = re.compile(
    r"\((?:bool|(?:(?:un)?signed )?(?:char|short|int|long|long long)|unsigned|"
    r"(?:unsigned )?__int128|size_t|[A-Za-z_][\w:]*::\w+)\)(-?\d+)"
)
"""A literal with its cast, ``(int)4`` or ``(Kokkos::Iterate)0``: the number is the meaning."""

_OPEN = {"<": ">", "(": ")", "[": "]", "{": "}"}
_CLOSE = {v: k for k, v in _OPEN.items()}


def depths(text: str) -> Iterator[tuple[int, str, int]]:
    """(index, character, depth before it) with ``<``/``(``/``[``/``{`` nesting; never
    negative, so an unbalanced name does not break anything."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in _CLOSE:
            depth = max(0, depth - 1)
            yield i, ch, depth
            continue
        yield i, ch, depth
        if ch in _OPEN:
            depth += 1


def split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` where it is outside any brackets."""
    parts: list[str] = []
    start = 0
    skip_to = -1
    for i, _ch, depth in depths(text):
        if i < skip_to:
            continue
        if depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            start = i + len(sep)
            skip_to = start
    parts.append(text[start:])
    return parts


def param_list_start(name: str) -> int:
    """Index of the '(' opening the parameter list (the last one outside templates)."""
    cut = -1
    for i, ch, depth in depths(name):
        if ch == "(" and depth == 0:
            cut = i
    return cut


def split_template(component: str) -> tuple[str, str | None]:
    """``ident<args>`` → (ident, args); (component, None) without template arguments."""
    component = component.strip()
    if not component.endswith(">"):
        return component, None
    for i, ch, depth in depths(component):
        if ch == "<" and depth == 0 and i > 0:
            return component[:i], component[i + 1 : -1]
    return component, None


def matching(text: str, open_at: int) -> int:
    """Index of the bracket closing the one at ``open_at`` (the end when unbalanced)."""
    if open_at < 0:
        return len(text)
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] in _OPEN:
            depth += 1
        elif text[i] in _CLOSE:
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def after_return_type(text: str) -> str:
    """``void at::f<A, B>`` → ``at::f<A, B>`` (the last word outside brackets and after)."""
    last_space = -1
    for i, ch, depth in depths(text):
        if ch == " " and depth == 0:
            last_space = i
    return text[last_space + 1 :] if last_space >= 0 else text


@lru_cache(maxsize=8192)
def bare_name(demangled: str) -> str:
    """``demangled`` without return type and parameters:
    ``void mm_tiled<32>(const float *, float *, int)`` → ``mm_tiled<32>``."""
    name = demangled.strip().removesuffix(" const")
    cut = param_list_start(name)
    if cut > 0 and name.endswith(")"):
        name = name[:cut]
    return after_return_type(name) or demangled.strip()


def qualified_parts(name: str) -> list[str]:
    """The ``::`` components of a qualified name, outside brackets, empty ones dropped."""
    return [p.strip() for p in split_top(name.strip(), "::") if p.strip()]


def unqualified(name: str) -> str:
    """The last ``::`` component of a qualified name (``at::native::Foo<T>`` → ``Foo<T>``)."""
    parts = qualified_parts(name)
    return parts[-1] if parts else name.strip()


def strip_namespaces(text: str) -> str:
    """Every qualified name inside ``text`` reduced to its last component."""
    out: list[str] = []
    token = ""
    for ch in text:
        if ch.isalnum() or ch in "_:":
            token += ch
            continue
        out.append(_unqualified_token(token))
        token = ""
        out.append(ch)
    out.append(_unqualified_token(token))
    return "".join(out)


def _unqualified_token(token: str) -> str:
    if "::" not in token:
        return token
    tail = token.rsplit("::", 1)[1]
    return tail if tail else token


def drop_suffix(name: str, suffixes: tuple[str, ...]) -> str:
    """``name`` without the first of ``suffixes`` it ends with (never down to nothing)."""
    for suffix in suffixes:
        if name.endswith(suffix) and len(name) > len(suffix) + 1:
            return name[: -len(suffix)]
    return name


def within_depth(text: str, depth: int) -> str:
    """``text`` with every template argument list nested deeper than ``depth`` replaced by
    ``…``: ``reduce<512, ReduceOp<float, func<sum>>>`` at depth 1 → ``reduce<512, ReduceOp<…>>``;
    depth 0 keeps no argument."""
    out: list[str] = []
    level = 0
    for ch in text:
        if ch == "<":
            level += 1
            if level == depth + 1:
                out.append("<…")
            if level > depth:
                continue
        elif ch == ">":
            level = max(0, level - 1)
            if level >= depth:
                if level == depth:
                    out.append(">")
                continue
        elif level > depth:
            continue
        out.append(ch)
    return "".join(out)




def _differing_column(column: list[str], alone: bool) -> list[str]:
    """One argument position's cells, followed down into their template arguments when they
    share a template (only how they differ is shown when ``alone``)."""
    heads = {split_template(c)[0] for c in column}
    inner = [split_template(c)[1] or "" for c in column]
    deeper = differing_args(inner) if len(heads) == 1 else None
    if deeper is None:
        return [strip_namespaces(within_depth(c, 1)) for c in column]
    if alone:
        return deeper
    head = strip_namespaces(split_template(column[0])[0])
    return [f"{head}<{d}>" for d in deeper]


def differing_args(arg_lists: list[str]) -> list[str] | None:
    """Each of several template argument lists cut down to where they differ:
    ``512, 1, ReduceOp<BFloat16, F<…>>`` and ``512, 1, ReduceOp<float, F<…>>`` →
    ``BFloat16, …`` and ``float, …`` (an argument that differs only inside its own template
    arguments is followed down; the first differing arguments that tell every list apart are
    shown). None when the lists differ in length or not at all."""
    split = [[a.strip() for a in split_top(text, ",")] for text in arg_lists]
    if len({len(s) for s in split}) != 1 or len(set(arg_lists)) == 1:
        return None
    positions = [i for i in range(len(split[0])) if len({s[i] for s in split}) > 1]
    shown: list[int] = []
    columns: list[list[str]] = []
    for i in positions:  # the first differing arguments that tell every list apart
        columns.append(_differing_column([s[i] for s in split], len(positions) == 1))
        shown.append(i)
        if len(set(zip(*columns, strict=True))) == len(split):
            break
    gap = "…, " if shown[0] > 0 else ""
    more = ", …" if shown[-1] < len(split[0]) - 1 else ""
    spelled = [[column[k] for column in columns] for k in range(len(split))]
    return [_one_gap(gap + ", ".join(parts) + more) for parts in spelled]


def _one_gap(text: str) -> str:
    """``…, …`` (gaps met on the way down) said once."""
    while "…, …" in text:
        text = text.replace("…, …", "…")
    return text


__all__ = [
    "CAST",
    "after_return_type",
    "bare_name",
    "depths",
    "differing_args",
    "drop_suffix",
    "matching",
    "param_list_start",
    "qualified_parts",
    "split_template",
    "split_top",
    "strip_namespaces",
    "unqualified",
    "within_depth",
]
