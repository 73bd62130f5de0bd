"""A kernel report's JSON export is written in pieces, a kernel at a time (a 100 MB document
for 8,676 kernels is never held whole), and the pieces make the same document."""

from __future__ import annotations

import json
from dataclasses import replace

from kernelscope.export.writer import (
    ExportOptions,
    joined,
    render,
    render_checked,
    write_text,
)
from kernelscope.kinds.ncu.analysis.kernel_analysis import analyze, open_for_analysis
from kernelscope.kinds.ncu.export.ncu_json import JsonMembers, ncu_json_pieces, render_ncu_json
from kernelscope.tui.cli import main
from tests.conftest import NCU_SAMPLES
from tests.export.same_json import assert_same_document

SMALL_FAMILY = NCU_SAMPLES / "small_family.ncu-rep.xz"  # 151 launches


def test_the_pieces_are_the_document_a_kernel_at_a_time():
    with open_for_analysis(SMALL_FAMILY) as report:
        analyzed = analyze(report, details=True, slim=True)
        whole = render_ncu_json(analyzed, top=2)
        pieces = list(ncu_json_pieces(analyzed, top=2))
    doc = json.loads(whole)
    assert joined(pieces) == whole
    assert len(pieces) >= 2 * len(doc["kernels"])  # no piece holds two kernels
    assert_same_document(whole, json.dumps(doc, indent=2) + "\n")


def test_the_export_is_written_piece_by_piece_to_the_same_text(tmp_path, capsys):
    text = render(SMALL_FAMILY, ExportOptions(fmt="json"))
    rendered = render_checked(SMALL_FAMILY, ExportOptions(fmt="json"))
    assert rendered.pieces is not None and rendered.text == ""
    out = write_text(rendered, tmp_path / "a.json", inputs=SMALL_FAMILY)
    assert out.read_text(encoding="utf-8") == text
    assert main(["export", str(SMALL_FAMILY), "-f", "json", "-o", str(tmp_path / "b.json")]) == 0
    assert (tmp_path / "b.json").read_text(encoding="utf-8") == text
    assert main(["export", str(SMALL_FAMILY), "-f", "json"]) == 0
    assert capsys.readouterr().out == text



def test_a_launch_that_repeats_another_takes_its_text_with_its_own_id():
    """A launch with the name, shape, metrics and rule results of an earlier one takes the
    text after its ``id`` from that launch (``JsonMembers``), under its own id; what one
    pass keeps is its own, so another starts empty."""
    with open_for_analysis(SMALL_FAMILY) as report:
        detail = report.detail(3)
    members = JsonMembers()
    first = members.members(detail)
    again = members.members(replace(detail, id=150))
    assert len(members.repeated) == 1
    assert first.startswith('"id": 3,\n')
    assert again == '"id": 150,' + first.removeprefix('"id": 3,')
    assert json.loads("{" + again + "}") == {**json.loads("{" + first + "}"), "id": 150}
    diagnosis, text = members(replace(detail, id=7))
    assert members(replace(detail, id=8))[0] is diagnosis  # diagnosed once
    assert text == first.removeprefix('"id": 3,\n' + "  " * 3)  # the entry writes the id
    shifted = replace(detail, grid=(detail.grid[0] + 1, *detail.grid[1:]))
    assert members.members(shifted) != first  # what differs is written anew
    assert len(members.repeated) == 2
    other = JsonMembers()
    assert other.repeated == {}
    assert other.members(detail) == first and other(detail)[0] is not diagnosis


def test_a_template_of_names_and_units_takes_the_values_as_dumps_writes_them():
    """Launches share their metrics' names and units: the text around the values is made
    once, each launch's values encoded in one call (a NaN written null, a unit's ``%``
    kept) and the members are what ``json.dumps`` writes at that depth."""
    from kernelscope.export import json_text

    names = ["a%s", "b", "c"]
    units = ["%", "ns", ""]
    template = json_text.value_unit_template(names, units, 1)
    for values in ([1.5, 2, "x"], [float("nan"), True, None]):
        members = template % tuple(json_text.scalars(values))
        members_of = zip(names, values, units, strict=True)
        doc = {"m": {n: {"value": v, "unit": u} for n, v, u in members_of}}
        clean = json.loads(json.dumps(doc).replace("NaN", "null"))
        assert "{\n  " + f'"m": {{\n    {members}\n  }}' + "\n}" == json.dumps(clean, indent=2)


