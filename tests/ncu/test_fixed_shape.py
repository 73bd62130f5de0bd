"""The numbers ``metrics.read_metrics`` reads with one ``struct`` call (``bag.fixed_shape``,
``bag.fixed_values``) are what the protobuf runtime decodes from the same bytes, and the
bulk reading that uses them gives what reading each name alone gives on a report whose
launches each hold values of their own."""

from __future__ import annotations

import math
import struct
from typing import Any

import pytest

from kernelscope.kinds.ncu.model import metrics
from kernelscope.kinds.ncu.model.file_format.bag import fixed_shape, fixed_values
from kernelscope.kinds.ncu.model.file_format.metric_ids import name_tag
from kernelscope.kinds.ncu.model.file_format.schema import MetricResult
from kernelscope.kinds.ncu.model.metric_slots import Slots
from tests.conftest import NCU_SAMPLES
from tests.ncu.test_placed_reading import check_report

NUMBERS = (0.0, -0.0, 1.5, -2.25e-300, 6.2096193032155451, 2.0**63, math.inf, -math.inf,
           math.nan, 1e308)
TAGS = (name_tag(5), name_tag(426), name_tag(16_000))
SUFFIXES = (b"", b"\x20\x00", b"\x20\x01\x28\x96\x01")


def _decoded(data: bytes) -> object:
    fields = MetricResult.FromString(data).metric_value.ListFields()
    return fields[0][1] if fields else None


def _same_number(a: object, b: object) -> bool:
    if not isinstance(a, float) or not isinstance(b, float):
        return False
    return struct.pack("<d", a) == struct.pack("<d", b)


@pytest.mark.parametrize("tag", TAGS)
@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize(("head", "code"), [(b"\x12\x09\x19", "<d"), (b"\x12\x05\x15", "<f")])
def test_a_shape_reads_what_the_runtime_decodes(
    tag: bytes, suffix: bytes, head: bytes, code: str
) -> None:
    numbers = [n for n in NUMBERS if code == "<d" or not abs(n) < math.inf or abs(n) < 1e38]
    entries = [tag + head + struct.pack(code, n) + suffix for n in numbers]
    shape = fixed_shape(entries[0], tag)
    assert shape is not None
    for data in entries:
        assert len(data) == shape.size
        assert data.startswith(shape.prefix) and data.endswith(shape.suffix)
    read = fixed_values(entries, [shape.code] * len(entries))
    assert set(read[0::3]) == {shape.prefix} and set(read[2::3]) == {shape.suffix}
    for data, number in zip(entries, read[1::3], strict=True):
        assert _same_number(number, _decoded(data)), data


@pytest.mark.parametrize("suffix", [
    b"\x12\x05\x15\x00\x00\x80\x3f",  # a second value: the runtime merges it in
    b"\x10\x01",  # field 2 as a varint: not the shape's
    b"\x08\x07",  # a second NameId
    b"\x1a\x00",  # an instance list
    b"\x22\x00",  # field 4, length-delimited
    b"\x20",  # a varint cut short
    b"\xa0\x01\x00",  # a two-byte tag
])
def test_no_shape_past_fields_that_could_change_the_value(suffix: bytes) -> None:
    tag = name_tag(426)
    assert fixed_shape(tag + b"\x12\x09\x19" + struct.pack("<d", 1.0) + suffix, tag) is None


@pytest.mark.parametrize("data", [
    b"\x08\x05\x12\x09\x19" + bytes(7),  # cut short
    b"\x08\x05\x12\x0a\x19" + bytes(9),  # a longer MetricValue
    b"\x08\x05\x12\x02\x20\x07",  # an integer
    b"\x08\x05",  # no value
])
def test_no_shape_for_other_values(data: bytes) -> None:
    assert fixed_shape(data, name_tag(5)) is None


def test_launches_of_their_own_values_read_by_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    """many_launches' launches each hold throughputs of their own: the bulk reading reads
    them by shape (``metrics._place`` puts what it read in), and gives what reading each
    name alone gives."""
    placed = []
    place = metrics._place

    def counted(found: list[Any], at: list[int], *rest: Any) -> None:
        placed.append(len(at))
        place(found, at, *rest)

    monkeypatch.setattr(metrics, "_place", counted)
    check_report(NCU_SAMPLES / "many_launches.ncu-rep.xz")
    assert sum(placed) > 0


DOUBLE = b"\x12\x09\x19"
"""What precedes an entry's double (its value's field and the double's tag)."""


def _two_shaped_slots() -> tuple[tuple[bytes, bytes], Slots]:
    """Two names' tags and a plan's Slots that know each entry's Shape (a double, then a
    suffix of two bytes)."""
    tags = (name_tag(5), name_tag(300))
    plan = (("a", ((5, tags[0]),)), ("b", ((300, tags[1]),)))
    slots = Slots(plan, None)
    for at, tag in enumerate(tags):
        shape = fixed_shape(tag + DOUBLE + struct.pack("<d", 1.0) + b"\x20\x00", tag)
        assert shape is not None
        slots.prefixes[at], slots.suffixes[at], slots.sizes[at], slots.codes[at] = shape
    return tags, slots


