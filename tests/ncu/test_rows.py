"""The kernel list's row (``make_row``), whose grid and block columns are worked out once for
each pair of shape tuples, is the row worked out from the identity's own properties."""

from __future__ import annotations

from typing import Any

import pytest

from kernelscope.core.kernel_identity import KernelIdentity
from kernelscope.kinds.ncu.model.metrics import finite
from kernelscope.kinds.ncu.model.panes import KEY_METRICS
from kernelscope.kinds.ncu.model.report import NcuReport
from kernelscope.kinds.ncu.model.summary_reader import make_row
from tests.conftest import NCU_SAMPLES


def _plain_row(identity: KernelIdentity, metrics: Any) -> dict[str, Any]:
    row = {"id": identity.id, "name": identity.function, "demangled": identity.demangled,
           "grid": identity.grid_text, "block": identity.block_text,
           "grid_size": identity.grid_size, "block_size": identity.block_size}
    for col, name in KEY_METRICS:
        row[col] = finite(metrics[name].value) if name in metrics else None
    for col, name in (("context", "launch__context_id"), ("stream", "launch__stream_id")):
        number = finite(metrics[name].value) if name in metrics else None
        row[col] = int(number) if number is not None else None
    row.update(range_idx=identity.range_idx, action_idx=identity.action_idx,
               pid=identity.pid, process=identity.process)
    return row


@pytest.mark.parametrize("name", ["zoo", "many_launches", "multi_process"])
def test_rows_are_those_of_the_identitys_properties(name: str) -> None:
    with NcuReport(NCU_SAMPLES / f"{name}.ncu-rep.xz") as report:
        for kernel_id in range(min(report.kernel_count, 40)):
            summary = report.summary(kernel_id)
            expected = _plain_row(summary.identity, summary.metrics)
            assert list(summary.row.items()) == list(expected.items())
            assert make_row(summary.identity, summary.metrics) == expected


def test_a_row_of_other_tuples_of_the_same_numbers() -> None:
    for grid in [(64, 1, 1), (64, 2, 1), (1, 1, 1), (64, 2, 1)]:
        identity = KernelIdentity(id=1, function="f", demangled="f", grid=tuple(grid),
                                  block=(32, 4, 1))
        assert make_row(identity, {}) == _plain_row(identity, {})


@pytest.mark.parametrize("name", ["zoo", "many_launches", "multi_process"])
def test_identity_and_launch_key_are_those_of_the_plain_identity(name: str) -> None:
    """``identity_of`` writes the identity's fields at once: the identity ``KernelIdentity``'s
    ``__init__`` makes (fields, their order, frozen); the families' launch key reads its grid
    and block as ``KernelIdentity.shape`` prints them."""
    import dataclasses

    from kernelscope.kinds.ncu.analysis.families import launch_key

    with NcuReport(NCU_SAMPLES / f"{name}.ncu-rep.xz") as report:
        for kernel_id in range(min(report.kernel_count, 40)):
            summary = report.summary(kernel_id)
            identity = summary.identity
            plain = KernelIdentity(**{f.name: getattr(identity, f.name)
                                      for f in dataclasses.fields(KernelIdentity)})
            assert identity == plain and list(vars(identity).items()) == list(vars(plain).items())
            assert launch_key(summary)[3:5] == plain.shape
            with pytest.raises(dataclasses.FrozenInstanceError):
                identity.id = 1  # type: ignore[misc]
    odd = KernelIdentity(7, "f", "f", grid=(3, 1, 2), block=(64, 1, 1))
    summary = dataclasses.replace(summary, identity=odd)
    assert launch_key(summary)[3:5] == ("3×1×2", "64")


@pytest.mark.parametrize("name", ["zoo", "multi_process"])
def test_a_details_identity_is_the_plain_identity_of_its_fields(name: str) -> None:
    """``KernelDetail.identity`` writes its fields at once: the identity ``KernelIdentity``'s
    ``__init__`` makes of the detail's fields (their order, frozen), the list summary's."""
    import dataclasses

    with NcuReport(NCU_SAMPLES / f"{name}.ncu-rep.xz") as report:
        for kernel_id in range(min(report.kernel_count, 20)):
            detail = report.detail(kernel_id)
            identity = detail.identity
            plain = KernelIdentity(
                id=detail.id, function=detail.name, demangled=detail.demangled,
                mangled=detail.mangled, grid=detail.grid, block=detail.block,
                range_idx=detail.range_idx, action_idx=detail.action_idx, pid=detail.pid,
                process=detail.process)
            assert identity == plain and list(vars(identity).items()) == list(vars(plain).items())
            assert identity == report.summary(kernel_id).identity
            with pytest.raises(dataclasses.FrozenInstanceError):
                identity.id = 1  # type: ignore[misc]
