"""The server's bounds: paths outside its roots refused, a damaged report answered with the
CLI's sentence, long answers paged, a long call cancelled with its worker killed (over stdio,
the server a process of its own); and the case records and prompts it serves."""

from __future__ import annotations

import contextlib
import lzma
import os
import re
import signal
from pathlib import Path

import anyio
import pytest

from kernelscope.mcp.answers_ncu import kernel_answers
from kernelscope.mcp.paging import decode_cursor, digest, page
from tests.conftest import SAMPLES
from tests.mcp.conftest import ANSWER_BYTES, cli, exported, served, served_over_stdio, size
from tests.processes import ended_within

GEMM = SAMPLES / "ncu" / "gemm_naive.ncu-rep.xz"


def text_of(result: object) -> str:
    return result.content[0].text  # type: ignore[attr-defined]


async def test_paths_outside_the_roots_are_refused(tmp_path: Path) -> None:
    (tmp_path / "link.ncu-rep.xz").symlink_to(GEMM)  # a link that leaves the root
    async with served(tmp_path) as client:
        absolute = await client.call_tool("summary", {"path": str(GEMM)})
        linked = await client.call_tool("summary", {"path": "link.ncu-rep.xz"})
        climbing = await client.call_tool("kernel", {"path": "../x.ncu-rep", "kernel_id": 0})
    assert absolute.is_error and linked.is_error and climbing.is_error
    assert text_of(absolute) == (
        f"{GEMM} is outside the folders this server reads ({tmp_path.resolve()}); start it "
        "with --root for that folder.")
    assert text_of(linked).startswith("link.ncu-rep.xz is outside the folders")
    assert text_of(climbing).startswith("../x.ncu-rep is outside the folders")


async def test_a_damaged_report_is_the_clis_sentence(tmp_path: Path) -> None:
    whole = lzma.decompress(GEMM.read_bytes())
    (tmp_path / "cut.ncu-rep").write_bytes(whole[:20_000])
    async with served(tmp_path) as client:
        cut = await client.call_tool("summary", {"path": "cut.ncu-rep"})
        gone = await client.call_tool("kernel", {"path": "gone.ncu-rep", "kernel_id": 0})
    assert cut.is_error and gone.is_error
    expected = (f"{tmp_path.resolve()}/cut.ncu-rep is truncated: it ends inside a source "
                "message that starts at byte 226, so part of the report is missing.")
    assert text_of(cut) == expected
    assert cli("summary", tmp_path.resolve() / "cut.ncu-rep").stderr == (
        f"kernelscope: {expected}\n")
    assert text_of(gone) == f"{tmp_path.resolve()}/gone.ncu-rep: no such file."
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut.ncu-rep"]  # nothing written


async def test_long_answers_come_in_pages_that_join_up() -> None:
    request = {"path": "ncu/gemm_naive.ncu-rep.xz", "kernel_id": 0, "pattern": "^lts__"}
    pages = []
    async with served() as client:
        cursor = None
        while True:
            got = await client.call_tool("metrics", {**request, "cursor": cursor})
            assert not got.is_error and size(got.structured_content) < ANSWER_BYTES
            pages.append(got.structured_content)
            cursor = got.structured_content["page"]["next_cursor"]
            if cursor is None:
                break
        foreign = await client.call_tool("metrics", {**request, "pattern": "dram",
                                                     "cursor": pages[0]["page"]["next_cursor"]})
    full = exported(GEMM, "--all-metrics")["kernels"][0]["metrics"]
    assert len(pages) > 2
    assert [m["name"] for p in pages for m in p["metrics"]] == [
        name for name in full if name.startswith("lts__")]
    assert foreign.is_error and text_of(foreign) == (
        "The cursor belongs to another question (another tool, report or argument); call "
        "without it, or with the cursor that answer gave.")


def test_every_metric_of_a_kernel_is_in_the_pages() -> None:
    """The metrics tool's rows of all the kernel's metrics (2,230), paged as the tool pages
    them (a cursor to the next page each time, 28 pages), join up into the export's list;
    the server passes each cursor on unchanged (above)."""
    path = GEMM.resolve()
    rows = kernel_answers(path).metrics(path, 0, re.compile(""), lambda *_: None)
    question = digest("metrics", {"path": str(path), "kernel_id": 0, "pattern": ""})
    names, cursor, pages = [], None, 0
    while True:
        chosen, paging = page(rows, decode_cursor(cursor, question), question)
        assert size(chosen) < ANSWER_BYTES
        names += [m["name"] for m in chosen]
        pages += 1
        cursor = paging["next_cursor"]
        if cursor is None:
            break
    assert pages > 20
    assert names == list(exported(GEMM, "--all-metrics")["kernels"][0]["metrics"])


