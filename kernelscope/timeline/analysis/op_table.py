"""The operator efficiency table of a trace from its operator calls and its kernels: each
kernel's time counted for its owner (``op_attribution``), owners grouped by name, input
shapes and dtype (``op_efficiency.OpRow``), and MFU per step."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from kernelscope.core.device_peaks import peaks_for
from kernelscope.timeline.analysis.op_attribution import OpRange, Owner, owners
from kernelscope.timeline.analysis.op_efficiency import (
    NO_MODEL,
    OpEfficiency,
    OpRow,
    dtype_in_kernel_names,
    step_mfu,
)
from kernelscope.timeline.analysis.op_models import FLOP_MODELS, has_model, no_model_reason

NO_OPERATOR = "(no operator)"
"""The row of the kernels no recorded operator call launched."""


@dataclass(frozen=True)
class Launch:
    """One kernel: the call that launched it (None: none), its time, name and device; where
    known, the thread and time of its launch (a link to a call that was not open on that
    thread then is dropped)."""

    op_id: int | None
    duration_ns: int
    name: str
    device: int
    thread: int | None = None
    at: int | None = None


@dataclass
class _Group:
    calls: int = 0
    flops: int | None = 0
    bytes: int | None = 0
    time_ns: int = 0
    kernels: int = 0
    starts: list[tuple[int, int]] = field(default_factory=list)
    kernel_ns: dict[str, int] = field(default_factory=dict)
    strides: bool = True
    """Whether every call recorded its inputs' strides."""

    def add_kernels(self, kernels: Sequence[Launch]) -> None:
        self.time_ns += sum(k.duration_ns for k in kernels)
        self.kernels += len(kernels)
        for kernel in kernels:
            self.kernel_ns[kernel.name] = self.kernel_ns.get(kernel.name, 0) + kernel.duration_ns


def instance_dtype(owner: Owner, kernel_names: Sequence[str],
                   launchers: Sequence[OpRange]) -> str | None:
    """The dtype of an owner's peak: its inputs'; but where those are FP32 (or unknown), the
    narrower dtype of a matrix product, attention or convolution under it that launched its
    kernels (autocast: ``linear`` of FP32 inputs runs a BF16 ``addmm``), or TF32 where its
    kernels' names say so; else what its kernels' names spell."""
    dtype = owner.op.call.peak_dtype()
    if dtype in (None, "fp32"):
        inner = [call.peak_dtype() for call in (r.call for r in launchers)
                 if call.name in FLOP_MODELS]
        narrower = next((d for d in inner if d not in (None, "fp32", "fp64")), None)
        if narrower is not None:
            return narrower
    named = dtype_in_kernel_names(kernel_names)
    if dtype == "fp32" and named == "tf32":
        return "tf32"
    return dtype if dtype is not None else named


def checked(launches: Sequence[Launch], ranges: Sequence[OpRange]) -> list[Launch]:
    """``launches`` with each link to a call that was not open on the launching thread at
    the launch dropped (a trace may name an unrelated call's id)."""
    by_id = {r.op_id: r for r in ranges}
    found = []
    for launch in launches:
        op = by_id.get(launch.op_id) if launch.op_id is not None else None
        if op is None or (launch.thread is not None and launch.at is not None and not (
                op.thread == launch.thread and op.start <= launch.at <= op.end)):
            launch = replace(launch, op_id=None)
        found.append(launch)
    return found


def with_list_dtypes(ranges: Sequence[OpRange], launches: Sequence[Launch]) -> list[OpRange]:
    """``ranges`` with each call that takes a tensor list (``_foreach_*``: the profiler records
    no element type for a ``TensorList``) given the dtype its own kernels' names spell
    (``multi_tensor_apply_kernel<…, BinaryOpScalarFunctor<float, …>>``), for its element
    size; the other calls as they are."""
    names: dict[int, list[str]] = {}
    for launch in launches:
        if launch.op_id is not None:
            names.setdefault(launch.op_id, []).append(launch.name)
    found = []
    for item in ranges:
        call = item.call
        if call.dtype is None and "TensorList" in call.types and item.op_id in names:
            dtype = dtype_in_kernel_names(names[item.op_id])
            if dtype is not None:
                item = replace(item, call=replace(call, dtype=dtype))
        found.append(item)
    return found


