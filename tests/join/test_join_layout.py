"""The join's ranking fits the terminal and tells every kernel apart (issue 23 §3, §4):
at 80×24 the saving, the headroom and the whole bottleneck stay on screen; two families of
one kernel name read apart by their launch shape; the Markdown never cuts a name."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from kernelscope.kinds.join.analysis import JoinReport
from kernelscope.kinds.join.export.join_export import join_markdown
from kernelscope.kinds.join.screens.join_screen import JoinScreen
from kernelscope.tui.app import create_app
from tests.join.conftest import KERNELS_XZ, TRACE_XZ
from tests.join.test_join_tui import until
from tests.timeline_tui.helpers import screen_text
from tests.tui.helpers import settle


async def ranking_screen(size: tuple[int, int]) -> tuple[str, list[str]]:
    app = create_app([TRACE_XZ, KERNELS_XZ])
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, JoinScreen)
                    and bool(app.screen.query("#join-ranking")))
        await settle(pilot)
        table = app.screen.query_one("#join-ranking", DataTable)
        names = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
        return screen_text(app), names


@pytest.mark.asyncio
async def test_80_columns_keep_saving_headroom_and_bottleneck() -> None:
    text, _ = await ranking_screen((80, 24))
    header = text.splitlines()[1]
    assert header.split() == ["#", "What", "Total", "Headroom", "Could", "save",
                              "Bottleneck", "/", "cause"]
    # the GEMM reaching its headroom saves no step time: the steps wait on the host
    assert "   6  nvjet_sm90_t…pA_NNT  10.55 ms    13.9 %        0 ns  compute-bound" in text
    assert "instruction-bound" in text


@pytest.mark.asyncio
async def test_120_columns_name_every_kernel_apart() -> None:
    text, names = await ranking_screen((120, 36))
    assert "compute-bound  " in text and "latency-bound  " in text
    kernels = [n for n in names if not n[0].isupper()]
    assert len(set(kernels)) == len(kernels)
    assert "vectorized_elementwise<CUDAFunctorOnSelf_add>" in names
    assert "vectorized_elementwise<FillFunctor<BFloat16>>" in names
    assert "vectorized_elementwise<FillFunctor<float>>" in names
    assert "reduce<ReduceOp<MeanOps>>" in names
    assert any(n.endswith("[16384 × 128]") for n in names)
    assert any(n.endswith("[4096 × 128]") for n in names)


def test_markdown_spells_names_out(join: JoinReport) -> None:
    text = join_markdown(join)
    # cut to "reduce<ReduceOp<func_wrapper_t…loat, float)>>>" in the screen at 120 columns
    assert "| ?7 | reduce<ReduceOp<func_wrapper_t<sum_functor(float, float)>>> |" in text
    assert ("### ?7. reduce\\<ReduceOp\\<func\\_wrapper\\_t\\<sum\\_functor(float, "
            "float)\\>\\>\\>") in text
    assert "vectorized_elementwise<8, AUnaryFunctor<MulFunctor<float>>> [4096 × 128]" in text
    rows = [line for line in text.splitlines() if line.startswith("| ")]  # 2 tables, 22 rows
    assert len(rows) == 26 and not [row for row in rows if "…" in row]
