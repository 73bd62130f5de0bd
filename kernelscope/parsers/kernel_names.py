"""Short kernel names by meaning, unique within a report.

A demangled CUDA kernel name carries a lot that a glance does not need: the return type
(``void``), the parameter list, namespaces (``at::native::``), literal casts (``(int)4``),
template arguments that are plumbing (``std::array<char *, 3>``, a vector width) and, in
vendor libraries, tuning knobs in the identifier (``stage3_warpsize4x2x1``). What tells two
kernels apart is usually the kernel's own name plus the functor or the distinguishing template
argument: ``vectorized_elementwise<CUDAFunctor_add>`` and ``vectorized_elementwise<Gelu>``.

:func:`compact_name` gives that name for one kernel. :class:`ShortNames` gives every distinct
name of a report a short name that no other kernel of the report shares: names start at the
most compact level and only those that collide are spelled out further (their differing
template arguments, then every argument, then the namespaces, then the whole demangled name),
so a report with ``add<float>`` and ``add<BFloat16>`` shows both dtypes while a report with
only one shows neither. Pure string work: no Textual, no rich; the kernel list, ``summary``,
Markdown, CSV, JSON and the timeline all name kernels through here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

LEVELS = 6
"""0: compact (functors by name); 1: functors with their own arguments, lambdas with their
parameter types; 2: every template argument but plumbing; 3: every template argument as
written, without namespaces; 4: the bare name (namespaces kept, no return type or
parameters); 5: the whole demangled name."""

_CAST = re.compile(
    r"\((?:bool|(?:(?:un)?signed )?(?:char|short|int|long|long long)|unsigned|"
    r"(?:unsigned )?__int128|size_t)\)(-?\d+)"
)
_INT = re.compile(r"^-?\d+[uUlL]*$")
_LAMBDA = re.compile(r"[\[{]lambda")
_SCALARS = frozenset({
    "bool", "char", "signed char", "unsigned char", "short", "unsigned short", "int",
    "unsigned", "unsigned int", "long", "unsigned long", "long long", "unsigned long long",
    "float", "double", "half", "__half", "__half2", "__nv_bfloat16", "__nv_bfloat162",
    "BFloat16", "Half", "float2", "float4", "double2", "int8_t", "uint8_t", "int16_t",
    "int32_t", "int64_t", "uint32_t", "uint64_t", "Float8_e4m3fn", "Float8_e5m2",
    "Float8_e4m3fnuz", "Float8_e5m2fnuz", "complex", "tf32", "bf16", "fp16", "fp32",
})
_NOISE_NAMESPACES = frozenset({"std", "cuda", "thrust", "cub"})
_FUNCTION_SUFFIXES = (
    "CUDAKernelImpl", "_kernel_cuda", "_kernel_impl", "KernelImpl", "_cuda_kernel", "_kernel",
    "_cuda", "_impl",
)
_KERNEL_SUFFIX = "_kernel"
_TYPE_TOKEN = re.compile(r"[a-z]+\d+")
_XMMA = re.compile(r"^(sm\d+)_xmma_")
_XMMA_DROP = re.compile(r"^(?:stage\d+|warpsize\d+x\d+x\d+|align[a-z]\d+)$")
_CUDNN_DROP = re.compile(r"^cga\d+x\d+x\d+$")
_DIMS = re.compile(r"\d+x\d+x\d+")


# -- bracket-aware splitting ------------------------------------------------------------------

_OPEN = {"<": ">", "(": ")", "[": "]", "{": "}"}
_CLOSE = {v: k for k, v in _OPEN.items()}


def _depths(text: str) -> Iterator[tuple[int, str, int]]:
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
    for i, _ch, depth in _depths(text):
        if i < skip_to:
            continue
        if depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            start = i + len(sep)
            skip_to = start
    parts.append(text[start:])
    return parts


def _param_list_start(name: str) -> int:
    """Index of the '(' opening the parameter list (the last one outside templates)."""
    cut = -1
    for i, ch, depth in _depths(name):
        if ch == "(" and depth == 0:
            cut = i
    return cut


def _split_template(component: str) -> tuple[str, str | None]:
    """``ident<args>`` → (ident, args); (component, None) without template arguments."""
    component = component.strip()
    if not component.endswith(">"):
        return component, None
    for i, ch, depth in _depths(component):
        if ch == "<" and depth == 0 and i > 0:
            return component[:i], component[i + 1 : -1]
    return component, None


# -- the parts of a name ----------------------------------------------------------------------


@lru_cache(maxsize=8192)
def bare_name(demangled: str) -> str:
    """``demangled`` without return type and parameters:
    ``void mm_tiled<32>(const float *, float *, int)`` → ``mm_tiled<32>``."""
    name = demangled.strip().removesuffix(" const")
    cut = _param_list_start(name)
    if cut > 0 and name.endswith(")"):
        name = name[:cut]
    return _after_return_type(name) or demangled.strip()


def _unqualified(name: str) -> str:
    """The last ``::`` component of a qualified name (``at::native::Foo<T>`` → ``Foo<T>``)."""
    parts = [p for p in split_top(name.strip(), "::") if p.strip()]
    return parts[-1].strip() if parts else name.strip()


def _strip_namespaces(text: str) -> str:
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


def _drop_suffix(name: str, suffixes: tuple[str, ...]) -> str:
    for suffix in suffixes:
        if name.endswith(suffix) and len(name) > len(suffix) + 1:
            return name[: -len(suffix)]
    return name


@dataclass(frozen=True)
class _Arg:
    """One template argument: its kind (value, scalar, functor, noise) and three spellings:
    ``compact`` (a functor's bare name), ``nested`` (a functor with its own meaningful
    arguments, a lambda with its parameter types) and ``full`` (everything, namespaces
    dropped)."""

    kind: str
    compact: str
    nested: str
    full: str


def _is_lambda(arg: str) -> bool:
    """Whether the argument's type is itself a lambda (not a class that has one inside)."""
    parts = [p.strip() for p in split_top(arg, "::") if p.strip()]
    return bool(parts) and bool(_LAMBDA.match(parts[-1]))


