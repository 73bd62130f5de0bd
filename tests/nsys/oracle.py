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


TEXT_COLUMNS = {"Name", "Operation", "Range", "Style"}


def _tolerance(column: str, value: float) -> float:
    """Half a unit of the last printed digit (nsys prints MB with 3 decimals, else 1), plus
    the float error of a large value (286084435.25 prints as 286084435.3)."""
    half = 0.0005 if "(MB)" in column else 0.05
    return half + 1e-9 * max(1.0, abs(value))


def _key(row: dict[str, object], columns: list[str]) -> tuple[str, ...]:
    return tuple(str(row[c]) for c in columns if c in TEXT_COLUMNS)


def assert_summary_matches(ours, expected: list[dict[str, str]], report: str) -> None:  # type: ignore[no-untyped-def]
    """Our ``nsys stats`` report frame equals the CSV rows nsys printed (to its rounding)."""
    assert list(expected[0].keys()) == ours.columns, "columns differ from nsys stats"
    assert ours.height == len(expected), "row count differs from nsys stats"
    mine = {_key(r, ours.columns): r for r in ours.to_dicts()}
    assert len(mine) == ours.height
    for exp in expected:
        key = _key(exp, ours.columns)
        assert key in mine, f"{key} missing from kernelscope's {report}"
        got = mine[key]
        for col in ours.columns:
            if col in TEXT_COLUMNS:
                continue
            want = number(exp[col])
            have = got[col]
            assert want is not None and have is not None, (key, col)
            if isinstance(have, int) and float(want).is_integer() and "." not in exp[col]:
                assert have == int(want), (key, col, have, want)
            else:
                assert abs(float(have) - want) <= _tolerance(col, want), (key, col, have, want)
    # Same order as nsys (largest total first); ties may come in either order.
    totals = ours[ours.columns[1 if report != "cuda_gpu_mem_size_sum" else 0]].to_list()
    assert totals == sorted(totals, reverse=True)


ANALYZE_ROW_LIMIT = 50
"""``nsys analyze`` prints at most this many rows for a rule."""


def _cell(header: str, value: object) -> object:
    """Our value as nsys prints it in that column."""
    if value is None:
        return ""
    if header == "Bytes (MB)":
        return round(int(value) / 1e6, 3)  # type: ignore[call-overload]
    return value


def _oracle_cell(header: str, text: str) -> object:
    text = text.strip()
    if text == "":
        return ""
    num = number(text) if text.replace(",", "").replace(".", "").lstrip("-").isdigit() else None
    if num is None:
        return text
    if header == "Bytes (MB)" or header == "In-Use (%)":
        return num
    return int(num)


def assert_rule_matches(ours, expected_rows: list[dict[str, str]], columns: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    """Our rule frame equals the rows ``nsys analyze`` printed; ``columns`` maps our columns
    to nsys's headers. nsys prints only the first ANALYZE_ROW_LIMIT rows of a rule."""
    headers = list(expected_rows[0].keys())
    assert set(headers) <= set(columns.values()), headers
    key_of = {v: k for k, v in columns.items()}
    expected = [tuple(_oracle_cell(h, r[h]) for h in headers) for r in expected_rows]
    got = [tuple(_cell(h, row[key_of[h]]) for h in headers) for row in ours.to_dicts()]
    if len(expected) == ANALYZE_ROW_LIMIT and len(got) > ANALYZE_ROW_LIMIT:
        got = got[:ANALYZE_ROW_LIMIT]
        if "Row#" not in headers:  # ties at the cut may fall either way: compare the rest
            assert [g[0] for g in got] == [e[0] for e in expected]
            return
    if "Row#" in headers:  # nsys numbers rows in its own order: compare that order exactly
        assert got == expected
    else:  # ties in duration may be printed in any order
        assert sorted(got, key=repr) == sorted(expected, key=repr)
