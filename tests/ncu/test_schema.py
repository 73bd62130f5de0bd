"""The reader's protobuf schema: encoded by hand, it equals the one ``descriptor_pb2`` builds;
its classes, made through the upb runtime's own module, decode real reports as the classes
of the public API do."""

from __future__ import annotations

import io
import lzma

import pytest
from google.protobuf import descriptor_pb2

from kernelscope.kinds.ncu.model.container import read_layout
from kernelscope.kinds.ncu.model.file_format import schema
from kernelscope.kinds.ncu.model.file_format.result import MESSAGE_OF
from tests.conftest import NCU_SAMPLES

_TYPES = descriptor_pb2.FieldDescriptorProto


def _built_with_descriptor_pb2() -> descriptor_pb2.FileDescriptorProto:
    """The schema's FileDescriptorProto made from ``MESSAGES`` by protobuf's own classes."""
    proto = descriptor_pb2.FileDescriptorProto(
        name="kernelscope_ncu_report.proto", package=schema.PACKAGE, syntax="proto2")
    for name, fields in schema.MESSAGES.items():
        message = proto.message_type.add(name=name)
        for field_name, number, kind, repeated in fields:
            field = message.field.add(
                name=field_name, number=number,
                label=_TYPES.LABEL_REPEATED if repeated else _TYPES.LABEL_OPTIONAL)
            if kind in schema.MESSAGES:
                field.type = _TYPES.TYPE_MESSAGE
                field.type_name = f".{schema.PACKAGE}.{kind}"
            else:
                field.type = _TYPES.Type.Value(f"TYPE_{kind.upper()}")
    return proto


def test_the_encoded_schema_is_the_one_descriptor_pb2_builds() -> None:
    expected = _built_with_descriptor_pb2()
    encoded = schema.file_descriptor()
    decoded = descriptor_pb2.FileDescriptorProto.FromString(encoded)
    assert decoded.name == expected.name
    assert decoded.package == expected.package
    assert decoded.syntax == expected.syntax
    assert [m.name for m in decoded.message_type] == [m.name for m in expected.message_type]
    for got, want in zip(decoded.message_type, expected.message_type, strict=True):
        assert list(got.field) == list(want.field), got.name
    assert encoded == expected.SerializeToString()


def test_every_message_class_has_the_fields_of_the_schema() -> None:
    """The classes the runtime made from the encoded bytes, read back as descriptor protos."""
    expected = {m.name: m for m in _built_with_descriptor_pb2().message_type}
    assert set(schema.CLASSES) == set(expected)
    for name, cls in schema.CLASSES.items():
        made = descriptor_pb2.DescriptorProto()
        cls.DESCRIPTOR.CopyToProto(made)
        assert made == expected[name], name


@pytest.mark.parametrize("sample", ["zoo", "range_nvtx", "gemm_sets_full"])
def test_the_classes_decode_real_results_as_the_public_api_s_do(sample: str) -> None:
    """Every result of the report, in each of its three readings (whole, lean, sections
    alone), decoded by both sets of classes: the same fields, the same bytes."""
    data = lzma.decompress((NCU_SAMPLES / f"{sample}.ncu-rep.xz").read_bytes())
    layout = read_layout(io.BytesIO(data), sample)
    public = schema.public_classes()
    assert layout.results
    for info in layout.results:
        full = MESSAGE_OF[info.kind].DESCRIPTOR.name
        names = (full, schema.LEAN[full], schema.SECTIONS_ONLY[full])
        encoded = data[info.offset:info.offset + info.size]
        for name in names:
            ours = schema.CLASSES[name].FromString(encoded)
            theirs = public[name].FromString(encoded)
            assert str(ours) == str(theirs), name
            assert ours.SerializeToString() == theirs.SerializeToString(), name
