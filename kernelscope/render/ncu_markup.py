"""Turn the markup in NCU rule messages into readable text.

NCU writes cross references into its rule messages:
``@section:WarpStateStats:Warp State Statistics@`` and
``@url:Profiling Guide:https://docs.nvidia.com/...@``. On screen a section reference becomes its
name in bold with the kernelscope pane that shows it (``Warp State Statistics [5]``), and a link
becomes its text followed by the address, which can be copied over SSH.
"""

from __future__ import annotations

import re

from rich.text import Text

from kernelscope.parsers.ncu.panes import PANES

_TAG = re.compile(r"@(?P<kind>[a-z_]+):(?P<body>[^@]*)@")


def pane_number_of_section(section: str) -> int | None:
    """The number key of the pane that shows ``section`` (or its chart/table variants)."""
    for pane in PANES:
        for owned in pane.sections:
            if section == owned or section.startswith(owned + "_"):
                return int(pane.key)
    return None


def render_ncu_markup(message: str, *, base_style: str = "") -> Text:
    """``message`` with NCU's ``@section:…@`` and ``@url:…@`` tags made readable."""
    text = Text(style=base_style)
    pos = 0
    for match in _TAG.finditer(message):
        text.append(message[pos : match.start()])
        kind, body = match.group("kind"), match.group("body")
        if kind == "section":
            section, _, label = body.partition(":")
            text.append(label or section, style="bold")
            number = pane_number_of_section(section)
            if number is not None:
                text.append(f" [{number}]", style="cyan")
        elif kind == "url":
            label, _, url = body.partition(":")
            if not url:
                label, url = "", label
            if label:
                text.append(label, style="underline")
                text.append(f" <{url}>", style=f"dim link {url}")
            else:
                text.append(url, style=f"underline link {url}")
        else:
            text.append(body.rpartition(":")[2] or body, style="bold")
        pos = match.end()
    text.append(message[pos:])
    return text


def plain_ncu_markup(message: str) -> str:
    """The readable text of ``message`` without styles."""
    return render_ncu_markup(message).plain
