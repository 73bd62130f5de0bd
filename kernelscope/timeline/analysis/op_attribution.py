"""Which operator call owns each kernel: the operators' nesting on their thread, and the
outermost modelled call above the call that launched a kernel.

A profiler records every operator a call runs through (``aten::linear`` › ``aten::addmm``,
``aten::scaled_dot_product_attention`` › ``aten::_scaled_dot_product_flash_attention`` ›
``aten::_flash_attention_forward``), each as a range on its thread. A kernel is launched by
the innermost of them. Its work is counted once, for the **outermost call with a model that
reads its shapes** (its own kernels and those of the calls under it): so ``linear``'s product
is counted as ``linear``, not again as ``addmm``, and an operator without a model
(``AddmmBackward0``) leaves its modelled calls (``mm``) to count themselves. A kernel whose
calls have no model stays with the call that launched it, listed as "no model".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby

from kernelscope.timeline.analysis.op_models import OpCall, Work, has_model, work_of


@dataclass(frozen=True)
class OpRange:
    """One operator call on one thread: ``[start, end)`` in ns."""

    op_id: int
    start: int
    end: int
    thread: int
    call: OpCall


@dataclass(frozen=True)
class Owner:
    """The call that counts a launching call's kernels, and its work (None: no model)."""

    op: OpRange
    work: Work | None


def parents(ranges: Iterable[OpRange]) -> dict[int, int | None]:
    """Each call's enclosing call on its thread (None at the top)."""
    parent: dict[int, int | None] = {}
    ordered = sorted(ranges, key=lambda r: (r.thread, r.start, -r.end, r.op_id))
    for _, group in groupby(ordered, key=lambda r: r.thread):
        stack: list[OpRange] = []
        for item in group:
            while stack and stack[-1].end <= item.start:
                stack.pop()
            parent[item.op_id] = stack[-1].op_id if stack else None
            stack.append(item)
    return parent


def innermost(ranges: Sequence[OpRange], points: Sequence[tuple[int, int]]
              ) -> list[int | None]:
    """For each ``(thread, time)`` of ``points``, the innermost call open at that time on
    that thread (None when none is)."""
    by_thread: dict[int, list[OpRange]] = {}
    for item in sorted(ranges, key=lambda r: (r.start, -r.end, r.op_id)):
        by_thread.setdefault(item.thread, []).append(item)
    found: list[int | None] = [None] * len(points)
    order = sorted(range(len(points)), key=lambda i: (points[i][0], points[i][1]))
    for thread, group in groupby(order, key=lambda i: points[i][0]):
        calls = by_thread.get(thread, [])
        stack: list[OpRange] = []
        next_call = 0
        for index in group:
            time = points[index][1]
            while next_call < len(calls) and calls[next_call].start <= time:
                while stack and stack[-1].end <= calls[next_call].start:
                    stack.pop()
                stack.append(calls[next_call])
                next_call += 1
            while stack and stack[-1].end <= time:
                stack.pop()
            found[index] = stack[-1].op_id if stack else None
    return found


def owners(ranges: Sequence[OpRange], launching: Iterable[int],
           model: Callable[[OpCall], Work | None] = work_of) -> dict[int, Owner]:
    """The owner of each launching call id (see the module docstring). Works are computed
    once per distinct call (name, shapes, types, scalar arguments, strides)."""
    by_id = {item.op_id: item for item in ranges}
    parent = parents(ranges)
    memo: dict[str, Work | None] = {}

    def work(item: OpRange) -> Work | None:
        call = item.call
        if not has_model(call.name):
            return None
        key = repr((call.name, call.dims, call.types, call.concrete, call.dtype, call.strides))
        if key not in memo:
            memo[key] = model(call)
        return memo[key]

    found: dict[int, Owner] = {}
    for op_id in set(launching):
        if op_id not in by_id:
            continue
        chain: list[OpRange] = []
        current: int | None = op_id
        while current is not None and current in by_id:
            chain.append(by_id[current])
            current = parent.get(current)
        modelled = ((item, work(item)) for item in reversed(chain))
        outer = next(((item, w) for item, w in modelled if w is not None), None)
        found[op_id] = Owner(*outer) if outer is not None else Owner(by_id[op_id], None)
    return found
