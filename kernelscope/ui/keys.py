"""Key tables: the bindings of a screen or widget written as one table, a row per key."""

from __future__ import annotations

from collections.abc import Iterable

from textual.binding import Binding, BindingType

KeyRow = tuple[str, str, str, str, bool, str]
"""keys, action, title (footer and help), id (after ``SCOPE.``), whether the footer shows it,
tooltip (help and the command palette show it)."""


def key_table(scope: str, rows: Iterable[KeyRow]) -> list[BindingType]:
    """The bindings of ``rows``, in order, each with the id ``SCOPE.ID`` and its tooltip."""
    return [
        Binding(keys, action, title, show=shown, id=f"{scope}.{key_id}", tooltip=tooltip)
        for keys, action, title, key_id, shown, tooltip in rows
    ]
