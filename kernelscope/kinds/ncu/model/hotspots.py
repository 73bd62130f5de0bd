"""A kernel's hottest source lines and SASS instructions (the Markdown record and the
diagnosis read them), from its per-PC stall samples and executed instructions."""

from __future__ import annotations

from collections import defaultdict

from kernelscope.kinds.ncu.model.file_format.result import Result
from kernelscope.kinds.ncu.model.model import SassLine, SourceHotspots, SourceLine
from kernelscope.kinds.ncu.model.source import EXECUTED, SAMPLES, Disassembler, per_pc


def read_source_hotspots(
    result: Result, texts: dict[str, list[str]], disassemble: Disassembler, top: int = 20
) -> SourceHotspots | None:
    """Per-PC stall samples and executed instructions summed by source line and ranked by
    SASS instruction; None when the result has no per-PC counters."""
    samples = {pc: int(v) for pc, v in per_pc(result, SAMPLES).items()}
    executed = {pc: int(v) for pc, v in per_pc(result, EXECUTED).items()}
    pcs = sorted(set(samples) | set(executed))
    if not pcs:
        return None
    found = disassemble(pcs)
    by_line: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0])
    for pc in pcs:
        ins = found.get(pc)
        if ins is not None and ins.file:
            acc = by_line[(ins.file, ins.line)]
            acc[0] += samples.get(pc, 0)
            acc[1] += executed.get(pc, 0)
    hottest = sorted(pcs, key=lambda pc: (-samples.get(pc, 0), -executed.get(pc, 0), pc))[:top]
    sass_top = []
    for pc in hottest:
        ins = found.get(pc)
        text, path, line = (ins.text, ins.file, ins.line) if ins else ("", "", 0)
        sass_top.append(SassLine(
            pc, text, path, line, samples.get(pc, 0), executed.get(pc, 0), pc - pcs[0]
        ))

    def text_of(path: str, line: int) -> str:
        lines = texts.get(path)
        return lines[line - 1].strip() if lines and 0 < line <= len(lines) else ""

    lines = sorted(
        (SourceLine(f, ln, text_of(f, ln), s, e) for (f, ln), (s, e) in by_line.items()),
        key=lambda x: (-x.samples, -x.inst_executed, x.file, x.line),
    )[:top]
    return SourceHotspots(
        total_samples=sum(samples.values()),
        total_inst_executed=sum(executed.values()),
        lines=tuple(lines),
        sass=tuple(sass_top),
        has_line_info=bool(by_line),
    )
