"""The one style table of severities (rich style strings; no Textual).

A severity shows two ways: as a badge (`` CRITICAL `` in reverse colours, beside a kernel flag
or a timeline finding) and as coloured text (a flag's name in the kernel list, the verdict
column of ``summary``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from kernelscope.core.severity import Severity


class SeverityStyle(NamedTuple):
    badge: str
    """The style of the `` CRITICAL `` badge."""
    text: str
    """The style of text in the severity's colour."""


STYLES: Mapping[Severity, SeverityStyle] = MappingProxyType({
    Severity.CRITICAL: SeverityStyle(badge="bold white on red", text="bold red"),
    Severity.WARNING: SeverityStyle(badge="bold black on yellow", text="yellow"),
    Severity.INFO: SeverityStyle(badge="bold white on blue", text="cyan"),
})


def badge_style(severity: str | None, default: str = "") -> str:
    """The badge style of ``severity`` (a member or its name); ``default`` for anything else."""
    style = _style(severity)
    return default if style is None else style.badge


def text_style(severity: str | None, default: str = "") -> str:
    """The text style of ``severity`` (a member or its name); ``default`` for anything else."""
    style = _style(severity)
    return default if style is None else style.text


def _style(severity: str | None) -> SeverityStyle | None:
    try:
        return STYLES[Severity(severity)]
    except ValueError:
        return None