def test_entries_read_by_shape_only_where_each_has_its_names() -> None:
    """``Slots.read_shaped`` reads the numbers only where every entry has its name's Shape,
    the first launches and those that repeat the last one's positions (a compiled struct)."""
    tags, slots = _two_shaped_slots()
    double = DOUBLE
    good = [tag + double + struct.pack("<d", n) + b"\x20\x00"
            for tag, n in zip(tags, (2.5, -7.0), strict=True)]
    other_suffix = [good[0], good[1][:-1] + b"\x01"]
    other_prefix = [good[0], tags[0] + double + struct.pack("<d", 3.0) + b"\x20\x00"]
    longer = [good[0], good[1] + b"\x00"]
    for _ in range(3):  # read anew, then the same positions again (compiled)
        assert slots.read_shaped([0, 1], good) == (2.5, -7.0)
        for bad in (other_suffix, other_prefix, longer):
            assert slots.read_shaped([0, 1], bad) is None
        assert slots.each_shaped([0, 1], other_suffix) == [True, False]
    assert slots.read_shaped([1], [good[1]]) == (-7.0,)


def _every_launch_read(path: Any) -> list[str]:
    from kernelscope.kinds.ncu.model.report import open_ncu_report
    from kernelscope.kinds.ncu.model.summary_reader import ROW_METRICS

    with open_ncu_report(path) as report:
        return [repr(list(metrics.read_metrics(report._result(i), ROW_METRICS).items()))
                for i in range(report.kernel_count)]


@pytest.mark.parametrize("name", ("many_launches", "small_family", "zoo"))
def test_a_launch_read_as_the_one_before_gives_what_the_general_reading_gives(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``metrics._read_as_before`` (the launch before missed the same entries, each with its
    Shape) answers as ``_read_missing``'s general reading does, where it answers."""
    path = NCU_SAMPLES / f"{name}.ncu-rep.xz"
    answered = []
    as_before = metrics._read_as_before

    def counted(*args: Any) -> bool:
        answered.append(as_before(*args))
        return answered[-1]

    monkeypatch.setattr(metrics, "_read_as_before", counted)
    quick = _every_launch_read(path)
    monkeypatch.setattr(metrics, "_read_as_before", lambda *args: False)
    assert _every_launch_read(path) == quick
    assert any(answered) or name != "many_launches"


def test_read_as_before_leaves_other_entries_to_the_general_reading() -> None:
    """A launch whose missing entries differ from the last one's, or whose entry has another
    length, prefix or suffix, or a wrapped counter, is not read as the one before."""
    tags, slots = _two_shaped_slots()
    double = DOUBLE

    def entry(at: int, number: float, suffix: bytes = b"\x20\x00") -> bytes:
        return tags[at] + double + struct.pack("<d", number) + suffix

    class _Result:
        names_table = type("Names", (), {"slotted": 0, "slots": {}})()

    result: Any = _Result()
    for _ in range(2):  # the same positions twice: compiled (``slots.last``)
        assert slots.read_shaped([0, 1], [entry(0, 1.0), entry(1, 2.0)]) == (1.0, 2.0)
    assert slots.last is not None
    for datas in ([entry(0, 1.0), entry(1, 2.0, b"\x20\x01")], [entry(0, 2.0**63), entry(1, 1.0)],
                  [entry(0, 1.0) + b"\x00", entry(1, 1.0)]):
        found: list[Any] = [None, None]
        assert not metrics._read_as_before(result, slots, datas, [0, 1], found)
        assert found == [None, None]
    found = [None, None]
    assert not metrics._read_as_before(result, slots, [entry(0, 1.0), entry(1, 2.0)], [1], found)
    assert metrics._read_as_before(result, slots, [entry(0, 3.0), entry(1, 4.0)], [0, 1], found)
    assert [(m.name, m.value) for m in found] == [("a", 3.0), ("b", 4.0)]


def test_positions_missed_in_turn_keep_their_compiled_reading() -> None:
    """Launches of several kernels in turn, each missing its own positions, are read with
    the ``Shaped`` kept for each (made the second time its positions are missed), and read
    what the general reading reads."""
    tags, slots = _two_shaped_slots()

    def entry(at: int, number: float) -> bytes:
        return tags[at] + DOUBLE + struct.pack("<d", number) + b"\x20\x00"

    for turn in range(3):
        for missing in ([0], [1], [0, 1]):
            kept = slots.known_shaped(missing)  # made at the second turn's reading
            assert (kept is not None) == (turn > 1)
            assert kept is None or kept.at == missing
            datas = [entry(at, turn + at / 2) for at in missing]
            read = slots.read_shaped(missing, datas)
            assert read == tuple(turn + at / 2 for at in missing)
            assert read == fixed_values(datas, [slots.codes[at] for at in missing])[1::3]
    assert slots.known_shaped([1, 0]) is None
