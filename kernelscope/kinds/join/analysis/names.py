"""The names two reports agree on for a kernel.

``match_name``: the demangled name as the ncu CLI prints it. nsys keeps the casts of template
arguments (``vectorized_elementwise_kernel<(int)4, …, (unsigned long)2>``) where ``ncu`` prints
the bare values (``<4, …, 2>``); both sides are reduced to the CLI's spelling, with runs of
spaces collapsed, before they are compared. Where both reports hold the mangled name (nsys
``mangledName``, ncu's mangled base) that is compared first: it is exact.

``template_key``: the function and its template arguments, for names demangled by two
different demanglers. A PyTorch profiler (Kineto) trace holds no mangled name; it writes the
name as ``abi::__cxa_demangle`` spells it (GNU: ``{lambda(float)#1}``, ``(anonymous
namespace)``, ``std::array<char*, 3ul>``, ``true``, ``T const*``, every parameter list with its
types), or the mangled name itself where the symbol is longer than 1,024 characters or does not
demangle. Nsight Compute spells the same symbol its own way (``[lambda(float) (instance 1)]``,
``<unnamed>``, ``std::array<char *, 3>``, ``1``, ``const T *``, ``void`` before a function
template in a template argument, ``T1``… for the parameters). The key drops what only one
demangler writes (the return type, the kernel's parameter list and those of the functions
enclosing a lambda, with their ``const``) and spells the rest one way (lambda and anonymous
namespace, integer literals without their suffix, ``bool`` as ``0``/``1``, ``const`` after
its type, no spaces but between two words, no empty pack after a last comma as nsys writes
``View<double *, >``). The template arguments stay, so two instances
of one template never share a key; ``matching`` also refuses a key that several kernels of
either report share.
"""

from __future__ import annotations

import re
from functools import lru_cache

from kernelscope.core.name_syntax import bare_name, split_template, unqualified
from kernelscope.kinds.ncu.model.summary_reader import cli_demangled

_SPACES = re.compile(r"\s+")
_INSTANCE = re.compile(r"\[([^\[\]]*?) \(instance (\d+)\)\]")
"""Nsight Compute's local entity: ``[lambda(float) (instance 1)]``."""
_CALL_OPERATOR = re.compile(r"\boperator\s*\(\)")
_CALL = "operator\x00"
"""``operator()`` while parameter lists are dropped (its ``()`` is part of the name)."""
_INT_SUFFIX = re.compile(r"(?<![\w.])(-?\d+)(?:ull|ul|ll|u|l)\b", re.IGNORECASE)
_INTERNAL = re.compile(r"\b_INTERNAL_[0-9a-f]{8}_\w*::")
"""nvcc's namespace of a translation unit's internal names (GNU shows it, ncu does not)."""
_TYPED_LITERAL = re.compile(r"(?<=[<,])\s*(?:\w+ )*\w+=(?=[-\w(])")
"""Older Nsight Compute's ``<int=32>``: the argument's type before its value."""
_BOOLS = {"true": "1", "false": "0"}
_BOOL = re.compile(r"\b(true|false)\b")
_QUALIFIERS = re.compile(r"(?:\s*(?:(?:const|volatile)\b|&&|&))*")
_LOCAL_ENTITY = re.compile(r"::\{")
_OPENS = {"<": ">", "(": ")", "{": "}", "[": "]"}
_CLOSES = {v: k for k, v in _OPENS.items()}
_NOT_BETWEEN_WORDS = re.compile(r"(?<=\W) | (?=\W)")
_LEADING_CONST = re.compile(r"(?:^|(?<=[<,(]))const ")


def match_name(demangled: str) -> str:
    """``demangled`` in the spelling both reports share."""
    return _SPACES.sub(" ", cli_demangled(demangled)).strip()


def is_mangled(name: str) -> bool:
    """True for an Itanium-mangled symbol (``_Z…``); nsys repeats the demangled name where it
    has no mangled one."""
    return name.startswith("_Z")


