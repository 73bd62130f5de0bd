"""Read the ``nsys stats`` / ``nsys analyze`` CSV and text oracles under samples/nsys/oracle."""

from __future__ import annotations

import csv
import io
import lzma
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# KERNELSCOPE_NSYS_SAMPLES points the tests at another sample directory (same layout).
NSYS_SAMPLES = Path(os.environ.get("KERNELSCOPE_NSYS_SAMPLES", ROOT / "samples" / "nsys"))
NSYS_ORACLE = NSYS_SAMPLES / "oracle"

STATS_REPORTS = (
    "cuda_gpu_kern_sum", "cuda_api_sum", "cuda_gpu_mem_time_sum", "cuda_gpu_mem_size_sum",
    "nvtx_sum", "osrt_sum",
)
ANALYZE_RULES = (
    "cuda_memcpy_async", "cuda_memcpy_sync", "cuda_memset_sync", "cuda_api_sync", "gpu_gaps",
    "gpu_time_util",
)


def sample_names() -> list[str]:
    """Samples that have an SQLite export and at least one oracle file."""
    names = []
    for path in sorted(NSYS_SAMPLES.glob("*.sqlite.xz")):
        name = path.name.removesuffix(".sqlite.xz")
        has_csv = any(NSYS_ORACLE.glob(f"{name}_*.csv.xz"))
        if has_csv or (NSYS_ORACLE / f"{name}.stats.txt.xz").exists():
            names.append(name)
    return names


def read_text(path: Path) -> str:
    return lzma.decompress(path.read_bytes()).decode("utf-8", errors="replace")


def read_csv(path: Path) -> list[dict[str, str]]:
    """Rows of an nsys CSV (lines before the header, if any, are skipped); an empty file
    (what nsys writes when a report or rule has nothing to show) gives no rows."""
    text = read_text(path)
    if not text.strip():
        return []
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if "," in ln), 0)
    return list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))


def oracle_csv(name: str, report: str) -> Path:
    return NSYS_ORACLE / f"{name}_{report}.csv.xz"


def section(text: str, report: str) -> str:
    """The part of a ``nsys stats``/``analyze`` text output produced by one report/rule."""
    marker = f"/{report}.py]"
    i = text.find(marker)
    if i < 0:
        return ""
    j = text.find("Processing [", i + len(marker))
    return text[i : j if j >= 0 else len(text)]


def reported_empty(name: str, report: str, kind: str) -> bool:
    """True when nsys said this report/rule had nothing to show for the sample (SKIPPED, or
    'There were no problems detected')."""
    path = NSYS_ORACLE / f"{name}.{kind}.txt.xz"
    if not path.exists():
        return False
    part = section(read_text(path), report)
    return "SKIPPED" in part or "no problems detected" in part or "does not contain" in part


def number(text: str) -> float | None:
    text = text.strip().replace(",", "")
    if text == "":
        return None
    return float(text)
