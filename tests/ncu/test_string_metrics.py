"""String-valued metrics carry no unit: ncu_report answers one for a breakdown's sub-metric
name ('%' in a fresh process, 'byte' once other reports were opened), which made the Raw page
differ from run to run."""

from __future__ import annotations

import pytest

from kernelscope.kinds.ncu.model import open_ncu_report
from tests.conftest import NCU_SAMPLES

ZOO = NCU_SAMPLES / "zoo_a.ncu-rep.xz"


@pytest.mark.skipif(not ZOO.exists(), reason=f"no sample {ZOO}")
def test_string_metrics_have_no_unit() -> None:
    with open_ncu_report(ZOO) as report:
        metrics = report.all_metrics(4)
    strings = {n: m for n, m in metrics.items() if isinstance(m.value, str)}
    breakdowns = [n for n in strings if n.startswith("breakdown:")]
    assert breakdowns, "zoo_a's kernel 4 lists breakdowns (their values name sub-metrics)"
    assert {n: m.unit for n, m in strings.items() if m.unit} == {}
    numbers = [m for m in metrics.values() if not isinstance(m.value, str)]
    assert any(m.unit == "%" for m in numbers) and any(m.unit == "byte" for m in numbers)
