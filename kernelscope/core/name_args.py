"""Template arguments of a kernel name by what they mean, for ``kernel_names``.

Each argument is a value (``4``), a scalar type (``float``), a functor (a class that says what
the kernel computes: ``CUDAFunctor_add``, a lambda), or plumbing (pointers, ``std::array``,
``thrust``/``cub``/``Kokkos`` machinery). A lambda is named by the function that encloses it
and its number there: ``graupel λ#4`` for ``graupel(…)::[lambda(unsigned long) (instance 4)]``.
A lambda buried in plumbing (a ``thrust`` iterator over it) is still found.

Some kernels are only launchers (``thrust``'s ``_kernel_agent``, Kokkos'
``cuda_parallel_launch_local_memory<ParallelFor<F, …>>``, CUTLASS' ``Kernel<Gemm<…>>``): their
name is what they launch (:func:`payload`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from kernelscope.core.name_syntax import (
    CAST,
    after_return_type,
    drop_suffix,
    matching,
    param_list_start,
    qualified_parts,
    split_template,
    split_top,
    strip_namespaces,
)
from kernelscope.core.name_vendors import tile_shape

INTEGER = re.compile(r"^-?\d+[uUlL]*$")
"""A template argument that is an integer literal."""
_LAMBDA = re.compile(r"[\[{]lambda")
_INSTANCE = re.compile(r"\(instance (\d+)\)")
_GENERIC = re.compile(r"(?i)kernel|impl|launch|wrap")
"""A function whose name says it only runs what its template arguments hold."""
SCALARS = frozenset({
    "bool", "char", "signed char", "unsigned char", "short", "unsigned short", "int",
    "unsigned", "unsigned int", "long", "unsigned long", "long long", "unsigned long long",
    "float", "double", "half", "__half", "__half2", "__nv_bfloat16", "__nv_bfloat162",
    "BFloat16", "Half", "float2", "float4", "double2", "int8_t", "uint8_t", "int16_t",
    "int32_t", "int64_t", "uint32_t", "uint64_t", "Float8_e4m3fn", "Float8_e5m2",
    "Float8_e4m3fnuz", "Float8_e5m2fnuz", "complex", "tf32", "bf16", "fp16", "fp32",
})
_INDEX_TYPES = frozenset({"int", "long", "unsigned", "unsigned int", "unsigned long",
                          "long long", "unsigned long long", "size_t", "int64_t", "int32_t"})
NOISE_NAMESPACES = frozenset({"std", "cuda", "thrust", "cub", "Kokkos", "__gnu_cxx", "cute"})
FUNCTION_SUFFIXES = (
    "CUDAKernelImpl", "_kernel_cuda", "_kernel_impl", "KernelImpl", "_cuda_kernel", "_kernel",
    "_cuda", "_impl",
)
LAUNCHERS = {
    "_kernel_agent": "thrust", "cuda_parallel_launch_local_memory": "Kokkos",
    "cuda_parallel_launch_constant_memory": "Kokkos",
    "cuda_parallel_launch_global_memory": "Kokkos", "Kernel": "cutlass", "Kernel2": "cutlass",
    "device_kernel": "cutlass",
}
"""Kernels that only launch what their template arguments hold, by the library they are of."""
_KOKKOS_WRAPPERS = ("CombinedFunctorReducer",)
_PLUMBING = re.compile(
    r"(?:Metadata|OffsetCalculator|Loader|Storer|WithCast|Policy\d*|Params|Traits|Allocator"
    r"|Iterator|Tag)$"
)
"""Functors that carry data or choose a strategy rather than say what a kernel computes."""


@dataclass(frozen=True)
class Arg:
    """One template argument: its kind (value, scalar, functor, noise) and its spellings:
    ``compact`` (a functor's bare name, a lambda's enclosing function), ``nested`` (a functor
    with its own meaningful arguments; a lambda with its parameter types, or its number when
    its parameters are only an index), ``numbered`` (a lambda with its number and parameter
    types) and ``full`` (everything, namespaces dropped)."""

    kind: str
    compact: str
    nested: str
    full: str
    numbered: str = ""
    scope: str = ""
    """For a lambda, the function that encloses it as ``ident<args>`` (namespaces dropped)."""

    def spelled(self, mode: str) -> str:
        if mode == "compact":
            return self.compact
        if mode == "full":
            return self.full
        if mode == "all":
            return self.numbered or self.nested
        return self.nested


def is_lambda(arg: str) -> bool:
    """Whether the argument's type is itself a lambda (not a class that has one inside)."""
    parts = qualified_parts(arg)
    return bool(parts) and bool(_LAMBDA.match(parts[-1]))


