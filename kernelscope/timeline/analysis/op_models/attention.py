"""Attention: ``scaled_dot_product_attention`` and the flash, memory-efficient and cuDNN
operators under it, forward and backward.

With queries of B·H rows of length Lq and keys of length Lk (head size D for Q and K, Dv for
V), the forward is two products, S = Q·Kᵀ (2·B·H·Lq·Lk·D FLOPs) and O = P·V
(2·B·H·Lq·Lk·Dv): 2·B·H·Lq·Lk·(D + Dv), ``4·B·H·Lq·Lk·D`` when Dv = D (FlashAttention's
count; softmax's exponentials are not counted). The backward recomputes S and makes dV, dP,
dQ and dK: five products, 2·B·H·Lq·Lk·(3·D + 2·Dv), 2.5 times the forward when Dv = D. A
causal mask keeps, of the Lq·Lk pairs, the keys j ≤ i of each query i (PyTorch's
``is_causal`` is top-left aligned): Σᵢ min(i + 1, Lk), about half (``causal halving``; for
Lq = Lk, L(L + 1)/2 of L² pairs). Bytes: Q, K, V and the
output once (backward: also the output's gradient, and the three gradients written).
Grouped-query attention (fewer K/V heads) does H query heads' work.

flash-attn's own operators (``flash_attn::_flash_attn_forward``/``_backward``, registered by
flash-attn ≥ 2.6 under PyTorch ≥ 2.4) take [B, L, H, D] inputs and a ``causal`` flag; a sliding
window (``window_size_left``/``right`` other than -1) keeps pairs this model does not count.
Variable-length attention (flash-attn's ``_flash_attn_varlen_*``; ``_flash_attention_*`` and
``_efficient_attention_*`` given cumulative sequence lengths) packs the sequences into one
dimension: the profiler records the tensor of cumulative lengths by its size only, so the
pairs are not known and there is no model (:func:`no_model_reason` says so).
"""

from __future__ import annotations

from typing import NamedTuple

from kernelscope.timeline.analysis.op_models.shapes import (
    OpCall,
    Work,
    flag,
    int_value,
    tensor_bytes,
)


class _Spec(NamedTuple):
    """Where an attention operator keeps what the model reads."""

    layout: str
    """Of q, k and v: ``BHLD`` (batch, heads, length, head size) or ``BLHD``."""
    causal_at: int
    """The index of ``is_causal``, or of the mask type where ``mask_type``."""
    mask_type: bool = False
    """Whether that argument is a mask type (an int, 0: none) rather than a boolean."""


_FORWARD = {
    "aten::scaled_dot_product_attention": _Spec("BHLD", 5),
    "aten::_scaled_dot_product_flash_attention": _Spec("BHLD", 4),
    "aten::_scaled_dot_product_efficient_attention": _Spec("BHLD", 6),
    "aten::_scaled_dot_product_cudnn_attention": _Spec("BHLD", 6),
    "aten::_flash_attention_forward": _Spec("BLHD", 8),
    "aten::_efficient_attention_forward": _Spec("BLHD", 9, mask_type=True),
    "flash_attn::_flash_attn_forward": _Spec("BLHD", 5),
}
"""The forward operators: q, k and v are their arguments 0, 1 and 2."""
_BACKWARD = {
    "aten::_scaled_dot_product_flash_attention_backward": _Spec("BHLD", 11),
    "aten::_scaled_dot_product_efficient_attention_backward": _Spec("BHLD", 11),
    "aten::_scaled_dot_product_cudnn_attention_backward": _Spec("BHLD", 14),
    "aten::_flash_attention_backward": _Spec("BLHD", 11),
    "aten::_efficient_attention_backward": _Spec("BLHD", 14, mask_type=True),
    "flash_attn::_flash_attn_backward": _Spec("BLHD", 11),
}
"""The backward operators: the output's gradient comes first, then q, k and v (1, 2, 3)."""
_WINDOW = {"flash_attn::_flash_attn_forward": 6, "flash_attn::_flash_attn_backward": 12}
"""Where flash-attn's operators take ``window_size_left`` (``window_size_right`` next)."""
_CUMULATIVE_LENGTHS = {
    "aten::_flash_attention_forward": 3, "aten::_efficient_attention_forward": 4,
    "aten::_flash_attention_backward": 6, "aten::_efficient_attention_backward": 6,
}
"""Where these operators take the cumulative sequence lengths of the queries (varlen when a
tensor is given)."""
VARLEN = ("flash_attn::_flash_attn_varlen_forward", "flash_attn::_flash_attn_varlen_backward")
NO_SEQUENCE_LENGTHS = "sequence lengths are not in the trace"
SLIDING_WINDOW = "a sliding window (window_size) is not modelled"


