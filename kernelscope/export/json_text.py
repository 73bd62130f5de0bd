"""Indented JSON text, in pieces that can be encoded apart (a kernel's entry as it is read,
at the depth it will have in the document) and joined.

:func:`dumps` and :func:`items` write, in C (orjson), the document
``json.dumps(json_safe(value), indent=2)`` writes, equal after ``json.loads`` (orjson spells
some floats otherwise: ``0.00001`` for ``1e-05``), with non-ASCII text escaped and
non-finite floats as ``null``. What orjson refuses (an integer past 64 bits, a lone
surrogate) is written by :func:`python_dumps`, which writes exactly ``json.dumps``'s text,
several times faster than the standard library (which encodes indented JSON in pure Python,
one generator step per token). :func:`wrap` puts members back between braces;
:func:`scalars` encodes many scalars in one call of a C encoder.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from json.encoder import encode_basestring_ascii as _text
from typing import Any

import orjson

INDENT = "  "
_SCALARS = (str, float, int, bool, type(None))
_BULK = json.JSONEncoder(separators=("\x00", ":"))
"""The C encoder, compact, with a separator that no encoded scalar can hold (a NUL inside a
string is written ``\u0000``), so one call encodes a whole list of scalars."""


def _float(value: float) -> str:
    return float.__repr__(value) if math.isfinite(value) else "null"


def _key(key: Any) -> str:
    if isinstance(key, str):
        return _text(key)
    if key is True:
        return '"true"'
    if key is False:
        return '"false"'
    if key is None:
        return '"null"'
    if isinstance(key, int):
        return _text(int.__repr__(key))
    if isinstance(key, float):
        return _text(_float(key) if math.isfinite(key) else float.__repr__(key))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def python_items(value: dict[Any, Any], level: int) -> str:
    """The members of ``value`` as they stand inside its braces at depth ``level`` (the
    depth of the dict itself), joined, without the braces and the first indent, exactly as
    ``json.dumps(indent=2)`` writes them (:func:`python_dumps`'s)."""
    sep = ",\n" + INDENT * (level + 1)
    inner = level + 1
    return sep.join(
        f"{_text(k) if type(k) is str else _key(k)}: {python_dumps(v, inner)}"
        for k, v in value.items()
    )


def wrap(members: Iterable[str], level: int) -> str:
    """A dict at depth ``level`` from member texts made by :func:`items` (empty ones are
    left out)."""
    parts = [m for m in members if m]
    if not parts:
        return "{}"
    inner = "\n" + INDENT * (level + 1)
    return "{" + inner + ("," + inner).join(parts) + "\n" + INDENT * level + "}"


def array_pieces(elements: Iterable[str], level: int) -> Iterator[str]:
    """A list at depth ``level`` from element texts already encoded at depth ``level + 1``,
    in pieces, an element at a time (for writing a large document without holding it
    whole)."""
    inner = "\n" + INDENT * (level + 1)
    first = True
    for element in elements:
        yield ("[" if first else ",") + inner
        yield element
        first = False
    yield "[]" if first else "\n" + INDENT * level + "]"


def document_pieces(value: dict[Any, Any], lazy: dict[str, Iterable[Any]]) -> Iterator[str]:
    """:func:`dumps` of the dict ``value`` (at depth 0), in pieces; the member lists named
    in ``lazy`` are written from those iterables instead, an element at a time (the member's
    own value only keeps its place), so a document with a long list is never held whole."""
    inner = "\n" + INDENT
    first = True
    for key, member in value.items():
        yield ("{" if first else ",") + inner + _key(key) + ": "
        if key in lazy:
            yield from array_pieces((dumps(element, 2) for element in lazy[key]), 1)
        else:
            yield dumps(member, 1)
        first = False
    yield "{}" if first else "\n}"


_INDENTED = (orjson.OPT_INDENT_2, orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS)
"""orjson's options for indented JSON: for dicts with text keys alone first (with any keys it
takes ~20% longer: ~1% of a JSON export of many kernels), then with any keys."""
_NON_ASCII = re.compile("[^\x00-\x7f]")


def _escaped(match: re.Match[str]) -> str:
    return _text(match.group())[1:-1]


def _orjson_bytes(value: Any, options: tuple[int, ...]) -> bytes | None:
    """``value`` encoded by orjson with the first of ``options`` it takes; None where it
    refuses it with each (an integer past 64 bits, a string with a lone surrogate, a deeper
    nesting than it takes, an unknown type)."""
    for option in options:
        try:
            return orjson.dumps(value, option=option)
        except (orjson.JSONEncodeError, TypeError):
            pass
    return None


def _orjson_text(value: Any, options: tuple[int, ...]) -> str | None:
    """:func:`_orjson_bytes` as text, its non-ASCII text escaped as ``json`` escapes it."""
    data = _orjson_bytes(value, options)
    if data is None:
        return None
    text = data.decode()
    if not text.isascii():  # only a string holds non-ASCII text: escaped there as json does
        text = _NON_ASCII.sub(_escaped, text)
    return text


def _nested(value: Any, level: int) -> Any:
    """``value`` nested ``level`` lists deep, where orjson indents it as at depth ``level``:
    each list opens with "[", a newline and its items' indent and closes on a line of its
    own, ``level * (level + 3)`` characters before the value and ``level * (level + 1)``
    after it."""
    for _ in range(level):
        value = [value]
    return value


def dumps(value: Any, level: int = 0) -> str:
    """``value`` as indented JSON at depth ``level`` (its first line unindented, the rest
    indented as a member at that depth; non-finite floats ``null``, non-ASCII text escaped),
    encoded by orjson (the indentation too: no newline is replaced afterwards); what orjson
    refuses by :func:`python_dumps`."""
    return _dumps_between(value, level, 0, 0)


def _dumps_between(value: Any, level: int, start: int, end: int) -> str:
    """:func:`dumps` of ``value`` at depth ``level`` less its first ``start`` and last
    ``end`` characters, sliced once."""
    text = _orjson_text(_nested(value, level), _INDENTED)
    if text is None:
        return python_dumps(value, level)[start : -end or None]
    return text[level * (level + 3) + start : len(text) - level * (level + 1) - end]


def closing_pieces(value: dict[Any, Any], level: int) -> tuple[str | memoryview, ...]:
    """The members of the dict ``value`` as they follow other members of a dict at depth
    ``level`` (each after a comma), then that dict's closing brace, in pieces: ``"{"``, a
    newline, the indent and ``members``, then the pieces' text, is ``wrap((members,
    items(value, level)), level)``. Past the comma, they are orjson's UTF-8 bytes as it
    wrote them (the dict nested ``level`` lists deep: it writes the indentation), neither
    decoded nor copied (a kernel's entry: its diagnosis' members, ~9 kB, after its own)."""
    close = "\n" + INDENT * level + "}"
    if not value:
        return (close,)
    data = _orjson_bytes(_nested(value, level), _INDENTED)
    if data is None:  # python_dumps's
        return (",\n" + INDENT * (level + 1) + items(value, level) + close,)
    if not data.isascii():  # only a string holds non-ASCII text: escaped there as json does
        data = _NON_ASCII.sub(_escaped, data.decode()).encode()
    return ",", memoryview(data)[level * (level + 3) + 1 : len(data) - level * (level + 1)]


def items(value: dict[Any, Any], level: int) -> str:
    """The members of the dict ``value`` as they stand inside its braces at depth ``level``
    (the depth of the dict itself), joined, without the braces and the first indent, encoded
    by :func:`dumps`."""
    if not value:
        return ""
    return _dumps_between(value, level, len(INDENT) * (level + 1) + 2, len(INDENT) * level + 2)


_FLAT = frozenset(_SCALARS)
_C_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)
"""The standard library's C encoder factory (typeshed does not declare it)."""
_FLAT_ENCODERS: dict[int, Callable[[Any, int], Sequence[str]]] = {}


