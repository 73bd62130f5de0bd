"""A rule is one registration: its ``FlagSpec`` names its check, and every registration's check
is a function of the diagnosis package (or grades a stall metric the method knows), so no rule
is half registered and no id is written twice."""

from __future__ import annotations

import inspect

import pytest

from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.catalog import CATALOG, FlagSpec
from kernelscope.kinds.ncu.analysis.diagnosis.flags import checks

_PACKAGE = "kernelscope.kinds.ncu.analysis.diagnosis"


def test_every_registration_resolves_to_its_check() -> None:
    resolved = checks()
    assert list(resolved) == list(CATALOG)
    for flag_id, spec in CATALOG.items():
        check = resolved[flag_id]
        assert spec.id == flag_id
        assert check.__module__.startswith(_PACKAGE), flag_id
        assert list(inspect.signature(check).parameters) and callable(check)
        if spec.stall:
            assert spec.stall.startswith(n.STALL_PREFIX), flag_id
        else:
            assert check.__name__ == spec.check.split(":")[1], flag_id


def test_a_registration_names_one_check() -> None:
    with pytest.raises(ValueError, match="not both"):
        FlagSpec("x", "X", 0, "launch", "Do y.")
    with pytest.raises(ValueError, match="not both"):
        FlagSpec("x", "X", 0, "launch", "Do y.", check="flags:low_occupancy",
                 stall=n.STALL_WAIT)