def _lambda_parts(arg: str) -> tuple[str, str | None, str]:
    """(enclosing function or class, its template arguments, the innermost lambda's parameter
    types) of a lambda type such as
    ``at::GeluCUDAKernelImpl(at::TensorIteratorBase &)::[lambda() (instance 2)]::…``."""
    function = ""
    scope = ""
    params = ""
    for part in (p.strip() for p in split_top(arg, "::")):
        if _LAMBDA.match(part):
            open_at = part.find("(")
            params = _strip_namespaces(part[open_at + 1 : _matching(part, open_at)]).strip()
            continue
        if function or not part or part.startswith(("operator", "<", "(")):
            continue
        cut = _param_list_start(part)
        if cut > 0 and part.endswith(")"):
            function = part[:cut]
        else:
            scope = part
    owner = _after_return_type(function or scope)
    ident, inner = _split_template(owner)
    name = _drop_suffix(ident, _FUNCTION_SUFFIXES) if ident else "lambda"
    return name, inner, params


def _after_return_type(text: str) -> str:
    """``void at::f<A, B>`` → ``at::f<A, B>`` (the last word outside brackets and after)."""
    last_space = -1
    for i, ch, depth in _depths(text):
        if ch == " " and depth == 0:
            last_space = i
    return text[last_space + 1 :] if last_space >= 0 else text


def _matching(text: str, open_at: int) -> int:
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


@lru_cache(maxsize=8192)
def _classify(arg: str) -> _Arg:
    arg = _CAST.sub(r"\1", arg.strip())
    full = _strip_namespaces(arg)
    if _INT.match(arg) or arg in ("true", "false"):
        return _Arg("value", arg, arg, arg)
    if _is_lambda(arg):
        owner, inner, params = _lambda_parts(arg)
        if inner is not None and any(a.kind == "functor" for a in _args(inner)):
            # A generic wrapper (gpu_kernel_impl<F>): what it wraps is the meaning.
            return _Arg("functor", _args_text(inner, "compact"), _args_text(inner, "nested"),
                        full)
        return _Arg("functor", owner, f"{owner}({params})" if params else owner, full)
    if arg.removesuffix(" const").rstrip().endswith(("*", "&")):
        return _Arg("noise", "", "", full)
    qualified = [p.strip() for p in split_top(arg, "::") if p.strip()]
    first = _split_template(qualified[0])[0] if qualified else ""
    last = qualified[-1] if qualified else arg
    ident, inner = _split_template(last)
    base = _after_return_type(ident)
    nested = ident if inner is None else f"{ident}<{_args_text(inner, 'nested')}>"
    nested = nested.removesuffix("<>")
    if ident in _SCALARS or base in _SCALARS:
        return _Arg("scalar", nested, nested, full)
    if first in _NOISE_NAMESPACES and len(qualified) > 1:
        return _Arg("noise", "", "", full)
    return _Arg("functor", ident, nested, full)


@lru_cache(maxsize=8192)
def _args(args: str) -> tuple[_Arg, ...]:
    return tuple(_classify(a) for a in split_top(args, ",") if a.strip())


def _chosen(parsed: tuple[_Arg, ...], mode: str) -> list[_Arg]:
    """The arguments a name shows: its functors if it has any, else up to three plain values
    and types (more is a parameter pack, not a name); ``all``: every one but plumbing."""
    if mode == "all":
        return [a for a in parsed if a.kind != "noise"]
    functors = [a for a in parsed if a.kind == "functor" and a.compact]
    if functors:
        return functors
    plain = [a for a in parsed if a.kind in ("value", "scalar")]
    return plain if len(plain) <= 3 else []