def _not_serializable(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _flat_encoder(level: int) -> Callable[[Any, int], Sequence[str]]:
    """The C encoder (compact, NaN refused) whose item separator carries the newline and
    indent of depth ``level``, made once per depth."""
    separator = ",\n" + INDENT * (level + 1)
    if _C_ENCODER is None:  # an interpreter without the C accelerator
        slow = json.JSONEncoder(separators=(separator, ": "), allow_nan=False,
                                check_circular=False)
        return lambda value, _: (slow.encode(value),)
    return _C_ENCODER(  # type: ignore[no-any-return]
        None, _not_serializable, _text, None, ": ", separator, False, False, False
    )


def _flat_body(value: dict[Any, Any] | list[Any] | tuple[Any, ...], level: int) -> str | None:
    """A container of scalars only (at depth ``level``) without its brackets, in one call of
    the C encoder; None when it holds a non-finite float (the general path's)."""
    encoder = _FLAT_ENCODERS.get(level)
    if encoder is None:
        encoder = _FLAT_ENCODERS[level] = _flat_encoder(level)
    try:
        return "".join(encoder(value, 0))[1:-1]
    except ValueError:  # NaN or an infinity: written null here
        return None


def _dict(value: dict[Any, Any], level: int) -> str:
    if not value:
        return "{}"
    inner = "\n" + INDENT * (level + 1)
    body = None
    if _FLAT.issuperset(map(type, value.values())):
        body = _flat_body(value, level)
    if body is None:
        body = python_items(value, level)
    return "{" + inner + body + "\n" + INDENT * level + "}"


def _list(value: list[Any] | tuple[Any, ...], level: int) -> str:
    if not value:
        return "[]"
    inner = "\n" + INDENT * (level + 1)
    body = None
    if _FLAT.issuperset(map(type, value)):
        body = _flat_body(value, level)
    if body is None:
        body = ("," + inner).join(python_dumps(v, level + 1) for v in value)
    return "[" + inner + body + "\n" + INDENT * level + "]"


_EXACT: dict[type, Callable[[Any, int], str]] = {
    str: lambda v, _: _text(v),
    float: lambda v, _: _float(v),
    int: lambda v, _: int.__repr__(v),
    bool: lambda v, _: "true" if v else "false",
    type(None): lambda v, _: "null",
    dict: _dict,
    list: _list,
    tuple: _list,
}


def python_dumps(value: Any, level: int = 0) -> str:
    """``value`` as JSON at depth ``level`` (its first line unindented, the rest indented as
    a member at that depth) exactly as ``json.dumps(json_safe(value), indent=2)`` writes it;
    non-finite floats become ``null``: what :func:`dumps` writes what orjson refuses with."""
    encode = _EXACT.get(type(value))
    if encode is not None:
        return encode(value, level)
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, dict):
        return _dict(value, level)
    if isinstance(value, (list, tuple)):
        return _list(value, level)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def scalars(values: list[Any]) -> list[str]:
    """Each scalar of ``values`` encoded as :func:`dumps` would (non-finite floats as
    ``null``, text in ASCII), in one call of orjson: a list of scalars is indented one to a
    line, and no encoded scalar holds a newline to split on. What orjson refuses (an integer
    past 64 bits, a lone surrogate) is encoded in one call of the standard library's C
    encoder instead, as :func:`python_dumps` would."""
    if not values:
        return []
    text = _orjson_text(values, _INDENTED[:1])
    if text is None:
        return _python_scalars(values)
    return text[4:-2].split(",\n  ")