def _index_only(params: str) -> bool:
    """Whether a lambda's parameters are only loop indices (``int``, ``unsigned long``, a
    Kokkos team member): they say nothing about what it computes."""
    kinds = [p.strip().removeprefix("const ").removesuffix("&").strip()
             for p in split_top(params, ",") if p.strip()]
    return all(k in _INDEX_TYPES or k.endswith("TeamMember") for k in kinds)


def _lambda(arg: str) -> Arg:
    """A lambda type such as ``graupel(unsigned long &, …)::[lambda(unsigned long) (instance
    4)]`` or ``at::GeluCUDAKernelImpl(at::TensorIteratorBase &)::[lambda() (instance 2)]::…``."""
    function = scope = params = number = ""
    for part in (p.strip() for p in split_top(arg, "::")):
        if _LAMBDA.match(part):
            open_at = part.find("(")
            params = strip_namespaces(part[open_at + 1 : matching(part, open_at)]).strip()
            found = _INSTANCE.search(part[matching(part, open_at):])
            number = found.group(1) if found else ""
            continue
        if function or not part or part.startswith(("operator", "<", "(")):
            continue
        cut = param_list_start(part)
        if cut > 0 and part.endswith(")"):
            function = part[:cut]
        else:
            scope = part
    enclosing = after_return_type(function or scope)
    ident, inner = split_template(enclosing)
    owner = drop_suffix(ident, FUNCTION_SUFFIXES) if ident else "lambda"
    wrapped = [a for a in parse_args(inner) if a.kind == "functor"] if inner is not None else []
    if inner is not None and wrapped and (_GENERIC.search(ident) or any(a.scope for a in wrapped)):
        # A generic wrapper (gpu_kernel_impl<F>, a function templated on a lambda): what it
        # wraps is the meaning.
        return Arg("functor", args_text(inner, "compact"), args_text(inner, "nested"),
                   strip_namespaces(arg))
    tag = f"{owner} λ#{number}" if number else owner
    nested = tag if _index_only(params) else f"{owner}({params})"
    numbered = f"{tag}({params})" if params else tag
    return Arg("functor", owner, nested, strip_namespaces(arg), numbered, enclosing)


def first_match(args: str, wanted: Callable[[str], bool]) -> str | None:
    """The first template argument, searched depth first through the template arguments of
    the arguments, for which ``wanted(arg)`` holds."""
    for arg in split_top(args, ","):
        arg = arg.strip()
        if not arg:
            continue
        if wanted(arg):
            return arg
        parts = qualified_parts(arg)
        inner = split_template(after_return_type(parts[-1]))[1] if parts else None
        found = first_match(inner, wanted) if inner else None
        if found is not None:
            return found
    return None


@lru_cache(maxsize=8192)
def classify(arg: str) -> Arg:
    arg = CAST.sub(r"\1", arg.strip())
    full = strip_namespaces(arg)
    if INTEGER.match(arg) or arg in ("true", "false"):
        return Arg("value", arg, arg, arg)
    if is_lambda(arg):
        return _lambda(arg)
    if arg.removesuffix(" const").rstrip().endswith(("*", "&")):
        return Arg("noise", "", "", full)
    qualified = qualified_parts(arg)
    first = split_template(qualified[0])[0] if qualified else ""
    last = qualified[-1] if qualified else arg
    ident, inner = split_template(last)
    base = after_return_type(ident)
    nested = ident if inner is None else f"{ident}<{args_text(inner, 'nested')}>"
    nested = nested.removesuffix("<>")
    if ident in SCALARS or base in SCALARS:
        return Arg("scalar", nested, nested, full)
    if first in NOISE_NAMESPACES and len(qualified) > 1:
        buried = first_match(inner, is_lambda) if inner else None
        return _lambda(buried) if buried else Arg("noise", "", "", full)
    return Arg("functor", ident, nested, full)


