"""Convolution, forward and backward.

A convolution of an input of N images of C channels with K filters of C/groups channels and
R×S (×T) taps, giving outputs of spatial size P×Q (×O), is N·K·P·Q·(C/groups)·R·S
multiply-adds: ``2·N·K·P·Q·(C/g)·R·S`` FLOPs (the bias is not counted). An output size is
``⌊(in + 2·pad − dil·(k − 1) − 1) / stride⌋ + 1``, so the forward needs the stride, padding and
dilation recorded (Kineto's ``Concrete Inputs``). A transposed convolution does the work of
the convolution it is the gradient of: 2·N·C·H·W·(K/g)·R·S over its input. The backward
(``convolution_backward``) computes the input's gradient and the weight's, each the forward's
FLOPs, as its ``output_mask`` asks (both when not recorded); its ``grad_output`` gives the
output size. Bytes: input, weight and output once (backward: the gradients too).
"""

from __future__ import annotations

import math

from kernelscope.timeline.analysis.op_models.shapes import (
    OpCall,
    Work,
    flag,
    int_list,
    tensor_bytes,
)

_FORMULA = "2·N·K·P·Q·(C/g)·R·S"


def _expand(values: list[int] | None, rank: int, default: int) -> list[int] | None:
    if values is None:
        return None
    if not values:
        return [default] * rank
    if len(values) == 1:
        return values * rank
    return values if len(values) == rank else None


def _output_size(spatial: list[int], kernel: list[int], stride: list[int], pad: list[int],
                 dilation: list[int]) -> list[int]:
    return [(x + 2 * p - d * (k - 1) - 1) // s + 1
            for x, k, s, p, d in zip(spatial, kernel, stride, pad, dilation, strict=True)]


def _forward(call: OpCall, stride_at: int, pad_at: int, dil_at: int,
             transposed: bool = False) -> Work | None:
    """The weight's second size is already C/groups, so the groups are not read."""
    x, w = call.sizes(0), call.sizes(1)
    if x is None or w is None or len(x) != len(w) or len(x) < 3:
        return None
    rank = len(x) - 2
    if transposed:
        # weight [C_in, K/g, R, S]: the work of the convolution this is the gradient of
        flops = 2 * x[0] * math.prod(x[2:]) * x[1] * w[1] * math.prod(w[2:])
        return Work(flops, tensor_bytes(call, [0, 1, 2]), _FORMULA + " (transposed)")
    stride = _expand(int_list(call.arg(stride_at)), rank, 1)
    pad = _expand(int_list(call.arg(pad_at)), rank, 0)
    dilation = _expand(int_list(call.arg(dil_at)), rank, 1)
    if call.arg(pad_at).strip().strip("'\"") == "same":
        pad, stride = [0] * rank, [1] * rank
        out_spatial = x[2:]
    elif stride is None or pad is None or dilation is None:
        return None
    else:
        out_spatial = _output_size(x[2:], w[2:], stride, pad, dilation)
    if any(size <= 0 for size in out_spatial):
        return None
    out = [x[0], w[0], *out_spatial]
    flops = 2 * x[0] * w[0] * math.prod(out_spatial) * w[1] * math.prod(w[2:])
    return Work(flops, tensor_bytes(call, [0, 1, 2], [out]), _FORMULA)


def convolution(call: OpCall) -> Work | None:
    """``convolution``/``_convolution(input, weight, bias, stride, padding, dilation,
    transposed, output_padding, groups, ...)``."""
    return _forward(call, 3, 4, 5, transposed=flag(call.arg(6)) is True)


def conv_nd(call: OpCall) -> Work | None:
    """``conv1d``/``conv2d``/``conv3d(input, weight, bias, stride, padding, dilation,
    groups)``."""
    return _forward(call, 3, 4, 5)


def cudnn_convolution(call: OpCall) -> Work | None:
    """``cudnn_convolution(input, weight, padding, stride, dilation, groups, ...)``."""
    return _forward(call, 3, 2, 4)


def convolution_backward(call: OpCall) -> Work | None:
    """``convolution_backward(grad_output, input, weight, bias_sizes, stride, padding,
    dilation, transposed, output_padding, groups, output_mask)``."""
    grad, x, w = call.sizes(0), call.sizes(1), call.sizes(2)
    if grad is None or x is None or w is None or len(grad) != len(x) or len(x) < 3:
        return None
    if flag(call.arg(7)) is True:
        one = 2 * x[0] * math.prod(x[2:]) * x[1] * w[1] * math.prod(w[2:])
    else:
        one = 2 * grad[0] * grad[1] * math.prod(grad[2:]) * w[1] * math.prod(w[2:])
    mask = [flag(part) for part in call.arg(10).strip("[]").split(",")] if call.arg(10) else []
    passes = sum(1 for wanted in mask[:2] if wanted) if len(mask) >= 2 else 2
    moved = tensor_bytes(call, [0, 1, 2], [x, w])
    return Work(one * passes, moved, f"{passes} × {_FORMULA} (input and weight gradients)")


MODELS = {
    "aten::convolution": convolution, "aten::_convolution": convolution,
    "aten::conv1d": conv_nd, "aten::conv2d": conv_nd, "aten::conv3d": conv_nd,
    "aten::cudnn_convolution": cudnn_convolution,
    "aten::convolution_backward": convolution_backward,
}
