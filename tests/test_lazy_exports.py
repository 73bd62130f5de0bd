"""The packages that re-export names import them on first use, and only then."""

from __future__ import annotations

import subprocess
import sys

import pytest

import kernelscope.kinds.ncu.analysis.diagnosis as diagnosis
import kernelscope.kinds.ncu.analysis.roofline as roofline
import kernelscope.kinds.ncu.model as ncu
from kernelscope.kinds.ncu.analysis.diagnosis.result import Diagnosis
from kernelscope.kinds.ncu.analysis.roofline.model import Roofline
from kernelscope.kinds.ncu.model.metrics import Metric
from kernelscope.kinds.ncu.model.report import NcuReport


def test_the_names_are_the_modules_own():
    assert ncu.Metric is Metric and ncu.NcuReport is NcuReport
    assert diagnosis.Diagnosis is Diagnosis and roofline.Roofline is Roofline
    for package in (ncu, diagnosis, roofline):
        for name in package.__all__:  # each listed name has a home that defines it
            assert getattr(package, name) is not None


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        _ = ncu.nothing  # type: ignore[attr-defined]


def test_a_timeline_module_does_not_import_the_kernel_report_reader():
    code = (
        "import sys\n"
        "import kernelscope.timeline.analysis.metric_analysis\n"
        "import kernelscope.timeline.export.timeline_metrics_md\n"
        "print(sorted(m for m in ('kernelscope.kinds.ncu.model.report',"
        " 'kernelscope.kinds.ncu.analysis.diagnosis.engine') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_the_kernel_list_leaves_the_other_screens_and_the_diagnosis_unloaded():
    """What the kernel list's first paint imports (its session and screen) leaves out the
    modules it uses later: the family view's table, the detail and roofline screens, and the
    diagnosis, which the reading worker imports once the first rows are drawn."""
    later = ("kernelscope.kinds.ncu.screens.family_table",
             "kernelscope.kinds.ncu.screens.kernel_detail",
             "kernelscope.kinds.ncu.screens.roofline",
             "kernelscope.kinds.ncu.analysis.kernel_analysis",
             "kernelscope.kinds.ncu.analysis.diagnosis.engine")
    code = (
        "import sys\n"
        "import kernelscope.kinds.ncu.screens.kernel_session\n"
        "import kernelscope.kinds.ncu.screens.kernel_list\n"
        f"print(sorted(m for m in {later!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
