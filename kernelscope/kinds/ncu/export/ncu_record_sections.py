"""The sections of a kernel's Markdown record (``ncu_markdown.record_body``): launch, speed of
light, occupancy, memory, compute, scheduler, source and diagnosis, each a list of lines."""

from __future__ import annotations

from pathlib import Path

from kernelscope.core.shares import fmt_pct
from kernelscope.core.units import NOT_AVAILABLE, fmt_number
from kernelscope.export.markdown import code, inline, table
from kernelscope.kinds.ncu.analysis.diagnosis import Diagnosis, Flag, derived
from kernelscope.kinds.ncu.analysis.roofline.collect import collect_command, lacks_roofline
from kernelscope.kinds.ncu.model import (
    KernelDetail,
    SourceHotspots,
)
from kernelscope.kinds.ncu.model.panes import (
    OCCUPANCY_LIMITS,
    SCHEDULER_METRICS,
    SHARED_TABLE_ROWS,
)
from kernelscope.kinds.ncu.model.rules import rules_by_speedup
from kernelscope.kinds.ncu.render.flag_cells import top_choice_text
from kernelscope.kinds.ncu.render.memory_text import access_note, access_rows, ratio_cell
from kernelscope.kinds.ncu.render.metric_text import fmt_counted, fmt_metric
from kernelscope.kinds.ncu.render.ncu_markup import plain_ncu_markup
from kernelscope.render.findings import evidence_text

TOP_LINES = 5


def _m(detail: KernelDetail, name: str, what: str = "") -> str:
    """The metric as people read it; ``what`` counts where NCU gives no unit (``fmt_counted``)."""
    return fmt_counted(detail.metric(name), what) if what else fmt_metric(detail.metric(name))


def launch_section(detail: KernelDetail) -> list[str]:
    tail = derived.tail_wave_fill(detail.number("launch__waves_per_multiprocessor"))
    return [
        f"- grid {code(detail.grid)}, block {code(detail.block)}, "
        f"{_m(detail, 'launch__thread_count', 'threads')}",
        f"- {_m(detail, 'launch__registers_per_thread', 'registers/thread')}, static "
        f"shared memory {_m(detail, 'launch__shared_mem_per_block_static')}, dynamic "
        f"{_m(detail, 'launch__shared_mem_per_block_dynamic')}",
        f"- {_m(detail, 'launch__sm_count', 'SMs')}, "
        f"{_m(detail, 'launch__waves_per_multiprocessor', 'waves/SM')}"
        + (f", tail wave fill {fmt_pct(tail)} % (derived)" if tail is not None else ""),
    ]


def sol_section(detail: KernelDetail) -> list[str]:
    return [
        f"- compute (SM) {_m(detail, 'sm__throughput.avg.pct_of_peak_sustained_elapsed')}, "
        f"memory {_m(detail, 'gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed')}",
        f"- L1/TEX {_m(detail, 'l1tex__throughput.avg.pct_of_peak_sustained_active')}, "
        f"L2 {_m(detail, 'lts__throughput.avg.pct_of_peak_sustained_elapsed')}, "
        f"DRAM {_m(detail, 'gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed')}",
        f"- duration {_m(detail, 'gpu__time_duration.sum')}, "
        f"elapsed {_m(detail, 'gpc__cycles_elapsed.max', 'cycles')}, SM frequency "
        f"{_m(detail, 'gpc__cycles_elapsed.avg.per_second')}",
    ]


def occupancy_section(detail: KernelDetail) -> list[str]:
    limits = derived.block_limits(detail.metrics, OCCUPANCY_LIMITS)
    binding = derived.limiting_resources(limits)
    parts = ", ".join(
        f"{label} {fmt_number(v)}" + (" (binding)" if label in binding else "")
        for label, v in limits.items()
    )
    return [
        f"- theoretical {_m(detail, 'sm__maximum_warps_per_active_cycle_pct')}, achieved "
        f"{_m(detail, 'sm__warps_active.avg.pct_of_peak_sustained_active')}",
        f"- block limits: {parts or NOT_AVAILABLE}",
    ]


def memory_section(detail: KernelDetail) -> list[str]:
    access = access_rows(detail.number)
    rows = [
        (r.label, fmt_number(r.requests), fmt_number(r.sectors), ratio_cell(r), r.ideal_text)
        for r in access
    ]
    shared = [
        (label, fmt_number(detail.number(wav)), fmt_number(detail.number(conf)))
        for label, _inst, wav, conf in SHARED_TABLE_ROWS
    ]
    return [
        f"- DRAM read {_m(detail, 'dram__bytes_read.sum')}, written "
        f"{_m(detail, 'dram__bytes_write.sum')}, "
        f"throughput {_m(detail, 'dram__bytes.sum.per_second')}",
        f"- L1/TEX hit {_m(detail, 'l1tex__t_sector_hit_rate.pct')}, L2 hit "
        f"{_m(detail, 'lts__t_sector_hit_rate.pct')}",
        "",
        table(("Access", "Requests", "Sectors", "Sectors/request (derived)", "Ideal"), rows,
              "lrrrr"),
        "",
        access_note(access),
        "",
        table(("Shared", "Wavefronts", "Bank conflicts"), shared, "lrr"),
    ]


