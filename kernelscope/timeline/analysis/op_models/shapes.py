"""What an operator call records (shapes, element types, scalar arguments), read for the
operator models: element sizes, the dtype whose peak applies, tensor sizes.

A call's inputs are positional, as the profiler records them: ``dims`` one entry per argument
(a tensor's sizes, a list of sizes for a tensor list, ``[]`` for anything else), ``types`` the
argument's element type as PyTorch spells it (``c10::BFloat16``, ``float``, ``TensorList``,
``Scalar``, or ``""``), ``concrete`` the scalar arguments' values as text (``"True"``,
``"[1, 1]"``; ``""`` for tensors), ``strides`` each argument's strides where the profiler
records them (Kineto's ``Input Strides``; None for an NVTX range's name, which has none).
A tensor input is read as its distinct elements: the product of its sizes over the
dimensions whose stride is not 0 (a stride-0 dimension is a broadcast of one element:
``x.expand(…)``, the gradient of ``.sum()``); without strides, all its elements.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

ELEMENT_BYTES = {
    "double": 8, "float": 4, "c10::Half": 2, "c10::BFloat16": 2, "c10::Float8_e4m3fn": 1,
    "c10::Float8_e5m2": 1, "c10::Float8_e4m3fnuz": 1, "c10::Float8_e5m2fnuz": 1,
    "c10::Float8_e8m0fnu": 1, "signed char": 1, "unsigned char": 1, "bool": 1,
    "short int": 2, "int": 4, "long int": 8, "c10::complex<float>": 8,
    "c10::complex<double>": 16, "c10::complex<c10::Half>": 4, "c10::qint8": 1,
    "c10::quint8": 1, "c10::qint32": 4,
}
"""Bytes per element of each element type the profiler writes (``Input type``)."""

PEAK_DTYPE = {
    "double": "fp64", "float": "fp32", "c10::Half": "fp16", "c10::BFloat16": "bf16",
    "c10::Float8_e4m3fn": "fp8", "c10::Float8_e5m2": "fp8", "c10::Float8_e4m3fnuz": "fp8",
    "c10::Float8_e5m2fnuz": "fp8", "signed char": "int8", "c10::qint8": "int8",
}
"""The device-peak dtype (``core/device_peaks.py``) of an element type."""

SCALAR_TYPES = {
    0: "unsigned char", 1: "signed char", 2: "short int", 3: "int", 4: "long int",
    5: "c10::Half", 6: "float", 7: "double", 9: "c10::complex<float>",
    10: "c10::complex<double>", 11: "bool", 15: "c10::BFloat16", 23: "c10::Float8_e5m2",
    24: "c10::Float8_e4m3fn",
}
"""The element type of a ``dtype`` argument as recorded: PyTorch's ``c10::ScalarType``
number (``c10/core/ScalarType.h``), spelt as ``Input type`` spells it."""

DTYPE_BYTES = {"fp64": 8, "fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "int8": 1}


@dataclass(frozen=True)
class OpCall:
    """One operator call as recorded (see the module docstring)."""

    name: str
    dims: tuple[Any, ...]
    types: tuple[str, ...] = ()
    concrete: tuple[str, ...] = ()
    dtype: str | None = None
    """The peak dtype where the types are not recorded (an NVTX range names no types): read
    from the kernels' names by the caller."""
    strides: tuple[Any, ...] | None = None

    def type_of(self, index: int) -> str:
        return self.types[index] if index < len(self.types) else ""

    def arg(self, index: int) -> str:
        """The scalar argument at ``index`` as text, ``""`` when not recorded."""
        return self.concrete[index] if index < len(self.concrete) else ""

    def is_tensor(self, index: int) -> bool:
        """Whether argument ``index`` is one tensor with recorded sizes."""
        if index >= len(self.dims) or not _is_sizes(self.dims[index]):
            return False
        kind = self.type_of(index)
        if self.types:
            return kind in ELEMENT_BYTES
        return bool(self.dims[index])  # no types: a non-empty size list is a tensor

    def sizes(self, index: int) -> list[int] | None:
        """Argument ``index``'s sizes when it is a tensor."""
        return list(self.dims[index]) if self.is_tensor(index) else None

    def read_elements(self, index: int) -> int | None:
        """The distinct elements of tensor argument ``index`` (its sizes over the dimensions
        whose recorded stride is not 0; all of them where no strides are recorded)."""
        sizes = self.sizes(index)
        return None if sizes is None else distinct_elements(sizes, self._strides(index))

    def list_read_elements(self, index: int) -> list[int] | None:
        """The distinct elements of each tensor of list argument ``index``."""
        shapes = self.tensor_list(index)
        if shapes is None:
            return None
        strides = self._strides(index)
        if not isinstance(strides, list) or len(strides) != len(shapes):
            strides = [None] * len(shapes)
        return [distinct_elements(shape, each) for shape, each in zip(shapes, strides,
                                                                       strict=True)]

    def _strides(self, index: int) -> Any:
        return self.strides[index] if self.strides and index < len(self.strides) else None

    def element_bytes(self, index: int | None = None) -> int | None:
        """Bytes per element of argument ``index`` (of the first tensor when None); where the
        type does not tell (a ``TensorList``'s elements), that of ``dtype``."""
        if self.types:
            if index is None:
                index = next((i for i in range(len(self.dims)) if self.is_tensor(i)), -1)
            found = ELEMENT_BYTES.get(self.type_of(index)) if index >= 0 else None
            if found is not None:
                return found
        return DTYPE_BYTES.get(self.dtype or "")

    def peak_dtype(self) -> str | None:
        """The dtype whose peak rate applies: the first tensor's (``dtype`` without one)."""
        if not self.types:
            return self.dtype
        first = next((i for i in range(len(self.dims)) if self.is_tensor(i)), None)
        return self.dtype if first is None else PEAK_DTYPE.get(self.type_of(first))

    def tensor_list(self, index: int) -> list[list[int]] | None:
        """Argument ``index``'s sizes when it is a list of tensors (a ``TensorList`` of
        0-d tensors, ``[[], []]``, included)."""
        if index >= len(self.dims) or not isinstance(self.dims[index], list):
            return None
        items = self.dims[index]
        if items and all(_is_sizes(item) for item in items) and (
                self.type_of(index) == "TensorList"
                or any(isinstance(item, list) and item for item in items)):
            return [list(item) for item in items]
        return None


