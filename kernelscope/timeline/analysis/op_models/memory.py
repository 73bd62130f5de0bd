"""Bytes-only models: operators whose time is bound by the bytes they move (elementwise,
reductions, normalisations, softmax). No FLOPs are counted; their rate is GB/s against the
device's memory bandwidth.

A tensor input is read as its distinct elements (``shapes.py``: a broadcast dimension, stride
0, is one element); what is written is every element.

- elementwise (``add``, ``mul``, ``gelu``, ``copy_``, ``_foreach_add_`` …): every tensor input
  read once and an output the size of the largest input written once (an in-place operator
  writes its first input: the same size); ``fill_`` and ``zero_`` only write their tensor,
  ``copy_`` reads its source and writes its first argument (at its type) without reading it,
  and ``_to_copy`` reads its input and writes it at the type its ``dtype`` argument names;
- fused optimizer steps (``_fused_adamw_`` …): every tensor of every list read once, the
  parameters and the state lists written once;
- reductions (``sum``, ``mean``, ``amax`` …): the input read once (the output is small);
- normalisations (``layer_norm``, ``rms_norm``, ``group_norm``, ``batch_norm`` …) and softmax
  forward: the input read once, the output (its size) written once, and the weights; their
  backward: the output's gradient and the input (or output) read, the input's gradient
  written (three times the input), and the weights.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from kernelscope.timeline.analysis.op_models.shapes import (
    OpCall,
    Work,
    numel,
    scalar_type_bytes,
)

_ELEMENTWISE = (
    "add", "sub", "mul", "div", "neg", "abs", "exp", "log", "sqrt", "rsqrt", "pow", "reciprocal",
    "sigmoid", "tanh", "relu", "gelu", "silu", "mish", "hardswish", "leaky_relu", "elu",
    "threshold", "clamp", "clamp_min", "clamp_max", "where", "fill", "zero", "copy", "lerp",
    "addcmul", "addcdiv", "maximum", "minimum", "eq", "ne", "lt", "gt", "le", "ge", "sin", "cos",
    "masked_fill", "gelu_backward", "silu_backward", "threshold_backward", "sigmoid_backward",
    "tanh_backward", "mul_scalar", "sign", "floor", "ceil", "round", "erf", "_to_copy",
)
_WRITE_ONLY = ("fill", "zero")
_OVERWRITE = ("copy",)
_REDUCTIONS = ("sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "prod",
               "norm", "linalg_vector_norm", "var", "std", "var_mean", "std_mean", "all", "any")
_NORMS = ("layer_norm", "native_layer_norm", "rms_norm", "_fused_rms_norm", "group_norm",
          "native_group_norm", "batch_norm", "native_batch_norm", "_batch_norm_impl_index",
          "cudnn_batch_norm", "_native_batch_norm_legit", "_native_batch_norm_legit_no_training",
          "softmax", "_softmax", "log_softmax", "_log_softmax", "_safe_softmax")
_NORM_BACKWARDS = ("native_layer_norm_backward", "_fused_rms_norm_backward",
                   "native_group_norm_backward", "native_batch_norm_backward",
                   "cudnn_batch_norm_backward", "_softmax_backward_data",
                   "_log_softmax_backward_data")


class Tensor(NamedTuple):
    """One tensor argument: its elements, the distinct ones read, and bytes per element."""

    elements: int
    read: int
    size: int


def _arguments(call: OpCall) -> list[list[Tensor]] | None:
    """The tensors of every tensor argument, in order: one for a tensor, one per element for
    a tensor list; None when an element size is unknown."""
    found: list[list[Tensor]] = []
    for index in range(len(call.dims)):
        if call.is_tensor(index):
            elements = numel(call.sizes(index) or [])
            counts = [(elements, call.read_elements(index) or elements)]
        else:
            shapes = call.tensor_list(index) or []
            reads = call.list_read_elements(index) or []
            counts = [(numel(shape), read) for shape, read in zip(shapes, reads, strict=True)]
        if not counts:
            continue
        size = call.element_bytes(index)
        if size is None:
            size = call.element_bytes()
        if size is None:
            return None
        found.append([Tensor(count, read, size) for count, read in counts])
    return found


def _inputs(call: OpCall) -> list[Tensor] | None:
    """Every tensor input, tensor lists flattened."""
    arguments = _arguments(call)
    return None if arguments is None else [t for tensors in arguments for t in tensors]


def _read(tensors: list[Tensor]) -> int:
    return sum(t.read * t.size for t in tensors)


def _written(tensors: list[Tensor]) -> int:
    return sum(t.elements * t.size for t in tensors)


def elementwise(call: OpCall) -> Work | None:
    """Every input read once and the output written once: the first argument's size for an
    in-place operator and a ``_foreach_`` one (its first list, each tensor), the largest
    input's otherwise; ``fill_``/``zero_`` only write, ``copy_`` does not read what it
    overwrites."""
    arguments = _arguments(call)
    if not arguments:
        return None
    base = call.name.removeprefix("aten::").removeprefix("_foreach_").rstrip("_")
    first, rest = arguments[0], [t for tensors in arguments[1:] for t in tensors]
    if base in _WRITE_ONLY:
        return Work(None, _written(first), "output")
    if base in _OVERWRITE:
        return Work(None, _read(rest) + _written(first), "inputs + output")
    if call.name.startswith("aten::_foreach_"):
        return Work(None, _read(first) + _read(rest) + _written(first),
                    "inputs + output, each tensor of the lists")
    if base == "_to_copy":
        return _cast(call, first[0])
    written = max(t.elements * t.size for t in first + rest)
    return Work(None, _read(first) + _read(rest) + written, "inputs + output")


_DTYPE_ARGUMENT = 1
"""``_to_copy(self, dtype, layout, device, pin_memory, non_blocking, memory_format)``."""


def _cast(call: OpCall, source: Tensor) -> Work:
    """``_to_copy``: its input read, and written at the type its ``dtype`` names (the
    input's where it names none)."""
    size = scalar_type_bytes(call.arg(_DTYPE_ARGUMENT)) or source.size
    return Work(None, source.read * source.size + source.elements * size,
                "input + output at its dtype")


_GRADIENTS = 1
"""A fused optimizer's second list: the gradients, read and never written."""


def fused_optimizer(call: OpCall) -> Work | None:
    """A fused optimizer step (``_fused_adamw_(params, grads, exp_avgs, exp_avg_sqs,
    max_exp_avg_sqs, state_steps, …)``, ``_fused_sgd_``, ``_fused_adagrad_``): every tensor of
    every list read once, and every list it updates written once: the parameters and each
    state list, not the gradients and not the 0-d step counters (the optimizer advances
    those beforehand, with its own ``_foreach_add_``)."""
    read = written = 0
    for index in range(len(call.dims)):
        shapes = call.tensor_list(index)
        if not shapes:
            continue
        size = call.element_bytes(index)
        if size is None:
            return None
        moved = sum(numel(shape) for shape in shapes) * size
        read += moved
        if index != _GRADIENTS and any(shapes):
            written += moved
    if not read:
        return None
    return Work(None, read + written, "lists read, updated lists written, each tensor")


def reduction(call: OpCall) -> Work | None:
    """The input read once (a ``_foreach_`` reduction: every tensor of its list)."""
    arguments = _arguments(call)
    if not arguments:
        return None
    if call.name.startswith("aten::_foreach_"):
        return Work(None, _read(arguments[0]), "input, each tensor of the list")
    return Work(None, _read(arguments[0][:1]), "input")


def norm(call: OpCall) -> Work | None:
    tensors = _inputs(call)
    if not tensors:
        return None
    main = tensors[0]
    return Work(None, _read([main]) + _written([main]) + _read(tensors[1:]),
                "2 × input + weights")


def norm_backward(call: OpCall) -> Work | None:
    tensors = _inputs(call)
    if not tensors:
        return None
    main = tensors[0]
    weights = _read([t for t in tensors[2:] if t.elements < main.elements])
    return Work(None, 3 * main.elements * main.size + weights, "3 × input + weights")


def _names(bases: tuple[str, ...], in_place: bool) -> list[str]:
    names = [f"aten::{base}" for base in bases]
    if in_place:
        names += [f"aten::{base}_" for base in bases]
        names += [f"aten::_foreach_{base}" for base in bases]
        names += [f"aten::_foreach_{base}_" for base in bases]
    return names


_FOREACH_REDUCTIONS = ("norm", "max")
_FUSED_OPTIMIZERS = ("_fused_adam_", "_fused_adamw_", "_fused_sgd_", "_fused_adagrad_")

MODELS: dict[str, Callable[[OpCall], Work | None]] = {
    **dict.fromkeys(_names(_ELEMENTWISE, True), elementwise),
    **dict.fromkeys(_names(_REDUCTIONS, False), reduction),
    **dict.fromkeys((f"aten::_foreach_{base}" for base in _FOREACH_REDUCTIONS), reduction),
    **dict.fromkeys((f"aten::{name}" for name in _FUSED_OPTIMIZERS), fused_optimizer),
    **dict.fromkeys(_names(_NORMS, False), norm),
    **dict.fromkeys(_names(_NORM_BACKWARDS, False), norm_backward),
}
