"""The kernel list's family view: launches grouped into kernel families, ranked by total
time, a family expanding into its launches (a part of ``KernelListScreen``, kept apart so
each module stays readable)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from kernelscope.ui.widgets.sized_table import TableColumn

if TYPE_CHECKING:
    from kernelscope.kinds.ncu.analysis.families import ReportFamilies
    from kernelscope.kinds.ncu.screens.family_table import FamilyKey, FamilyTable, Row

# The family table's module is imported when the family view is first used: the list's
# first rows come without it.


class FamilyListing:
    """The family view of the kernel list (mixed into ``KernelListScreen``, which gives it
    ``state``, ``rows``, ``table``, ``open_kernel`` and ``_update_status``; it mounts its own
    table when the view first shows)."""

    view = "launches"
    """What the list shows: ``launches`` (one row per kernel) or ``families``."""
    expanded: set[FamilyKey]
    family_rows: list[Row]

    @property
    def family_table(self) -> FamilyTable:
        """The family view's table, mounted when first asked for (the list's first paint
        is without it)."""
        from kernelscope.kinds.ncu.screens.family_table import FamilyTable

        for table in self.query(FamilyTable):
            return table
        table = FamilyTable(id="families", cursor_type="row", zebra_stripes=True)
        table.display = False
        self.mount(table, after=self.table)
        return table

    @property
    def families(self) -> ReportFamilies:
        """The families of the kernels loaded so far (the report's analysis groups them)."""
        return self.state.analysis.families

    def highlighted_family_row(self) -> Row | None:
        row = self.family_table.cursor_row
        return self.family_rows[row] if 0 <= row < len(self.family_rows) else None

    def rebuild_families(self, keep: str | None = None) -> None:
        """Re-fill the family table (families of the kernels the filter keeps), keeping the
        highlighted row (or the row ``keep``)."""
        from kernelscope.kinds.ncu.screens.family_table import COLUMNS as FAMILY_COLUMNS
        from kernelscope.kinds.ncu.screens.family_table import MARKER as NAME_MARKER
        from kernelscope.kinds.ncu.screens.family_table import WHOLE as WHOLE_NAMES
        from kernelscope.kinds.ncu.screens.family_table import (
            family_rows,
            fitted_cells,
            plan_family_columns,
        )

        table = self.family_table
        if keep is None:
            current = self.highlighted_family_row()
            keep = current.key if current is not None else None
        by_id = {s.id: s for s in self.state.summaries}

        def rows(name_width: int) -> list[Row]:
            return family_rows(self.families, by_id, self.expanded, self.rows.matches, name_width,
                               self.state.diagnosis, short=self.state.names.get)

        widths = plan_family_columns(rows(WHOLE_NAMES), self.app.size.width)
        self.family_rows = rows(widths["family"] - NAME_MARKER)
        table.fill(
            [TableColumn(key, Text(title, justify="right" if numeric else "left"), widths[key])
             for key, title, numeric in FAMILY_COLUMNS if key in widths],
            ((row.key, fitted_cells(row, widths)) for row in self.family_rows),
        )
        keys = [row.key for row in self.family_rows]
        if keep in keys:
            table.move_cursor(row=keys.index(keep), animate=False)
        self._update_status()

    def action_toggle_families(self) -> None:
        """Show the families instead of the launches, or back."""
        families = self.view == "launches"
        self.view = "families" if families else "launches"
        self.table.display = not families
        self.family_table.display = families
        if families:
            self.rebuild_families()
            self.family_table.focus()
        else:
            self.table.focus()
        self.refresh_bindings()
        self._update_status()

    def toggle_family(self, row: Row) -> None:
        """Expand a folded family into its launches, or fold it."""
        from kernelscope.kinds.ncu.screens.family_table import FAMILY_PREFIX

        key = row.family.key
        if key in self.expanded:
            self.expanded.discard(key)
        else:
            self.expanded.add(key)
        self.rebuild_families(keep=f"{FAMILY_PREFIX}{row.family.index}")

    def family_info(self, total: int) -> list[str]:
        """The info line's parts in the family view."""
        shown = sum(1 for r in self.family_rows if r.kernel_id is None)
        return [f"{shown:,} of {len(self.families):,} families ({total:,} kernels)",
                "ranked by total time · enter expands · f shows launches"]

    def family_chosen(self, key: str) -> None:
        """Enter on a family row: open its launch (or its only one), else expand or fold."""
        from kernelscope.kinds.ncu.screens.family_table import LAUNCH_PREFIX

        row = next((r for r in self.family_rows if r.key == key), None)
        if row is None:
            return
        if key.startswith(LAUNCH_PREFIX) and row.kernel_id is not None:
            self.open_kernel(row.kernel_id)
        elif row.family.count == 1:
            self.open_kernel(row.family.ids[0])
        else:
            self.toggle_family(row)

    def select_launch(self, kernel_id: int) -> None:
        """Highlight kernel ``kernel_id``'s launch row in the family table, if shown."""
        from kernelscope.kinds.ncu.screens.family_table import LAUNCH_PREFIX

        keys = [row.key for row in self.family_rows]
        key = f"{LAUNCH_PREFIX}{kernel_id}"
        if key in keys:
            self.family_table.move_cursor(row=keys.index(key), animate=False)
