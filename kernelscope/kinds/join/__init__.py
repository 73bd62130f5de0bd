"""A timeline joined with kernel reports: what to fix first."""
