"""The diff kind's renderers and summary: the diff built from both inputs, in each format, and
``--fail-if-slower``'s verdict beside the text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernelscope.core.durations import fmt_duration
from kernelscope.export.writer import ExportOptions, Rendered
from kernelscope.kinds.diff.analysis.gate import GateResult, check_slower
from kernelscope.kinds.diff.analysis.kernels import KernelDiff
from kernelscope.kinds.diff.analysis.summed import TOTAL
from kernelscope.kinds.diff.render.diff import (
    FAMILY_HEADERS,
    PAIR_HEADERS,
    family_row,
    kernel_names,
    pair_row,
    pct_pair,
    summed_text,
)
from kernelscope.kinds.ncu.render.changes import fmt_change

if TYPE_CHECKING:
    from rich.console import Console

    from kernelscope.kinds.diff.analysis.inputs import DiffInputs
    from kernelscope.kinds.diff.analysis.timelines import TimelineDiff


def gate_sentence(gate: GateResult) -> str:
    """One sentence: by how much the summed time grew, and which kernels did."""
    worst = "; ".join(
        f"{r.name} {fmt_duration(r.before_ns)} → {fmt_duration(r.after_ns)}"
        + (f" ({fmt_change(r.change_pct)})" if r.change_pct is not None else "")
        for r in gate.regressed[:10]
    )
    more = f" and {len(gate.regressed) - 10} more" if len(gate.regressed) > 10 else ""
    summed = gate.summed
    what = ("The summed kernel time" if summed.basis == TOTAL else
            f"The kernel time per instance ({summed.before_count:,} → {summed.after_count:,} "
            "instances)")
    before, after = summed.compared_ns()
    return (
        f"{what} regressed by {fmt_change(summed.change_pct)} "
        f"({fmt_duration(before)} → {fmt_duration(after)}), more "
        f"than the {gate.limit_pct:g} % allowed; slower: {worst or 'no single kernel'}{more}."
    )


UNPAIRED_GATE = ("--fail-if-slower gives no verdict: nothing of the two inputs could be paired "
                 "(no kernel of one matches one of the other), so their times are not "
                 "compared; check that both are of the same program, or pair kernels with "
                 "--pair BEFORE=AFTER.")
"""What the gate says (exit 2, as for bad input) when nothing could be paired."""


def _gated(inputs: DiffInputs, options: ExportOptions) -> tuple[KernelDiff | TimelineDiff,
                                                                 str | None, int]:
    """The diff of the two opened inputs (only the kernels ``pattern`` selects, ``pairs``
    paired by hand), why the run fails when ``fail_if_slower`` is exceeded, and its exit
    status."""
    diff = inputs.diff(options.pairs, options.pattern)
    failure, code = None, 1
    if options.fail_if_slower is not None:
        gate = check_slower(diff, options.fail_if_slower)
        if gate.unpaired:
            failure, code = UNPAIRED_GATE, 2
        elif gate.failed:
            failure = gate_sentence(gate)
    return diff, failure, code


def render_diff_json(inputs: DiffInputs, options: ExportOptions) -> Rendered:
    """``--format json``, in pieces: encoded now, while the reports are open (a pair's entry
    may read its kernels), a pair at a time: the text (21 MB for 8,676 pairs) is held, never
    every pair's dict."""
    from kernelscope.kinds.diff.export.diff_json import diff_json_pieces

    diff, failure, code = _gated(inputs, options)
    return Rendered("", failure, pieces=iter(list(diff_json_pieces(diff))), failure_code=code)


def render_diff_md(inputs: DiffInputs, options: ExportOptions) -> Rendered:
    from kernelscope.kinds.diff.export.diff_markdown import render_diff_markdown

    diff, failure, code = _gated(inputs, options)
    return Rendered(render_diff_markdown(diff), failure, failure_code=code)


def render_diff_csv(inputs: DiffInputs, options: ExportOptions) -> Rendered:
    from kernelscope.kinds.diff.export.diff_csv import render_diff_csv as diff_csv

    diff, failure, code = _gated(inputs, options)
    return Rendered(diff_csv(diff), failure, failure_code=code)


def print_diff_summary(diff: KernelDiff | TimelineDiff, console: Console) -> None:
    """The diff's essentials as tables."""
    from rich.markup import escape  # rich only where text is printed: not for the exports
    from rich.table import Table

    from kernelscope.export.summary import table_box

    before, after = diff.paths
    console.print(
        f"[bold]{escape(before.name)} → {escape(after.name)}[/]: summed "
        f"kernel time {escape(summed_text(diff.summed, diff.devices))}"
    )
    if diff.devices.sentence:
        console.print(f"[bold]{escape(diff.devices.sentence)}[/]")
    if isinstance(diff, KernelDiff):
        t = Table(*PAIR_HEADERS, title="Matched kernels", box=table_box(console), show_edge=False,
                  pad_edge=False)
        for pair in diff.pairs:
            t.add_row(*(escape(c) for c in pair_row(diff, pair, 28)))
        console.print(t)
        for side, kernels in (("before", diff.unmatched_before), ("after", diff.unmatched_after)):
            if kernels:
                names = ", ".join(f"{k.id} {k.summary.identity.function}" for k in kernels)
                console.print(f"Only {side}: {escape(names)}")
        return
    console.print(f"GPU busy {pct_pair(diff.busy.before.pct, diff.busy.after.pct)}")
    t = Table(*FAMILY_HEADERS, title="Kernel families", box=table_box(console), show_edge=False,
              pad_edge=False)
    names = kernel_names(diff.families)
    for family in diff.families[:15]:
        t.add_row(*(escape(c) for c in family_row(family, 40, names)))
    console.print(t)