def _python_scalars(values: list[Any]) -> list[str]:
    """:func:`scalars` by the standard library's C encoder (compact, NUL-separated)."""
    try:
        text = _STRICT_BULK.encode(values)
    except ValueError:  # NaN or an infinity, which dumps writes null
        text = _BULK.encode(
            [v if type(v) is not float or math.isfinite(v) else None for v in values]
        )
    return text[1:-1].split("\x00")


_STRICT_BULK = json.JSONEncoder(separators=("\x00", ":"), allow_nan=False, check_circular=False)
""":data:`_BULK` refusing NaN and infinities, for the common case without them."""


def value_unit_template(names: list[str], units: list[str], level: int) -> str:
    """:func:`items` of ``{name: {"value": ..., "unit": unit}}`` (a kernel's metrics, the bulk
    of a JSON export) at depth ``level`` with ``%s`` where each value goes (any other ``%``
    doubled), for ``template % tuple(scalars(values))``: a kernel's launches share their
    metrics' names and units, so only the values are encoded per launch, in one C-encoder
    call."""
    n = len(names)
    enc = [text.replace("%", "%%") for text in scalars([*names, *units])]
    outer = INDENT * (level + 1)
    inner = INDENT * (level + 2)
    return f",\n{outer}".join(
        f'{enc[i]}: {{\n{inner}"value": %s,\n{inner}"unit": {enc[n + i]}\n{outer}}}'
        for i in range(n)
    )
