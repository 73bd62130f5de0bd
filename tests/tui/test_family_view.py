"""The kernel list's family view: families ranked by total time, expandable into launches."""

from __future__ import annotations

from textual.widgets import DataTable

from kernelscope.kinds.ncu.screens.family_table import FamilyTable
from kernelscope.kinds.ncu.screens.kernel_detail import KernelDetailScreen
from kernelscope.kinds.ncu.screens.kernel_list import KernelListScreen
from kernelscope.tui.app import create_app

from .helpers import SAMPLES, resized, screen_text, settle, widget_text

SMALL = SAMPLES / "ncu" / "small_family.ncu-rep.xz"


def family_cells(app, row: int) -> list[str]:
    table = app.screen.query_one(FamilyTable)
    return [str(c) for c in table.get_row_at(row)]


async def test_families_rank_the_launches_by_total_time_and_filter() -> None:
    app = create_app(SMALL)
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, KernelListScreen)
        await pilot.press("f")
        await settle(pilot)
        assert screen.view == "families" and screen.family_table.display
        assert not screen.query_one("#kernels", DataTable).display
        table = screen.query_one(FamilyTable)
        assert table.row_count == 2
        first = family_cells(app, 0)
        assert "vec_mul_64blocks" in first[0] and first[1] == "150"
        assert first[2] == "352.90 us" and first[3] == "96.36"
        assert first[5] == "64 × 256"
        assert first[6] == "launch-bound" and first[7] == "grid-too-small (warning)"
        assert "rng_uniform_fill" in family_cells(app, 1)[0]
        text = screen_text(app)
        assert "2 of 2 families (151 kernels)" in text
        # Sorting keys apply to launches only.
        assert not screen.check_action("sort_next", ())
        # The filter keeps the families with a matching launch.
        await pilot.press("slash", *"rng", "enter")
        await settle(pilot)
        assert table.row_count == 1
        assert "rng_uniform_fill" in family_cells(app, 0)[0]


async def test_enter_expands_a_family_and_opens_its_launch() -> None:
    app = create_app(SMALL)
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        table = app.screen.query_one(FamilyTable)
        assert table.row_count == 2 + 150
        assert family_cells(app, 0)[0].startswith("▾ ")
        assert family_cells(app, 1)[0].strip() == "ID 1"
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, KernelDetailScreen) and app.screen.kernel_id == 2
        # The Diagnosis pane weighs the launch by its family (step 0).
        text = widget_text(app.screen.query_one("#diagnosis-pane"))
        assert "family of 150 launches" in text
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.query_one(FamilyTable).cursor_row == 2
        await pilot.press("up", "up", "enter")
        await settle(pilot)
        assert app.screen.query_one(FamilyTable).row_count == 2
        await pilot.press("f")
        await settle(pilot)
        assert app.screen.view == "launches"


async def test_families_show_names_whole_where_the_list_does() -> None:
    """At 120 columns the family view spells names out as the list does (it cut them at 20
    characters); at 80 the top flag gives way and the bottleneck stays whole."""
    app = create_app(SAMPLES / "ncu" / "torch_ops.ncu-rep.xz")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        text = screen_text(app)
        assert "   nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT  " in text
        assert "   cunn_SoftMaxForwardReg<SoftMaxForwardEpilogue>  " in text
        assert "   vectorized_layer_norm<float, float, 0>  " in text
        await resized(pilot, 80, 24)
        await settle(pilot)
        lines = screen_text(app).splitlines()
        assert lines[1].split() == ["Family", "Launches", "Total", "Bottleneck", "Top", "flag"]
        assert lines[3] == ("   cunn_SoftMax…ilogue>         1  107.39 us  instruction-bound  "
                            "—              ")
