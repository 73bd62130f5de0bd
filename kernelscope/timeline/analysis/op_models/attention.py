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

from kernelscope.timeline.analysis.op_models.shapes import (
    OpCall,
    Work,
    flag,
    int_value,
    tensor_bytes,
)

# operator: (index of the query, layout of q/k/v, index of is_causal or of the mask type,
#            whether that index holds a mask type (an int) rather than a boolean, backward)
_SPECS: dict[str, tuple[int, str, int, bool, bool]] = {
    "aten::scaled_dot_product_attention": (0, "BHLD", 5, False, False),
    "aten::_scaled_dot_product_flash_attention": (0, "BHLD", 4, False, False),
    "aten::_scaled_dot_product_efficient_attention": (0, "BHLD", 6, False, False),
    "aten::_scaled_dot_product_cudnn_attention": (0, "BHLD", 6, False, False),
    "aten::_flash_attention_forward": (0, "BLHD", 8, False, False),
    "aten::_efficient_attention_forward": (0, "BLHD", 9, True, False),
    "aten::_scaled_dot_product_flash_attention_backward": (1, "BHLD", 11, False, True),
    "aten::_scaled_dot_product_efficient_attention_backward": (1, "BHLD", 11, False, True),
    "aten::_scaled_dot_product_cudnn_attention_backward": (1, "BHLD", 14, False, True),
    "aten::_flash_attention_backward": (1, "BLHD", 11, False, True),
    "aten::_efficient_attention_backward": (1, "BLHD", 14, True, True),
    "flash_attn::_flash_attn_forward": (0, "BLHD", 5, False, False),
    "flash_attn::_flash_attn_backward": (1, "BLHD", 11, False, True),
}
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
    spec = _SPECS.get(call.name)
    if spec is None:
        return None
    if no_model_reason(call) is not None:
        return None
    first, layout, causal_at, mask_type, backward = spec
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
    forward = 2 * batch * heads * pairs * (d + dv)
    label = "4·B·H·Lq·Lk·D" + (" (causal pairs)" if causal else "")
    if causal is None:
        label += " (is_causal not recorded: taken as False)"
    out = [[batch, heads, lq, dv]]
    if backward:
        # grad_out, q, k, v read; out read; dq, dk, dv written
        moved = tensor_bytes(call, [0, 1, 2, 3], [out[0], *(s or [] for s in shapes)])
        work = 2 * batch * heads * pairs * (3 * d + 2 * dv)
        return Work(work, moved, "2·B·H·Lq·Lk·(3·D + 2·Dv)" + label[13:])
    return Work(forward, tensor_bytes(call, [first, first + 1, first + 2], out), label)


MODELS = dict.fromkeys((*_SPECS, *VARLEN), attention)
REASONS = dict.fromkeys((*_SPECS, *VARLEN), no_model_reason)