@lru_cache(maxsize=8192)
def template_key(demangled: str) -> str:
    """``demangled``'s function and template arguments, as two demanglers agree on them (see
    the module docstring; cached: a join looks a name up once per launch and per family)."""
    text = _INSTANCE.sub(r"{\1#\2}", cli_demangled(demangled).strip())
    text = _TYPED_LITERAL.sub("", _INTERNAL.sub("", text.replace("<unnamed>",
                                                                  "(anonymous namespace)")))
    text = _CALL_OPERATOR.sub(_CALL, text)
    text = _INT_SUFFIX.sub(r"\1", text)
    text = _BOOL.sub(lambda m: _BOOLS[m.group(1)], text)
    text = _without_return_types(_without_parameter_lists(text))
    text = _NOT_BETWEEN_WORDS.sub("", _SPACES.sub(" ", text).strip())
    return _const_after(text.replace(",>", ">")).replace(_CALL, "operator()")


def _without_parameter_lists(text: str) -> str:
    """``text`` without the parameter lists of functions (a ``(`` right after a name, a
    ``>`` or ``operator()``; not a lambda's, a cast or ``(anonymous namespace)``), with the
    ``const`` of a member function after its list."""
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "(" and _opens_parameters(text, i):
            i = _QUALIFIERS.match(text, _closing(text, i) + 1).end()  # type: ignore[union-attr]
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _opens_parameters(text: str, at: int) -> bool:
    before = text[:at]
    if not before or not (before[-1].isalnum() or before[-1] in "_>\x00"):
        return False
    return not before.endswith("{lambda")


def _closing(text: str, at: int) -> int:
    """The index of the ``)`` closing the ``(`` at ``at`` (the end when unbalanced)."""
    depth = 0
    for i in range(at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return len(text) - 1


def _without_return_types(text: str) -> str:
    """``text`` without the kernel's return type (what precedes its name, outside brackets)
    and without that of a function enclosing a lambda in a template argument (Nsight
    Compute's ``<void f<T>::[lambda…]>``)."""
    while True:  # one at a time: a removal moves the lambdas after it
        found = (_argument_start(text, m.start()) for m in _LOCAL_ENTITY.finditer(text))
        cut = next(((start, space) for start, space in found if space is not None), None)
        if cut is None:
            break
        text = text[:cut[0]] + text[cut[1] + 1:]
    _, space = _argument_start(text, len(text))
    return text if space is None else text[space + 1:]


def _argument_start(text: str, at: int) -> tuple[int, int | None]:
    """Where the name or template argument holding ``at`` starts, and the last space at its
    own depth before ``at`` (None: none)."""
    depth = 0
    space: int | None = None
    for i in range(at - 1, -1, -1):
        char = text[i]
        if char in _CLOSES:
            depth += 1
        elif char in _OPENS:
            if depth == 0:
                return i + 1, space
            depth -= 1
        elif depth == 0 and char == ",":
            return i + 1, space
        elif depth == 0 and char == " " and space is None:
            space = i
    return 0, space


def _const_after(text: str) -> str:
    """``const T*`` as ``T const*`` (GNU's order), for every type that starts with ``const``."""
    while (found := _LEADING_CONST.search(text)) is not None:
        end = _type_name_end(text, found.end())
        text = f"{text[:found.start()]}{text[found.end():end]} const{text[end:]}"
    return text


def _type_name_end(text: str, at: int) -> int:
    """The end of the (qualified, template) type name that starts at ``at``."""
    depth = 0
    i = at
    while i < len(text):
        char = text[i]
        if char == "<":
            depth += 1
        elif char == ">":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and not (char.isalnum() or char in "_: "):
            break
        i += 1
    return i


def function_name(demangled: str) -> str:
    """The kernel's own name, as Nsight Compute's default ``--kernel-name-base function``
    matches it: ``void at::native::vectorized_elementwise_kernel<4, …>(int, …)`` is
    ``vectorized_elementwise_kernel`` (no return type, scope, template arguments or
    parameters; read with the bracket-aware pieces of ``core.name_syntax``)."""
    return split_template(unqualified(bare_name(demangled)))[0] or demangled