def test_a_kernels_own_members_are_what_items_writes_of_its_dict():
    """The own members made from the pieces launches share (head, metrics' template, rules)
    in one formatting are ``items`` of ``kernel_dict``: with a ``%`` in a metric's name and
    unit, a NaN, a value that is no scalar (the general path's), and no metrics at all."""
    from kernelscope.export import json_text
    from kernelscope.kinds.ncu.export.own_members import ENTRY_LEVEL, kernel_dict
    from kernelscope.kinds.ncu.model import Metric

    with open_for_analysis(SMALL_FAMILY) as report:
        detail = report.detail(3)
    assert detail.all_metrics is None and detail.metrics
    odd = {"z%s": Metric("z%s", float("nan"), "%"), "a": Metric("a", 2**70, "ns")}
    shapes = (detail.metrics, {**detail.metrics, **odd},
              {**detail.metrics, "l": Metric("l", [1, 2], "")}, {})
    for n, metrics in enumerate(shapes):
        kernel = replace(detail, id=n, metrics=metrics)
        expected = json_text.items(kernel_dict(kernel), ENTRY_LEVEL)
        assert JsonMembers().members(kernel) == expected


def test_launches_of_one_kind_share_text_only_with_the_same_metric_objects():
    """Launches of one kind (name, shape, metrics' names, rule results) are compared with
    the kind's latest launches by their Metric objects: one whose value differs (even one
    equal to it, ``1`` and ``1.0``) is written anew, as the plain path writes it, and an
    earlier launch's metrics, met again, take that launch's text."""
    from kernelscope.export import json_text
    from kernelscope.kinds.ncu.export.own_members import ENTRY_LEVEL, kernel_dict
    from kernelscope.kinds.ncu.model import Metric

    with open_for_analysis(SMALL_FAMILY) as report:
        detail = report.detail(3)
    name = next(n for n, m in detail.metrics.items() if type(m.value) is float)
    metric = detail.metrics[name]
    members = JsonMembers()
    first = members.members(detail)
    variants = [replace(detail, metrics={**detail.metrics, name: changed}) for changed in (
        Metric(metric.name, metric.value + 1, metric.unit, metric.label),
        Metric(metric.name, int(metric.value), metric.unit, metric.label),
        Metric(metric.name, float(int(metric.value)), metric.unit, metric.label),
    )]
    texts = [members.members(kernel) for kernel in variants]
    for kernel, text in zip(variants, texts, strict=True):
        assert text == json_text.items(kernel_dict(kernel), ENTRY_LEVEL)
    assert len(set(texts)) == 3 and first not in texts
    assert len(members.repeated) == 1 and members.kept == 4
    assert members.members(detail) == first and members.members(variants[1]) == texts[1]
    assert members.kept == 4  # both taken from the launches met before


