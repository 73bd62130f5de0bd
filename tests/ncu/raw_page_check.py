"""Compare every metric kernelscope's reader reads with NCU's raw page, in a process of its
own: ``python -m tests.ncu.raw_page_check`` reads one ``REPORT<tab>RAW_PAGE`` line per
question on its standard input and answers each with one JSON line (columns checked, the
differences, whether the ncu_report binding has been imported), until its input ends."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.conftest import read_csv_xz
from tests.ncu.oracle import matches_print

NO_VALUE = ("", "no data", "n/a")


def is_metric(column: str) -> bool:
    """Metric names are lower case without spaces; the page's other columns (ID, Process
    Name, Kernel Name, Device, CC, the NVTX columns) are not."""
    return bool(column) and column[0].islower() and " " not in column and ":" not in column


def differences(report_path: Path, page: Path) -> tuple[int, list[str]]:
    from kernelscope.kinds.ncu.model.report import NcuReport

    header, units, *rows = read_csv_xz(page)
    by_id = {int(r[0]): r for r in rows if r and r[0].isdigit()}
    wrong: list[str] = []
    checked = 0
    metric_columns = [i for i, name in enumerate(header) if is_metric(name)]
    with NcuReport(report_path) as report:
        if sorted(by_id) != list(range(report.kernel_count)):
            return 0, [f"{report.kernel_count} results, the raw page lists {len(by_id)}"]
        for kernel_id, row in by_id.items():
            metrics = report.all_metrics(kernel_id)
            for index in metric_columns:
                name, text = header[index], row[index] if index < len(row) else ""
                metric = metrics.get(name)
                checked += 1
                if metric is None:
                    if text.strip() not in NO_VALUE:
                        wrong.append(f"{kernel_id} {name}: missing, NCU prints {text!r}")
                    continue
                if metric.unit != units[index]:
                    wrong.append(f"{kernel_id} {name}: unit {metric.unit!r}, NCU {units[index]!r}")
                value = metric.value
                same = value == text if isinstance(value, str) else matches_print(value, text)
                if not same:
                    wrong.append(f"{kernel_id} {name}: {value!r}, NCU prints {text!r}")
    return checked, wrong


def main() -> int:
    for question in sys.stdin:
        report, page = question.rstrip("\n").split("\t")
        checked, wrong = differences(Path(report), Path(page))
        answer = {"checked": checked, "wrong": wrong[:50], "wrong_count": len(wrong),
                  "binding_loaded": "ncu_report" in sys.modules}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
