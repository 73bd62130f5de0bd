"""Operator models: the FLOPs and bytes of a PyTorch operator call from its recorded shapes
(``docs/op_efficiency.md`` lists every formula and its source).

:func:`work_of` answers for one call (:class:`OpCall`): a :class:`Work` (FLOPs, or None for a
bytes-only model; bytes; the formula's name), or None when no model knows the operator or its
recorded shapes do not fit the model.
"""

from __future__ import annotations

from collections.abc import Callable

from kernelscope.timeline.analysis.op_models import attention, conv, gemm, memory
from kernelscope.timeline.analysis.op_models.shapes import OpCall, Work

MODELS: dict[str, Callable[[OpCall], Work | None]] = {
    **memory.MODELS, **gemm.MODELS, **attention.MODELS, **conv.MODELS,
}
"""Every modelled operator by its name as the profiler records it (``aten::mm``)."""


FLOP_MODELS = frozenset({**gemm.MODELS, **attention.MODELS, **conv.MODELS})
"""The operators whose model counts FLOPs (the others count bytes only)."""


def has_model(name: str) -> bool:
    return name in MODELS


def work_of(call: OpCall) -> Work | None:
    """What ``call`` must do, or None (no model, or shapes the model cannot read)."""
    model = MODELS.get(call.name)
    return None if model is None else model(call)


REASONS: dict[str, Callable[[OpCall], str | None]] = {**attention.REASONS}
"""Operators whose arguments can say why a call has no model."""


def no_model_reason(call: OpCall) -> str | None:
    """Why ``call`` has no model, where its model can tell (variable-length attention: the
    sequence lengths are not in the trace); None otherwise."""
    reason = REASONS.get(call.name)
    return None if reason is None else reason(call)


__all__ = ["FLOP_MODELS", "MODELS", "OpCall", "Work", "has_model", "no_model_reason",
           "work_of"]