def test_rule_texts_are_what_items_writes_of_them():
    """A launch's rule results, their text kept by the rule objects for the launches that
    hold them: the text ``items`` writes of them, with odd texts (a quote and a NUL, DEL,
    non-ASCII, a lone surrogate, which orjson refuses), a NaN speedup, a field that is no
    text, and no rules at all."""
    from kernelscope.export import json_text
    from kernelscope.kinds.ncu.export.own_members import ENTRY_LEVEL, kernel_dict
    from kernelscope.kinds.ncu.model import RuleResult

    with open_for_analysis(SMALL_FAMILY) as report:
        detail = report.detail(3)
    assert detail.rules
    rule = detail.rules[0]
    odd = (
        rule._replace(title='a"\x00', message="\x7f é"),
        rule._replace(message="lone \ud800", speedup_type="local", speedup_pct=float("nan")),
        rule._replace(speedup_pct=12.5, speedup_type="global"),
        RuleResult(1, "n", "s", "OPT", "t", "m"),  # type: ignore[arg-type]
        RuleResult("r", "n", "s", "OPT", "t", "m"),
        rule._replace(speedup_pct=[1.5]),  # no scalar: the general path's
    )
    members = JsonMembers()
    for rules in ((), detail.rules, *((r,) for r in odd), odd[2:], (*detail.rules, odd[0])):
        kernel = replace(detail, rules=rules)
        expected = json_text.items(kernel_dict(kernel), ENTRY_LEVEL)
        assert members.members(kernel) == expected
        assert JsonMembers().members(kernel) == expected


def test_a_launch_written_from_the_latest_of_its_name_is_what_items_writes():
    """A launch is written from the latest launch of its kernel's name, each metric whose
    Metric object differs encoded anew: the text is ``items`` of ``kernel_dict`` whatever
    differs (a value, an equal value of another type, a unit, a value that is no scalar, the
    metrics' names or their order, nothing), launch after launch."""
    from kernelscope.export import json_text
    from kernelscope.kinds.ncu.export.own_members import ENTRY_LEVEL, kernel_dict
    from kernelscope.kinds.ncu.model import Metric

    with open_for_analysis(SMALL_FAMILY) as report:
        detail = report.detail(3)
    metrics = detail.metrics
    floats = [n for n, m in metrics.items() if type(m.value) is float][:2]
    first, second = (metrics[n] for n in floats)

    def changed(**fields: dict[str, Metric]) -> dict[str, Metric]:
        return {**metrics, **fields}

    shapes = [
        metrics,
        {("renamed" if n == floats[0] else n): m for n, m in metrics.items()},  # same objects
        changed(**{floats[0]: first._replace(value=first.value + 1)}),
        changed(**{floats[0]: first._replace(value=int(first.value))}),
        changed(**{floats[0]: first._replace(value=first.value + 1),
                   floats[1]: second._replace(value=second.value * 2)}),
        changed(**{floats[1]: second._replace(unit=second.unit + "/s")}),
        changed(**{floats[0]: first._replace(value=float("nan"))}),
        changed(**{floats[0]: first._replace(value=[1, 2])}),
        {n: m for n, m in metrics.items() if n != floats[1]},
        dict(reversed(metrics.items())),
        metrics,
    ]
    members = JsonMembers()
    for n, shown in enumerate(shapes):
        kernel = replace(detail, id=n, metrics=shown)
        assert members.members(kernel) == json_text.items(kernel_dict(kernel), ENTRY_LEVEL), n


def test_launches_that_differ_in_other_metrics_are_each_told_apart():
    """The kind's launches are compared first at the metric where one last differed: a
    launch that differs elsewhere, or only there, is still told apart, and one met before
    takes its own text, wherever the comparison starts."""
    from kernelscope.kinds.ncu.model import KernelDetail, Metric

    with open_for_analysis(SMALL_FAMILY) as report:
        detail = report.detail(3)
    floats = [n for n, m in detail.metrics.items() if type(m.value) is float]
    first_name, last_name = floats[0], floats[-1]

    def changed(**by: float) -> KernelDetail:
        metrics = dict(detail.metrics)
        for name, step in by.items():
            m = metrics[name]
            metrics[name] = Metric(m.name, m.value + step, m.unit, m.label)
        return replace(detail, metrics=metrics)

    members = JsonMembers()
    launches = [detail, changed(**{last_name: 1.0}), changed(**{first_name: 1.0}),
                changed(**{first_name: 2.0, last_name: 2.0})]
    texts = [members.members(kernel) for kernel in launches]
    assert len(set(texts)) == 4 and members.kept == 4
    for kernel, text in zip(reversed(launches), reversed(texts), strict=True):
        assert members.members(kernel) == text
    assert members.kept == 4  # each taken from the launch met before