def _args_text(args: str, mode: str) -> str:
    """The template arguments ``args`` spelled for ``mode``: ``compact`` (functors by name),
    ``nested`` (functors with their own arguments), ``all`` (every argument, nested) or
    ``full`` (every argument as written, namespaces dropped); empty for none."""
    parsed = _args(args)
    if mode == "full":
        return ", ".join(a.full for a in parsed)
    chosen = _chosen(parsed, "all" if mode == "all" else "compact")
    spelled = [a.compact if mode == "compact" else a.nested for a in chosen]
    if mode != "all" and all(a.kind == "functor" for a in chosen):
        # Several lambdas of one wrapper read the same: say it once.
        spelled = list(dict.fromkeys(spelled))
    return ", ".join(spelled)


def _types(token: str) -> str:
    """``f32f32_f32f32_f32`` → ``f32``; mixed precisions stay as they are."""
    pieces = [t for part in token.split("_") for t in _TYPE_TOKEN.findall(part)]
    joined = "".join(token.split("_"))
    if pieces and "".join(pieces) == joined and len(set(pieces)) == 1:
        return str(pieces[0])
    return token


def compact_identifier(ident: str) -> str:
    """A vendor library's generated kernel identifier without its tuning knobs: cuBLAS /
    TensorRT ``xmma`` names keep the architecture, operation, precision, layout, tile and
    math (``sm80_xmma_gemm_f32_nn_n_256x128x8_ffma``); cuDNN's generated names drop
    ``generated_fort_native`` and the knob number. Other identifiers are returned as given."""
    if _XMMA.match(ident):
        head = ident.partition("_execute")[0]
        tokens = head.split("_")
        out: list[str] = []
        types: list[str] = []
        for token in tokens:
            if _XMMA_DROP.match(token):
                continue
            if re.fullmatch(r"(?:[a-z]+\d+)+", token) and re.search(r"^(?:f|bf|i|u|s|e\dm\d)",
                                                                    token) and len(out) >= 3:
                types.append(token)
                continue
            if types:
                out.append(_types("_".join(types)))
                types = []
            out.append(token.removeprefix("tilesize"))
        if types:
            out.append(_types("_".join(types)))
        return "_".join(out)
    if ident.startswith("cudnn_generated_fort_native_"):
        out = []
        previous = ""
        for token in ident.removeprefix("cudnn_generated_fort_native_").split("_"):
            dropped = (
                token == "knob"
                or _CUDNN_DROP.match(token)
                or re.fullmatch(r"kernel\d+", token)
                or (token.isdigit() and (previous == "knob" or previous.startswith("kernel")))
                or (_DIMS.fullmatch(token) and _DIMS.fullmatch(previous))  # warps after tile
            )
            if not dropped:
                out.append(token)
            previous = token
        return "cudnn_" + "_".join(out)
    return ident


_MODES = ("compact", "nested", "all", "full")


@lru_cache(maxsize=8192)
def name_at(demangled: str, level: int) -> str:
    """``demangled`` spelled at ``level`` (see ``LEVELS``)."""
    text = _CAST.sub(r"\1", demangled.strip())
    if level >= LEVELS - 1:
        return text or demangled
    bare = bare_name(text)
    if level == LEVELS - 2:
        return bare
    component = _unqualified(bare)
    ident, args = _split_template(component)
    if level == 0:
        ident = compact_identifier(ident)
    if args is None:
        return ident
    if level < 3:
        ident = _drop_suffix(ident, (_KERNEL_SUFFIX,))
    shown = _args_text(args, _MODES[level])
    return f"{ident}<{shown}>" if shown else ident


def compact_name(demangled: str) -> str:
    """The most compact meaningful name of one kernel (no report context):
    ``void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>,
    std::array<char *, 3>>(int, T2, T3)`` → ``vectorized_elementwise<CUDAFunctor_add>``."""
    return name_at(demangled, 0)


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
        are unique (the whole demangled name always is)."""
        while True:
            spelled: dict[str, list[str]] = {}
            for name, level in self._level.items():
                spelled.setdefault(name_at(name, level), []).append(name)
            raised = False
            for group in spelled.values():
                if len(group) < 2:
                    continue
                for name in group:
                    if self._level[name] < LEVELS - 1:
                        self._level[name] = _next_distinct_level(name, self._level[name])
                        raised = True
            if not raised:
                self._short = {n: name_at(n, lvl) for n, lvl in self._level.items()}
                return


def _next_distinct_level(name: str, level: int) -> int:
    """The next level that spells ``name`` differently from ``level`` (or the last)."""
    here = name_at(name, level)
    for nxt in range(level + 1, LEVELS):
        if name_at(name, nxt) != here:
            return nxt
    return LEVELS - 1


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


__all__ = [
    "LEVELS",
    "ShortNames",
    "bare_name",
    "compact_identifier",
    "compact_name",
    "fit_name",
    "fit_names",
    "name_at",
    "short_names",
    "split_top",
]