def no_model_reason(call: OpCall) -> str | None:
    """Why an attention call has no model, where its arguments say: variable-length (the
    sequence lengths are not recorded) or a sliding window; None otherwise."""
    at = _CUMULATIVE_LENGTHS.get(call.name)
    if call.name in VARLEN or (at is not None and call.sizes(at)):
        return NO_SEQUENCE_LENGTHS
    window = _WINDOW.get(call.name)
    if window is not None and any(int_value(call.arg(window + i)) not in (None, -1)
                                  for i in range(2)):
        return SLIDING_WINDOW
    return None


def causal_pairs(lq: int, lk: int) -> int:
    """The (query, key) pairs a top-left causal mask keeps: Σ_{i<Lq} min(i + 1, Lk)."""
    if lq <= lk:
        return lq * (lq + 1) // 2
    return lk * (lk + 1) // 2 + (lq - lk) * lk


def _heads_and_lengths(sizes: list[int], layout: str) -> tuple[int, int, int, int] | None:
    """(batch, heads, length, head size) of a 4-D query, key or value."""
    if len(sizes) != 4:
        return None
    if layout == "BHLD":
        return sizes[0], sizes[1], sizes[2], sizes[3]
    return sizes[0], sizes[2], sizes[1], sizes[3]


def _causal(call: OpCall, index: int, mask_type: bool) -> bool | None:
    text = call.arg(index)
    if mask_type:
        value = int_value(text)
        return None if value is None else value != 0
    return flag(text)


def attention(call: OpCall) -> Work | None:
    backward = call.name in _BACKWARD
    spec = _BACKWARD.get(call.name) or _FORWARD.get(call.name)
    if spec is None or no_model_reason(call) is not None:
        return None
    first = 1 if backward else 0
    layout, causal_at, mask_type = spec
    shapes = [call.sizes(first + i) for i in range(3)]
    if any(shape is None for shape in shapes):
        return None
    q, k, v = (_heads_and_lengths(shape or [], layout) for shape in shapes)
    if q is None or k is None or v is None:
        return None
    batch, heads, lq, d = q
    lk, dv = k[2], v[3]
    causal = _causal(call, causal_at, mask_type)
    pairs = causal_pairs(lq, lk) if causal else lq * lk
    notes = " (causal pairs)" if causal else ""
    if causal is None:
        notes += " (is_causal not recorded: taken as False)"
    out = [[batch, heads, lq, dv]]
    if backward:
        # grad_out, q, k, v read; out read; dq, dk, dv written
        moved = tensor_bytes(call, [0, 1, 2, 3], [out[0], *(s or [] for s in shapes)])
        work = 2 * batch * heads * pairs * (3 * d + 2 * dv)
        return Work(work, moved, "2·B·H·Lq·Lk·(3·D + 2·Dv)" + notes)
    forward = 2 * batch * heads * pairs * (d + dv)
    return Work(forward, tensor_bytes(call, [0, 1, 2], out), "4·B·H·Lq·Lk·D" + notes)


_NAMES = (*_FORWARD, *_BACKWARD, *VARLEN)
MODELS = dict.fromkeys(_NAMES, attention)
REASONS = dict.fromkeys(_NAMES, no_model_reason)