def compute_section(detail: KernelDetail, diagnosis: Diagnosis) -> list[str]:
    lines = []
    if diagnosis.roofline is not None:
        for key, p in diagnosis.roofline.points.items():
            if p.flops_per_s > 0:
                lines.append(
                    f"- {key}: {p.flops_per_s / 1e9:,.1f} GFLOP/s, "
                    f"{fmt_pct(p.pct_of_peak)} % of peak, intensity "
                    f"{NOT_AVAILABLE if p.intensity is None else fmt_number(p.intensity)} FLOP/byte"
                )
    if lines:
        return lines
    if lacks_roofline(diagnosis.roofline):
        return [f"- roofline metrics not collected: {code(collect_command())} (or "
                f"{code('--set full')})"]
    return ["- no floating-point work recorded"]


def scheduler_section(detail: KernelDetail) -> list[str]:
    ranked = derived.ranked_stalls(detail.metrics, detail.stall_reasons)
    top = ", ".join(
        f"{derived.stall_reason(name)} {fmt_number(v)}" for name, v in derived.top_stalls(ranked)
    )
    return [
        f"- issue active {_m(detail, SCHEDULER_METRICS[0])}, per scheduler "
        f"{_m(detail, 'smsp__warps_eligible.avg.per_cycle_active', 'warps')} eligible, "
        f"{_m(detail, 'smsp__warps_active.avg.per_cycle_active', 'warps')} active",
        f"- top stalls (cycles per issued instruction): {top or NOT_AVAILABLE}",
    ]


def source_section(hot: SourceHotspots | None) -> list[str]:
    if hot is None:
        return [
            "- source counters not collected (ncu --section SourceCounters --import-source yes)"
        ]
    lines = []
    for s in hot.lines[:TOP_LINES]:
        pct = 100.0 * s.samples / hot.total_samples if hot.total_samples else 0.0
        lines.append(
            f"- {code(f'{Path(s.file).name}:{s.line}')} {pct:.1f} % of samples: "
            f"{code(s.text or '…')}"
        )
    for s in hot.sass[:TOP_LINES]:
        pct = 100.0 * s.samples / hot.total_samples if hot.total_samples else 0.0
        what = code(s.sass) if s.sass else f"at offset {code(f'{s.offset:#x}')}"
        where = f" ({code(f'{Path(s.file).name}:{s.line}')})" if s.file else ""
        lines.append(f"- SASS {what}{where} {pct:.1f} % of samples")
    if any(not s.sass for s in hot.sass[:TOP_LINES]):
        lines.append("- SASS text not shown: it needs NVIDIA's ncu-report package or an "
                     "nvdisasm on PATH")
    return lines


def diagnosis_section(diagnosis: Diagnosis, detail: KernelDetail) -> list[str]:
    b = diagnosis.bottleneck
    out = [f"- **{b.label}**: {inline(b.summary)}"]
    out.extend(f"  - {e.step}: {code(evidence_text(e))}{_holds(e.holds)}" for e in b.held)
    if b.not_held:
        out.append("  - checked, did not hold:")
        out.extend(f"    - {e.step}: {code(evidence_text(e))}" for e in b.not_held)
    if diagnosis.flags:
        out.append("")
        out.append(
            table(
                ("Flag", "Severity", "Level", "Evidence", "Remedy", "NCU speedup"),
                (
                    (
                        f.id,
                        f.severity,
                        f.level,
                        _flag_evidence(f),
                        f.advice,
                        NOT_AVAILABLE if f.speedup is None else f"{f.speedup:.1f} %",
                    )
                    for f in diagnosis.flags
                ),
                "llrllr",
            )
        )
    top = top_choice_text(diagnosis)
    if top is not None:
        out.append(f"- top flag: {inline(top)}")
    for g in diagnosis.guard_rails:
        out.append(f"- guard rail {code(g.id)}: {inline(g.text)}")
    for note in diagnosis.notes:
        out.append(f"- not checked: {inline(note)}")
    if detail.rules:
        out.append("")
        out.append("NCU rules:")
        out.append("")
        for r in rules_by_speedup(detail.rules):
            speed = (
                f" (est. {r.speedup_type} speedup {r.speedup_pct:.1f} %)" if r.speedup_pct else ""
            )
            title = f" {inline(r.title)}" if r.title else ""
            out.append(
                f"- {r.type} {code(r.rule)}{title}{speed}: "
                f"{inline(plain_ncu_markup(r.message, panes=False))}"
            )
    return out


def _flag_evidence(flag: Flag) -> str:
    """A flag's evidence for its table cell: what held, then what was checked and did not."""
    text = "; ".join(evidence_text(e) for e in flag.held)
    if flag.not_held:
        checked = "; ".join(evidence_text(e) for e in flag.not_held)
        text += f" (checked, did not hold: {checked})"
    return text


def _holds(holds: bool | None) -> str:
    return {True: " — holds", False: " — does not hold", None: ""}[holds]
