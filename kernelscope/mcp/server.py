"""``kernelscope mcp [--root DIR]...``: the MCP server over stdio, on the official SDK.

Each tool checks its paths against the roots (``roots.py``), then asks a worker process
(``isolation.py``) for the answer, passing the worker's progress on as MCP progress; a bad
path or report is a tool error with the sentence the CLI prints. The resources are the
Markdown case records; the prompts walk the seeds' method (``prompts.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.types import CallToolResult, TextContent

from kernelscope import __version__
from kernelscope.core.errors import ReportError
from kernelscope.mcp import prompts
from kernelscope.mcp.isolation import run_in_worker
from kernelscope.mcp.paging import decode_cursor, digest
from kernelscope.mcp.roots import Roots

INSTRUCTIONS = (
    "kernelscope reads Nsight Compute kernel reports (.ncu-rep), Nsight Systems timelines "
    "(.nsys-rep, .sqlite) and folders of per-rank traces, and says where the time goes and "
    "why a kernel is slow. Start with summary(path); follow the method: time share, launch, "
    "SOL, occupancy, memory, compute, stalls, source. Long lists come a page at a time: pass "
    "the answer's page.next_cursor back as cursor. Paths are relative to the first root."
)

Answer = dict[str, Any]
"""A tool's structured answer (its output schema: an object). A tool error is returned as
a ``CallToolResult`` instead, which the SDK passes on as it is (it refuses the union in a
tool's signature), so that its text is the sentence alone."""


class Tools:
    """The tools, each a method registered by name (the SDK reads their signatures)."""

    def __init__(self, roots: Roots) -> None:
        self.roots = roots

    def _path(self, text: str) -> str:
        return str(self.roots.resolve(text))

    async def _ask(self, tool: str, arguments: Callable[[], dict[str, Any]],
                   cursor: str | None, ctx: Context | None) -> Answer:
        """The worker's answer to ``tool`` with the ``arguments`` (made here, so that a path
        outside the roots is refused as any bad input is): a tool error holding the very
        sentence the CLI prints for bad input."""
        try:
            args = arguments()
            question = digest(tool, args)
            start = decode_cursor(cursor, question)
            request = {"tool": tool, "args": args, "start": start, "question": question}
            answer: dict[str, Any] = await run_in_worker(request, _progress_to(ctx))
        except ReportError as exc:
            failed = CallToolResult(content=[TextContent(type="text", text=str(exc))],
                                    is_error=True)
            return failed  # type: ignore[return-value]
        return answer

    async def summary(self, path: str, process: str | None = None, cursor: str | None = None,
                      ctx: Context | None = None) -> Answer:
        """A report's essentials, as `kernelscope summary` shows them: a kernel report's
        families ranked by time (shares, median launch's bottleneck and top flag), a
        timeline's overview (Nsight Systems or PyTorch profiler: GPU busy, gaps and their
        causes, findings, top kernels, NVTX ranges), or a folder of per-rank traces'
        straggler and ranks. process (a kernel report's: a process id or name, as the CLI's
        --process) keeps the families with a launch in it."""
        return await self._ask("summary", lambda: {"path": self._path(path),
                                                   "process": process or None}, cursor, ctx)

    async def kernel(self, path: str, kernel_id: int, panes: list[str] | None = None,
                     source: bool = False, ctx: Context | None = None) -> Answer:
        """One kernel of a kernel report: its diagnosis with the evidence chain, flags and
        remedies, NCU's rules, and the metrics of the requested panes (launch, sol,
        occupancy, memory, stalls, source, or all); source=true adds the hottest lines."""
        return await self._ask("kernel", lambda: {
            "path": self._path(path), "kernel_id": kernel_id, "panes": panes or [],
            "source": source}, None, ctx)

    async def timeline(self, path: str, section: str = "overview",
                       window_start_ns: int | None = None, window_end_ns: int | None = None,
                       cursor: str | None = None, ctx: Context | None = None
                       ) -> Answer:
        """A timeline (Nsight Systems or PyTorch profiler): section overview (busy %, the
        longest idle gaps with their causes, findings, NVTX ranges, top kernels, CUDA
        graphs), one list a page at a time (gaps, kernels, nvtx, findings, gpu_metrics), or
        steps (each process's step count, how they
        were found and the median step time). The window (ns, the report's clock, as the
        gaps' start_ns) keeps only the gaps inside it."""
        return await self._ask("timeline", lambda: {
            "path": self._path(path), "section": section,
            "window_start_ns": window_start_ns, "window_end_ns": window_end_ns}, cursor, ctx)

    async def diff(self, before: str, after: str, filter: str | None = None,
                   fail_if_slower_pct: float | None = None, pairs: list[str] | None = None,
                   cursor: str | None = None, ctx: Context | None = None) -> Answer:
        """Before and after (two kernel reports or two timelines): matched kernel pairs
        with speedups, label transitions, flags resolved and new; families; whether the
        GPUs differ; and with fail_if_slower_pct the CI gate's verdict. filter is a regex on
        kernel names; pairs pairs kernels by hand, each "BEFORE=AFTER" (a kernel ID or name
        on each side), as the CLI's --pair."""
        return await self._ask("diff", lambda: {
            "before": self._path(before), "after": self._path(after),
            "filter": filter or None, "fail_if_slower_pct": fail_if_slower_pct,
            "pairs": list(pairs or [])}, cursor, ctx)

    async def join(self, trace: str, kernel_reports: list[str], cursor: str | None = None,
                   ctx: Context | None = None) -> Answer:
        """A timeline joined with kernel reports of the same program: what to fix first,
        ranked by the time fixing it could save, with the ncu command for every kernel
        family nobody profiled."""
        return await self._ask("join", lambda: {
            "trace": self._path(trace),
            "kernel_reports": [self._path(p) for p in kernel_reports]}, cursor, ctx)

    async def ranks(self, paths: list[str], cursor: str | None = None,
                    ctx: Context | None = None) -> Answer:
        """The ranks of one run (a folder of per-rank Nsight Systems or PyTorch profiler
        traces, several traces, or one Nsight Systems trace of several rank processes): the
        straggler, what the others waited, how the clocks were aligned, slower families."""
        return await self._ask("ranks", lambda: {"paths": [self._path(p) for p in paths]},
                               cursor, ctx)

    async def metrics(self, path: str, kernel_id: int, pattern: str = "",
                      cursor: str | None = None, ctx: Context | None = None
                      ) -> Answer:
        """A kernel's raw metrics whose names match the regex pattern, with the units
        `ncu --page raw` prints."""
        return await self._ask("metrics", lambda: {
            "path": self._path(path), "kernel_id": kernel_id, "pattern": pattern}, cursor, ctx)

    async def operators(self, path: str, model_flops: float | None = None,
                        cursor: str | None = None, ctx: Context | None = None) -> Answer:
        """How close each PyTorch operator runs to the GPU's peak (a Kineto trace recorded
        with record_shapes=True, or an nsys trace of emit_nvtx(record_shapes=True)): per
        operator, shapes and dtype its FLOPs and bytes from the shapes, GPU time, achieved
        TFLOP/s and GB/s, % of the device's dense peak, bound; MFU per step (model_flops:
        the model's FLOPs per step instead of the operators')."""
        return await self._ask("operators", lambda: {
            "path": self._path(path), "model_flops": model_flops}, cursor, ctx)

    async def ncu_command(self, trace: str, family: int | str, ctx: Context | None = None
                          ) -> Answer:
        """The exact ncu command that profiles a representative launch of a timeline's
        kernel family (family: its index on the timeline, as a number, or a regex on its
        name); the trace is any timeline the join reads (Nsight Systems or PyTorch
        profiler)."""
        return await self._ask("ncu_command", lambda: {
            "trace": self._path(trace), "family": family}, None, ctx)

    async def critical_path(self, path: str, ctx: Context | None = None) -> Answer:
        """What every step of a timeline waits on: its critical path by kind (kernels,
        copies, CPU, API calls, launch overhead, synchronisation, waits), the longest parts,
        and per kernel family its time on the path and its slack (how much later it could
        end before its step does)."""
        return await self._ask("critical_path", lambda: {"path": self._path(path)}, None, ctx)

    async def whatif(self, trace: str, faster: list[str], ctx: Context | None = None
                     ) -> Answer:
        """Predict the steps if some work were faster: faster is a list of REGEX=FACTOR
        (kernels, copies, NVTX ranges and CPU operators whose name REGEX finds, their time
        divided by FACTOR; REGEX=FACTOR@RANK: only that rank's); the measured and predicted
        median step and both critical paths. trace may be a folder of per-rank traces of one
        run: its ranks are joined at their collectives, and each rank's wait is given."""
        return await self._ask("whatif", lambda: {
            "trace": self._path(trace), "faster": list(faster)}, None, ctx)


def _progress_to(ctx: Context | None) -> Any:
    async def report(done: float, total: float | None, message: str) -> None:
        if ctx is not None:
            await ctx.report_progress(done, total, message)

    return report


TOOL_NAMES = ("summary", "kernel", "timeline", "diff", "join", "ranks", "metrics",
              "operators", "ncu_command", "critical_path", "whatif")


def build_server(roots: Roots) -> MCPServer:
    """The server: the tools, the case records as resources, the method's prompts."""
    server: MCPServer = MCPServer("kernelscope", version=__version__,
                                  instructions=INSTRUCTIONS, log_level="WARNING")
    tools = Tools(roots)
    for name in TOOL_NAMES:
        server.add_tool(getattr(tools, name), name=name)

    async def report_record(path: str) -> str:
        """The Markdown record of a report (a kernel report's families and the case records
        of the largest), path relative to the first root."""
        return await _record({"path": _resource_path(roots, path)})

    async def kernel_record(kernel_id: str, path: str) -> str:
        """The Markdown case record of one kernel of a kernel report."""
        if not kernel_id.isdigit():
            raise ResourceError(f"The kernel ID {kernel_id!r} is not a whole number.")
        return await _record({"path": _resource_path(roots, path),
                              "kernel_id": int(kernel_id)})

    server.resource("kernelscope://report/{+path}", name="report_record",
                    mime_type="text/markdown")(report_record)
    server.resource("kernelscope://kernel/{kernel_id}/{+path}", name="kernel_record",
                    mime_type="text/markdown")(kernel_record)
    prompts.register(server)
    return server


def _resource_path(roots: Roots, text: str) -> str:
    try:
        return str(roots.resolve(text))
    except ReportError as exc:
        raise ResourceError(str(exc)) from None


async def _record(args: dict[str, Any]) -> str:
    tool = "kernel_record" if "kernel_id" in args else "report_record"
    request = {"tool": tool, "args": args, "start": 0, "question": digest(tool, args)}
    try:
        text: str = await run_in_worker(request, _progress_to(None))
    except ReportError as exc:
        raise ResourceError(str(exc)) from None
    return text