def _is_sizes(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value)


def numel(sizes: Sequence[int]) -> int:
    return math.prod(sizes)


def distinct_elements(sizes: Sequence[int], strides: Any) -> int:
    """The elements of a tensor of ``sizes`` that are distinct in memory: those of the
    dimensions whose stride is not 0; all of them where ``strides`` is not a list of as
    many integers."""
    if not _is_sizes(strides) or len(strides) != len(sizes):
        return numel(sizes)
    return numel([size for size, stride in zip(sizes, strides, strict=True) if stride])


def flag(text: str) -> bool | None:
    """A recorded boolean argument (``"True"``, ``"False"``, ``"1"``, ``"0"``), None when
    not recorded."""
    value = text.strip()
    if value in ("True", "true", "1"):
        return True
    if value in ("False", "false", "0"):
        return False
    return None


def int_list(text: str) -> list[int] | None:
    """A recorded int list (``"[1, 1]"``), None when not recorded or not one."""
    value = text.strip()
    if not (value.startswith("[") and value.endswith("]")):
        return None
    try:
        return [int(part) for part in value[1:-1].split(",") if part.strip()]
    except ValueError:
        return None


def scalar_type_bytes(text: str) -> int | None:
    """Bytes per element of a recorded ``dtype`` argument (``"15"``: bfloat16, 2), None when
    not recorded or not one :data:`SCALAR_TYPES` knows."""
    number = int_value(text)
    kind = None if number is None else SCALAR_TYPES.get(number)
    return None if kind is None else ELEMENT_BYTES[kind]


def int_value(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


@dataclass(frozen=True)
class Work:
    """What an operator call must do: FLOPs (None for a bytes-only model) and the bytes of
    its inputs and outputs, each moved once (None where the element size is not known)."""

    flops: int | None
    bytes: int | None
    model: str
    """The formula's name, as ``docs/op_efficiency.md`` lists it (``2·M·N·K``)."""


def tensor_bytes(call: OpCall, indices: Sequence[int], sizes: Sequence[Sequence[int]] = ()
                 ) -> int | None:
    """The bytes of the tensors at ``indices`` (inputs, each its distinct elements) plus
    tensors of ``sizes`` (outputs, of the first tensor's element type); None when an element
    size is unknown."""
    total = 0
    for index in indices:
        elements = call.read_elements(index)
        if elements is None:
            continue
        size = call.element_bytes(index)
        if size is None:
            return None
        total += elements * size
    if sizes:
        size = call.element_bytes()
        if size is None:
            return None
        total += sum(numel(shape) for shape in sizes) * size
    return total
