"""``python -m kernelscope`` runs the command-line interface."""

from kernelscope.tui.cli import entry

raise SystemExit(entry())
