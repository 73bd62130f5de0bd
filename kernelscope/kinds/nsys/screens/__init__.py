"""Nsight Systems in the TUI: its session hands the shared timeline screen the kind's opener."""