def _model_label(owner: Owner) -> str:
    if owner.work is not None:
        return owner.work.model
    reason = no_model_reason(owner.op.call)
    if reason is not None:
        return f"{NO_MODEL}: {reason}"
    if has_model(owner.op.call.name):
        return NO_MODEL + " (shapes not readable)"
    return NO_MODEL


def _groups(ranges: Sequence[OpRange], launches: Sequence[Launch]
            ) -> dict[tuple[str, str, str | None, str], _Group]:
    launching = [launch.op_id for launch in launches if launch.op_id is not None]
    owned = owners(ranges, launching)
    range_of = {r.op_id: r for r in ranges}
    per_owner: dict[int, list[Launch]] = {}
    orphans: list[Launch] = []
    for launch in launches:
        owner = owned.get(launch.op_id) if launch.op_id is not None else None
        if owner is None:
            orphans.append(launch)
        else:
            per_owner.setdefault(owner.op.op_id, []).append(launch)
    by_id = {owner.op.op_id: owner for owner in owned.values()}
    groups: dict[tuple[str, str, str | None, str], _Group] = {}
    if orphans:
        groups[(NO_OPERATOR, "", None, NO_MODEL)] = orphan = _Group(0, None, None)
        orphan.add_kernels(orphans)
    for op_id, kernels in per_owner.items():
        owner = by_id[op_id]
        call = owner.op.call
        launchers = [range_of[k.op_id] for k in kernels if k.op_id in range_of]
        dtype = instance_dtype(owner, [k.name for k in kernels], launchers)
        key = (call.name, json.dumps(list(call.dims)), dtype, _model_label(owner))
        group = groups.setdefault(key, _Group())
        group.calls += 1
        group.strides = group.strides and call.strides is not None
        group.add_kernels(kernels)
        work = owner.work
        group.flops = None if work is None or work.flops is None or group.flops is None \
            else group.flops + work.flops
        group.bytes = None if work is None or work.bytes is None or group.bytes is None \
            else group.bytes + work.bytes
        if work is not None and work.flops is not None:
            group.starts.append((owner.op.start, work.flops))
    return groups


def op_efficiency(ranges: Sequence[OpRange], launches: Sequence[Launch],
                  device_names: dict[int, str], steps: Sequence[tuple[int | None, int, int]],
                  shapes: str, model_flops: float | None = None) -> OpEfficiency:
    """The table and MFU (see the module docstring). ``device_names``: device id → the name
    the trace records; the peaks are those of the device that ran most kernel time."""
    time_by_device: dict[int, int] = {}
    for launch in launches:
        time_by_device[launch.device] = time_by_device.get(launch.device, 0) + launch.duration_ns
    device = max(time_by_device, key=time_by_device.__getitem__) if time_by_device else None
    name = device_names.get(device) if device is not None else None
    peaks = peaks_for(name)
    launches = checked(launches, ranges)
    ranges = with_list_dtypes(ranges, launches)
    groups = _groups(ranges, launches)
    rows = [OpRow(op, shapes_text, dtype, g.calls, g.flops, g.bytes, g.time_ns, g.kernels,
                  model, peaks, tuple(g.kernel_ns.items()), g.strides)
            for (op, shapes_text, dtype, model), g in groups.items()]
    rows.sort(key=lambda row: (-row.gpu_time_ns, row.op, row.input_shapes))
    starts = [(start, flops, key[2]) for key, g in groups.items() for start, flops in g.starts]
    if not steps and launches:
        first = min(r.start for r in ranges) if ranges else 0
        last = max(r.end for r in ranges) if ranges else 0
        steps = [(None, first, last)]
    return OpEfficiency(rows, step_mfu(starts, steps, peaks, model_flops), name, peaks, shapes)
