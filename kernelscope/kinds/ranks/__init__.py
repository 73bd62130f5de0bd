"""Runs of many Nsight Systems ranks: reduce, align, compare."""