@lru_cache(maxsize=8192)
def parse_args(args: str) -> tuple[Arg, ...]:
    return tuple(classify(a) for a in split_top(args, ",") if a.strip())


def _chosen(parsed: tuple[Arg, ...], mode: str) -> list[Arg]:
    """The arguments a name shows: its functors if it has any (without those that only carry
    data or choose a strategy, ``TrivialOffsetCalculator``, when others say more), else up to
    three plain values and types (more is a parameter pack, not a name); ``all``: every one
    but plumbing."""
    if mode == "all":
        return [a for a in parsed if a.kind != "noise"]
    functors = [a for a in parsed if a.kind == "functor" and a.compact]
    meaningful = [a for a in functors if not _PLUMBING.search(a.compact)]
    if functors:
        return meaningful or functors
    plain = [a for a in parsed if a.kind in ("value", "scalar")]
    return plain if len(plain) <= 3 else []


def args_text(args: str, mode: str) -> str:
    """The template arguments ``args`` spelled for ``mode``: ``compact`` (functors by name),
    ``nested`` (functors with their own arguments), ``all`` (every argument, nested) or
    ``full`` (every argument as written, namespaces dropped); empty for none."""
    parsed = parse_args(args)
    if mode == "full":
        return ", ".join(a.full for a in parsed)
    chosen = _chosen(parsed, "all" if mode == "all" else "compact")
    spelled = [a.spelled(mode) for a in chosen]
    if mode != "all" and all(a.kind == "functor" for a in chosen):
        # Several lambdas of one wrapper read the same: say it once.
        spelled = list(dict.fromkeys(spelled))
    return ", ".join(spelled)


@dataclass(frozen=True)
class Payload:
    """What a launcher kernel launches: a lambda or a functor (``arg``), or a class to spell
    like a kernel (``component``: Kokkos' ``ViewFill<…>``), with a CUTLASS tile shape."""

    arg: Arg | None = None
    component: str = ""
    tile: str | None = None


def _kokkos_functor(args: str) -> str:
    """``ParallelFor<F, Policy, Cuda>`` → F (through ``CombinedFunctorReducer<F, …>``)."""
    inner = split_template(qualified_parts(split_top(args, ",")[0])[-1])[1] or ""
    functor = split_top(inner, ",")[0].strip()
    ident, wrapped = split_template(qualified_parts(functor)[-1] if functor else "")
    if ident in _KOKKOS_WRAPPERS and wrapped:
        functor = split_top(wrapped, ",")[0].strip()
    return functor


@lru_cache(maxsize=4096)
def payload(qualified: str, args: str) -> Payload | None:
    """What the launcher ``qualified<args>`` launches, or None when it is no launcher."""
    parts = qualified_parts(qualified)
    library = LAUNCHERS.get(split_template(parts[-1])[0]) if parts else None
    if library is None or parts[0] != library:
        return None
    buried = first_match(args, is_lambda)
    if buried is not None:
        return Payload(arg=_lambda(buried))
    if library == "Kokkos":
        functor = _kokkos_functor(args)
        return Payload(component=functor) if functor else None
    if library == "cutlass":
        first = split_top(args, ",")[0].strip()
        return Payload(component=first, tile=tile_shape(args)) if first else None
    user = first_match(args, lambda a: classify(a).kind == "functor")
    return Payload(arg=classify(user)) if user else None


__all__ = [
    "LAUNCHERS",
    "Arg",
    "Payload",
    "args_text",
    "classify",
    "first_match",
    "is_lambda",
    "parse_args",
    "payload",
]
