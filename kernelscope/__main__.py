"""``python -m kernelscope`` runs the command-line interface."""

from kernelscope.tui.cli import main

raise SystemExit(main())
