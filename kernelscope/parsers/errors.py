"""The one exception type the model raises for bad input.

Every message is a single sentence meant for the user, so the CLI and the
TUI can show it as it is.
"""

from __future__ import annotations


class ReportError(Exception):
    """A report could not be opened or read; ``str(exc)`` is one sentence for the user."""
