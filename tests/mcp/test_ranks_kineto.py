"""The ``ranks`` and ``summary`` tools read a folder of per-rank PyTorch profiler traces as the
CLI does (issue 34: the tool refused one the CLI opens)."""

from __future__ import annotations

from tests.conftest import SAMPLES
from tests.mcp.conftest import exported, served


async def test_ranks_of_a_kineto_folder_are_the_exports() -> None:
    async with served() as client:
        got = await client.call_tool("ranks", {"paths": ["kineto/ranks"]})
        summary = await client.call_tool("summary", {"path": "kineto/ranks"})
    assert not got.is_error, got.content
    answer = got.structured_content
    doc = exported("ranks", SAMPLES / "kineto" / "ranks")
    assert answer["schema"] == doc["schema"] == "kernelscope/ranks/2"
    assert answer["straggler"] == doc["straggler"] and answer["straggler"]["rank"] == 2
    assert answer["ranks"] == doc["ranks"][: answer["page"]["count"]]
    assert answer["run"]["clock"] == doc["run"]["clock"]
    assert summary.structured_content["straggler"] == doc["straggler"]
