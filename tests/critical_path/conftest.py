"""The nsys sample fixtures (decompressed and opened once per session)."""

from tests.nsys.conftest import nsys_sample_dir, sample_report, sample_sqlite

__all__ = ["nsys_sample_dir", "sample_report", "sample_sqlite"]
