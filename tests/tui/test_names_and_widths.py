"""The kernel list of the PyTorch samples in 80×24 and 120×36 terminals: which columns show
(ID, name, duration, share, bottleneck and top flag always; the others as width allows), and
that every kernel's name is its short name, whole or fitted, and tells it from the others."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from kernelscope.kinds.ncu.analysis.diagnosis.verdict import top_flag
from kernelscope.kinds.ncu.screens.columns import NAME_KEY
from kernelscope.tui.app import create_app
from tests.sample_names import GEMM_TORCH_FULL, TORCH_OPS

from .helpers import SAMPLES, resized, screen_text, settle

REQUIRED = ("ID", "Kernel", "Duration", "Share %", "Bottleneck", "Top flag")
OPTIONAL = ("SM %", "Mem %", "DRAM %", "Occ %")
TORCH = SAMPLES / "ncu" / "torch_ops.ncu-rep.xz"
GEMMS = SAMPLES / "ncu" / "gemm_torch_full.ncu-rep.xz"
# Each kernel's short name by ID, read off the list in a wide terminal.
SHORT_NAMES = {TORCH: TORCH_OPS, GEMMS: GEMM_TORCH_FULL}


def _fits(shown: str, whole: str) -> bool:
    """``shown`` is ``whole``, or ``whole`` cut around one ``…`` (head and tail kept)."""
    if "…" not in shown:
        return shown == whole
    head, _, tail = shown.partition("…")
    return whole.startswith(head) and whole.endswith(tail) and len(shown) < len(whole)


@pytest.mark.parametrize("path", [TORCH, GEMMS], ids=["torch_ops", "gemm_torch_full"])
async def test_columns_and_names_that_show(path) -> None:
    """Opened at 80×24, then the terminal widened to 120×36 (the list refits)."""
    app = create_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        check_columns_and_names(app, path, (80, 24))
        await resized(pilot, 120, 36)
        await settle(pilot)
        check_columns_and_names(app, path, (120, 36))


def check_columns_and_names(app, path, size) -> None:  # type: ignore[no-untyped-def]
    screen = app.screen
    table = screen.query_one(DataTable)
    lines = screen_text(app).splitlines()
    head = next(line for line in lines if " Kernel " in line and "Duration" in line)
    for title in REQUIRED:
        assert title in head, f"{title} is not on screen at {size}"
    # Nothing needs a sideways scroll: the columns shown fit the terminal.
    assert table.virtual_size.width <= table.size.width
    names = []
    for row in range(table.row_count):
        summary = screen.rows.listed[row]
        cells = dict(zip([str(c.value) for c in table.columns], table.get_row_at(row),
                         strict=True))
        name = str(cells[NAME_KEY]).strip()
        line = next(ln for ln in lines if ln.split()[:1] == [str(summary.id)])
        assert name in line
        assert _fits(name, SHORT_NAMES[path][summary.id]), (name, summary.id)
        diagnosis = app.session.diagnosis(summary)
        label = diagnosis.label
        assert label in line or label.removesuffix("-bound") in line
        flag = top_flag(diagnosis)
        if flag is not None:
            assert flag.id[:6] in line
        names.append(name)
    assert len(set(names)) == len(names) == len(SHORT_NAMES[path]), names
    if size == (80, 24):
        assert not [t for t in OPTIONAL if t in head], head
    elif path == TORCH:
        # At 120 every PyTorch kernel's short name shows whole …
        assert all("…" not in n for n in names)
        assert "vectorized_elementwise<CUDAFunctor_add>" in names
        assert "vectorized_elementwise<Gelu>" in names
    else:
        # … and where the names leave room, the other columns join by priority.
        assert "Occ %" in head


async def test_the_whole_name_of_the_highlighted_kernel_shows_below() -> None:
    app = create_app(TORCH)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("g", "5", "enter")
        await settle(pilot)
        summary = app.screen.state.summary(5)
        demangled = str(summary.row["demangled"])
        text = " ".join(screen_text(app).split())
        assert " ".join(demangled.split()) in text
