"""Matrix products: ``mm``, ``addmm``, ``bmm``, ``baddbmm``, ``matmul``, ``linear``.

A product of (M×K)·(K×N) is M·N·K multiply-adds: 2·M·N·K FLOPs, times the batch. The bias of
``addmm``/``baddbmm``/``linear`` (M·N adds, a K-th of the product) is not counted. Bytes: both
operands, the bias where there is one, and the result, once each. The backward of a product is
made of products (``AddmmBackward0`` calls ``aten::mm`` twice), modelled as themselves.
"""

from __future__ import annotations

import math

from kernelscope.timeline.analysis.op_models.shapes import OpCall, Work, tensor_bytes


def _gemm(call: OpCall, batch: int, m: int, n: int, k: int, inputs: list[int]) -> Work:
    out = [[batch, m, n]]
    return Work(2 * batch * m * n * k, tensor_bytes(call, inputs, out), "2·M·N·K")


def mm(call: OpCall) -> Work | None:
    a, b = call.sizes(0), call.sizes(1)
    if a is None or b is None or len(a) != 2 or len(b) != 2 or a[1] != b[0]:
        return None
    return _gemm(call, 1, a[0], b[1], a[1], [0, 1])


def addmm(call: OpCall) -> Work | None:
    a, b = call.sizes(1), call.sizes(2)
    if a is None or b is None or len(a) != 2 or len(b) != 2 or a[1] != b[0]:
        return None
    return _gemm(call, 1, a[0], b[1], a[1], [0, 1, 2])


def bmm(call: OpCall, first: int = 0) -> Work | None:
    a, b = call.sizes(first), call.sizes(first + 1)
    if a is None or b is None or len(a) != 3 or len(b) != 3 or a[2] != b[1] or a[0] != b[0]:
        return None
    inputs = [first, first + 1] if first == 0 else [0, 1, 2]
    return _gemm(call, a[0], a[1], b[2], a[2], inputs)


def baddbmm(call: OpCall) -> Work | None:
    return bmm(call, first=1)


def matmul(call: OpCall) -> Work | None:
    """``torch.matmul``'s broadcasting: a 1-D operand is a row (first) or a column (second),
    the leading dimensions broadcast."""
    a, b = call.sizes(0), call.sizes(1)
    if not a or not b:
        return None
    a_mat = [1, a[0]] if len(a) == 1 else a
    b_mat = [b[0], 1] if len(b) == 1 else b
    if a_mat[-1] != b_mat[-2]:
        return None
    lead_a, lead_b = a_mat[:-2], b_mat[:-2]
    width = max(len(lead_a), len(lead_b))
    lead_a = [1] * (width - len(lead_a)) + lead_a
    lead_b = [1] * (width - len(lead_b)) + lead_b
    if any(x != y and 1 not in (x, y) for x, y in zip(lead_a, lead_b, strict=True)):
        return None
    batch = math.prod(max(x, y) for x, y in zip(lead_a, lead_b, strict=True))
    return _gemm(call, batch, a_mat[-2], b_mat[-1], a_mat[-1], [0, 1])


def linear(call: OpCall) -> Work | None:
    """``linear(x[..., K], weight[N, K], bias[N])``: M is the product of x's leading sizes."""
    x, w = call.sizes(0), call.sizes(1)
    if not x or w is None or len(w) != 2 or x[-1] != w[1]:
        return None
    return _gemm(call, 1, math.prod(x[:-1]), w[0], w[1], [0, 1, 2])


MODELS = {
    "aten::mm": mm, "aten::addmm": addmm, "aten::bmm": bmm, "aten::baddbmm": baddbmm,
    "aten::matmul": matmul, "aten::linear": linear, "aten::_addmm_activation": addmm,
}
