"""Nsight Compute kernel reports (.ncu-rep)."""
