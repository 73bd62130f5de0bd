"""Vendor libraries' generated kernel identifiers, for ``kernel_names``: what to keep of them.

cuBLAS / cuDNN / TensorRT ``xmma`` kernels spell their tuning knobs into the identifier
(``sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_…``);
cuDNN's runtime-fused kernels do too (``cudnn_generated_fort_native_…_knob_7_…``); CUTLASS and
CuTe kernels carry their tile shape in the template arguments
(``GemmShape<128, 128, 32>``, ``cute::tuple<cute::C<128>, cute::C<256>, cute::C<64>>``).
"""

from __future__ import annotations

import re

_TYPE_TOKEN = re.compile(r"[a-z]+\d+")


def _types(token: str) -> str:
    """``f32f32_f32f32_f32`` → ``f32``; mixed precisions stay as they are."""
    pieces = [t for part in token.split("_") for t in _TYPE_TOKEN.findall(part)]
    joined = "".join(token.split("_"))
    if pieces and "".join(pieces) == joined and len(set(pieces)) == 1:
        return str(pieces[0])
    return token


_XMMA_KNOBS = re.compile(r"^(?:stage\d+|warpsize\d+x\d+x\d+|align[a-z]\d+|g\d+|implicit)$")
_XMMA_DETAIL = re.compile(r"^warpsize\d+x\d+x\d+$")
_LAYOUT = re.compile(r"^[nhwckrsdt]{3,}$")
_ALIGN = re.compile(r"^align[a-z]\d+$")
_MATH_SHAPE = re.compile(r"^(tensor)\d+x\d+x\d+$")
_TYPE_RUN = re.compile(r"(?:[a-z]+\d+)+")
_TYPE_START = re.compile(r"^(?:f|bf|i|u|s|e\dm\d)")


def _xmma(ident: str, detail: bool) -> str:
    """An xmma identifier without its knobs: architecture, operation, precision, layout, tile,
    math (``sm80_xmma_gemm_f32_nn_n_256x128x8_ffma``; convolutions drop their NHWC-style layouts).
    With ``detail`` the stages, alignments and layouts stay (they tell apart kernels that
    differ only there)."""
    head = ident.partition("_execute")[0]
    drop = _XMMA_DETAIL if detail else _XMMA_KNOBS
    out: list[str] = []
    types: list[str] = []
    for token in head.split("_"):
        if drop.match(token) or (not detail and _LAYOUT.match(token) and len(out) >= 3):
            continue
        if _TYPE_RUN.fullmatch(token) and _TYPE_START.search(token) and len(out) >= 3:
            types.append(token)
            continue
        if types:
            out.append(_types("_".join(types)))
            types = []
        token = token.removeprefix("tilesize")
        out.append(_MATH_SHAPE.sub(r"\1", token))
    if types:
        out.append(_types("_".join(types)))
    aligns = {t[len("alignx"):] for t in out if _ALIGN.match(t)}
    if len(aligns) == 1:  # aligna8_alignc8 → align8
        first = next(i for i, t in enumerate(out) if _ALIGN.match(t))
        out = [t for t in out if not _ALIGN.match(t)]
        out.insert(first, f"align{aligns.pop()}")
    return "_".join(out)


_CUDNN_DROP = re.compile(r"^cga\d+x\d+x\d+$")
_DIMS = re.compile(r"\d+x\d+x\d+")


def _cudnn(ident: str) -> str:
    out: list[str] = []
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


_XMMA = re.compile(r"^(sm\d+)_xmma_")


def compact_identifier(ident: str, detail: bool = False) -> str:
    """A vendor library's generated kernel identifier without its tuning knobs: cuBLAS /
    TensorRT ``xmma`` names keep the architecture, operation, precision, layout, tile and
    math (``sm80_xmma_gemm_f32_nn_n_256x128x8_ffma``); cuDNN's generated names drop
    ``generated_fort_native`` and the knob number. Other identifiers are returned as given."""
    if _XMMA.match(ident):
        return _xmma(ident, detail)
    if ident.startswith("cudnn_generated_fort_native_"):
        return _cudnn(ident)
    return ident


_GEMM_SHAPE = re.compile(r"GemmShape<(\d+), (\d+), (\d+)>")
_CUTE_SHAPE = re.compile(
    r"(?:tuple|Shape)<(?:cute::)?(?:C<|_)(\d+)>?, (?:cute::)?(?:C<|_)(\d+)>?, "
    r"(?:cute::)?(?:C<|_)(\d+)>?>"
)


def tile_shape(text: str) -> str | None:
    """The CUTLASS (the first ``GemmShape<128, 128, 32>``) or CuTe (the largest
    ``cute::tuple<cute::C<128>, …>``, ``Shape<_128, _128, _64>``) tile shape in ``text`` as
    ``128x128x32``; None without."""
    found = _GEMM_SHAPE.search(text)
    if found:
        return "x".join(found.groups())
    # CuTe kernels also spell their cluster shape (2x1x1) as a tuple: the tile is the largest.
    shapes = [(int(m[1]), int(m[2]), int(m[3])) for m in _CUTE_SHAPE.finditer(text)]
    if not shapes:
        return None
    return "x".join(str(n) for n in max(shapes, key=lambda s: s[0] * s[1] * s[2]))


def bounded(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters, keeping its head and its tail (where
    generated names keep their number: ``triton_poi_fused_…_mul_0``)."""
    if len(text) <= limit:
        return text
    tail = max(limit // 4, 1)
    return text[: limit - tail - 1] + "…" + text[-tail:]


__all__ = ["bounded", "compact_identifier", "tile_shape"]
