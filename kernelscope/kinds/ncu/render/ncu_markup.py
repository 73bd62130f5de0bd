"""Turn the markup in NCU rule messages into readable text.

NCU writes cross references into its rule messages:
``@section:WarpStateStats:Warp State Statistics@`` and
``@url:Profiling Guide:https://docs.nvidia.com/...@``. On screen a section reference becomes its
name in bold with the kernelscope pane that shows it (``Warp State Statistics [5]``), and a link
becomes its text followed by the address, which can be copied over SSH.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING

from kernelscope.kinds.ncu.model.panes import PANES

if TYPE_CHECKING:
    from rich.text import Text

_TAG = re.compile(r"@(?P<kind>[a-z_]+):(?P<body>[^@]*)@")


@cache
def pane_number_of_section(section: str) -> int | None:
    """The number key of the pane that shows ``section`` (or its chart/table variants)."""
    for pane in PANES:
        for owned in pane.sections:
            if section == owned or section.startswith(owned + "_"):
                return int(pane.key)
    return None


def ncu_markup_segments(message: str, *, panes: bool = True) -> Iterator[tuple[str, str]]:
    """``message`` as (text, style) pieces with NCU's ``@section:…@`` and ``@url:…@`` tags
    made readable; ``panes`` adds the number of the pane that shows a section (``[5]``: a
    key on screen, nothing in a document)."""
    pos = 0
    for match in _TAG.finditer(message):
        yield message[pos : match.start()], ""
        kind, body = match.group("kind"), match.group("body")
        if kind == "section":
            section, _, label = body.partition(":")
            yield label or section, "bold"
            number = pane_number_of_section(section) if panes else None
            if number is not None:
                yield f" [{number}]", "cyan"
        elif kind == "url":
            label, _, url = body.partition(":")
            if not url:
                label, url = "", label
            if label:
                yield label, "underline"
                yield f" <{url}>", f"dim link {url}"
            else:
                yield url, f"underline link {url}"
        else:
            yield body.rpartition(":")[2] or body, "bold"
        pos = match.end()
    yield message[pos:], ""


def render_ncu_markup(message: str, *, base_style: str = "") -> Text:
    """``message`` with NCU's tags made readable, styled for the screen."""
    # rich is imported here: the export workers only need the plain text.
    from rich.text import Text

    text = Text(style=base_style)
    for piece, style in ncu_markup_segments(message):
        text.append(piece, style=style or None)
    return text


def plain_ncu_markup(message: str, *, panes: bool = True) -> str:
    """The readable text of ``message`` without styles (``panes``: with the pane numbers of
    the sections it names, for the screen; a document leaves them out)."""
    return "".join(piece for piece, _ in ncu_markup_segments(message, panes=panes))
