"""The classifier on arbitrary metric mappings: it never raises and always gives one label."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kernelscope.kinds.ncu.analysis.diagnosis import LABELS, REQUIRED_METRICS, diagnose
from kernelscope.kinds.ncu.model import Metric, RuleResult

values = st.one_of(
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=0, max_value=100),
    st.integers(min_value=-(2**63), max_value=2**63),
    st.text(max_size=5),
    st.booleans(),
)
mappings = st.dictionaries(
    st.sampled_from(REQUIRED_METRICS),
    values.map(lambda v: v),
    max_size=len(REQUIRED_METRICS),
)
rules = st.lists(
    st.builds(
        RuleResult,
        rule=st.sampled_from(["CPIStall", "SharedMemoryConflicts", "LaunchConfiguration", "X"]),
        name=st.text(max_size=5),
        section=st.text(max_size=5),
        type=st.sampled_from(["OPT", "INF", "WRN"]),
        title=st.text(max_size=20),
        message=st.text(max_size=20),
        speedup_type=st.none() | st.sampled_from(["local", "global"]),
        speedup_pct=st.none() | st.floats(allow_nan=False, allow_infinity=False),
    ),
    max_size=4,
)
sections = st.sets(
    st.sampled_from(
        [
            "SpeedOfLight",
            "LaunchStats",
            "Occupancy",
            "MemoryWorkloadAnalysis_Tables",
            "WarpStateStats",
            "SourceCounters",
            "SpeedOfLight_RooflineChart",
        ]
    )
)


@settings(max_examples=300, deadline=None)
@given(mappings, rules, sections)
def test_diagnose_never_raises_and_gives_one_label(raw, rule_list, section_set) -> None:
    metrics = {name: Metric(name=name, value=v, unit="") for name, v in raw.items()}
    d = diagnose(metrics, rule_list, section_set)
    assert d.label in LABELS
    assert len({d.label}) == 1
    json.dumps(d.to_dict(), allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(REQUIRED_METRICS), st.floats(0, 100), max_size=40))
def test_percent_like_mappings_classify(raw) -> None:
    metrics = {name: Metric(name=name, value=v, unit="%") for name, v in raw.items()}
    d = diagnose(metrics)
    assert d.label in LABELS
    for flag in d.flags:
        assert flag.severity in ("info", "warning", "critical")