def workers_of_our_servers() -> list[int]:
    """The worker processes of the servers this test process started (their children)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            grandparent = int(Path(f"/proc/{parent}/stat").read_text().rsplit(")", 1)[1]
                              .split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if b"kernelscope.mcp.worker" in command and grandparent == os.getpid():
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="needs Linux's pidfd_open")
async def test_a_cancelled_call_kills_its_worker() -> None:
    async with served_over_stdio() as client:
        started = anyio.Event()

        async def progress(done: float, total: float | None, message: str | None) -> None:
            started.set()

        async with anyio.create_task_group() as group:
            group.start_soon(lambda: client.call_tool(
                "summary", {"path": "ncu/many_launches.ncu-rep.xz"},
                progress_callback=progress))
            with anyio.fail_after(120):
                await started.wait()
            workers = workers_of_our_servers()
            assert len(workers) == 1
            # Stopped, the worker cannot finish on its own: only the server's kill ends it.
            os.kill(workers[0], signal.SIGSTOP)
            group.cancel_scope.cancel()
        try:
            assert ended_within(workers[0], 60)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(workers[0], signal.SIGKILL)  # (only if the server did not)
        after = await client.call_tool("metrics", {
            "path": "ncu/gemm_naive.ncu-rep.xz", "kernel_id": 0,
            "pattern": "^gpu__time_duration.sum$"})
    assert not after.is_error and after.structured_content["metrics"][0]["name"] == (
        "gpu__time_duration.sum")


async def test_case_records_and_prompts() -> None:
    async with served() as client:
        report = await client.read_resource("kernelscope://report/ncu/gemm_naive.ncu-rep.xz")
        kernel = await client.read_resource("kernelscope://kernel/0/ncu/gemm_naive.ncu-rep.xz")
        prompt = await client.get_prompt("diagnose", {"path": "ncu/zoo.ncu-rep.xz"})
        compare = await client.get_prompt("compare", {"before": "a", "after": "b"})
    done = cli("export", GEMM, "-f", "md", "--top", "10")
    assert report.contents[0].text == done.stdout
    assert report.contents[0].mime_type == "text/markdown"
    assert kernel.contents[0].text.startswith(
        "# Kernel report: gemm\\_naive.ncu-rep.xz, kernel 0\n")
    asked = prompt.messages[0].content.text
    assert asked.startswith("Diagnose the report ncu/zoo.ncu-rep.xz with the kernelscope tools")
    order = ["1. Time share", "2. Launch", "3. SOL", "4. Occupancy", "5. Memory", "6. Compute",
             "7. Stalls", "8. Source"]
    assert [asked.index(step) for step in order] == sorted(asked.index(s) for s in order)
    assert "diff(before, after)" in compare.messages[0].content.text


async def test_every_answer_on_the_thousand_launches_stays_under_20_kB() -> None:
    many, trace = "ncu/many_launches.ncu-rep.xz", "nsys/many_launches.sqlite.xz"
    asked = [
        ("summary", {"path": many}),
        ("kernel", {"path": many, "kernel_id": 999, "panes": ["all"], "source": True}),
        ("metrics", {"path": many, "kernel_id": 0}),
        ("diff", {"before": many, "after": many}),
        ("timeline", {"path": trace}),
        ("timeline", {"path": trace, "section": "kernels"}),
        ("ncu_command", {"trace": trace, "family": "ml_"}),
    ]
    async with served() as client:
        answers = [await client.call_tool(tool, args) for tool, args in asked]
    for (tool, _), got in zip(asked, answers, strict=True):
        assert not got.is_error, (tool, got.content)
        assert size(got.structured_content) < ANSWER_BYTES, tool
    pairs = answers[3].structured_content["page"]
    assert pairs["total"] == 1000 and pairs["count"] < 1000 and pairs["next_cursor"]
    assert len(answers[6].structured_content["families"]) == 4
