"""kernelscope's own protobuf schema of Nsight Compute reports: only the fields it reads.

The facts (message layout, field numbers and types) come from the format NVIDIA documents:
the protobuf definitions every Nsight Compute install ships in ``extras/FileFormat/`` and
the Customization Guide's description of the file (``NVR\\0``, a size-prefixed FileHeader,
then blocks of a size-prefixed BlockHeader followed by its SourceData and result messages).
The schema below is written here, field by field, from those facts: every message names
only what kernelscope uses, so the protobuf runtime keeps the rest as unknown bytes that
are never looked at. The descriptors are built in Python (no generated code, no ``protoc``).
"""

from __future__ import annotations

from typing import Any

from google.protobuf.internal import api_implementation
from google.protobuf.message import DecodeError, Message

from kernelscope.core.errors import ReportError

PACKAGE = "kernelscope.ncu"

_OPT, _REP = 1, 3  # field labels
_MESSAGE = 11  # the field type of a message of this schema
_SCALAR = {  # descriptor.proto's FieldDescriptorProto.Type numbers
    "double": 1,
    "float": 2,
    "int64": 3,
    "uint64": 4,
    "int32": 5,
    "bool": 8,
    "string": 9,
    "bytes": 12,
    "uint32": 13,
}

# message -> its fields, "name=number:type" each, "*" after the type for a repeated field. A
# type that is not a scalar names a message of this schema (enums are read as plain int32:
# the numbers are what matter).


def _fields(spec: str) -> tuple[tuple[str, int, str, bool], ...]:
    """``"version=1:uint32 strings=2:string*"`` -> ((name, number, type, repeated), ...)."""
    out = []
    for field in spec.split():
        name, _, rest = field.partition("=")
        number, _, kind = rest.partition(":")
        out.append((name, int(number), kind.rstrip("*"), kind.endswith("*")))
    return tuple(out)


MESSAGES: dict[str, tuple[tuple[str, int, str, bool], ...]] = {
    "FileHeader": _fields("version=1:uint32"),
    "StringTable": _fields("strings=1:string*"),
    "ProcessInfo": _fields("process_id=1:uint32 hostname=2:string process_name=3:string"),
    "MetricValue": _fields(
        "string_value=1:string float_value=2:float double_value=3:double uint32_value=4:uint32 "
        "uint64_value=5:uint64"
    ),
    "MetricListElement": _fields("correlation_id=1:MetricValue element_value=2:MetricValue"),
    "MetricResult": _fields(
        "name_id=1:uint32 metric_value=2:MetricValue metric_value_list=3:MetricListElement*"
    ),
    "MetricBag": _fields("results=1:MetricResult*"),
    "DeviceAttribute": _fields("name=1:string value=2:MetricValue"),
    "DeviceAttributes": _fields("id=1:uint32 name=2:string attributes=3:DeviceAttribute*"),
    "DeviceProperty": _fields("key=1:string value=2:string"),
    "DeviceProperties": _fields("properties=1:DeviceProperty*"),
    "SystemInfo": _fields(
        "os_name=1:string build=2:string processor=3:string architecture=4:string "
        "computer_name=5:string"
    ),
    "VersionInfo": _fields("provider=1:string version=2:string"),
    "SessionDetails": _fields(
        "process_id=1:uint32 creation_time=2:uint64 host_system=3:SystemInfo "
        "target_system=4:SystemInfo device_properties=5:DeviceProperties "
        "device_attributes=6:DeviceAttributes* comments=7:string version_info=8:VersionInfo* "
        "profiler_cmdline=11:string"
    ),
    "BlockHeader": _fields(
        "num_sources=1:uint32 num_results=2:uint32 session_details=3:SessionDetails "
        "string_table=4:StringTable payload_size=5:uint32 process=6:ProcessInfo "
        "num_range_results=7:uint32 num_cmdlist_results=8:uint32 num_graph_results=9:uint32"
    ),
    "SourceFile": _fields("file_name=1:string content=2:string"),
    "SourceFiles": _fields("files=1:SourceFile*"),
    "SourceData": _fields(
        "reference=1:uint64 binary=4:bytes cuda_sm_version=6:uint32 source_files=8:SourceFiles"
    ),
    "Uint64x3": _fields("x=1:uint64 y=2:uint64 z=3:uint64"),
    "SectionMetric": _fields("name=1:string label=2:string"),
    "SectionHeader": _fields("metrics=2:SectionMetric*"),
    "SectionTable": _fields("metrics=5:SectionMetric*"),
    "SectionBarChart": _fields("metrics=5:SectionMetric*"),
    "SectionHistogram": _fields("metric=4:SectionMetric"),
    "SectionLineChart": _fields("metrics=4:SectionMetric*"),
    "SectionContainer": _fields("items=1:SectionBodyItem*"),
    "SectionBodyItem": _fields(
        "table=1:SectionTable bar_chart=2:SectionBarChart histogram=3:SectionHistogram "
        "line_chart=4:SectionLineChart container=5:SectionContainer"
    ),
    "SectionBody": _fields("items=1:SectionBodyItem*"),
    "SectionMetrics": _fields("metrics=1:SectionMetric*"),
    "Section": _fields(
        "identifier=1:string display_name=2:string order=3:uint32 header=4:SectionHeader "
        "body=5:SectionBody* metrics=6:SectionMetrics"
    ),
    "RuleMessage": _fields("message=1:string type=2:int32 id=3:int32 name=4:string"),
    "RuleSpeedup": _fields("speedup_type=1:int32 value=2:double"),
    "RuleBodyItem": _fields("message=1:RuleMessage speedup=10:RuleSpeedup"),
    "RuleBody": _fields("items=1:RuleBodyItem*"),
    "RuleResult": _fields(
        "identifier=1:string display_name=2:string body=3:RuleBody section_identifier=4:string"
    ),
    "NvtxDomainInfo": _fields("id=1:uint64 name=2:string"),
    "NvtxPushPopRange": _fields("name=1:string"),
    "NvtxPushPopDomain": _fields("id=1:uint64 stack=3:NvtxPushPopRange*"),
    "NvtxThread": _fields("tid=1:uint32 push_pop_domains=2:NvtxPushPopDomain*"),
    "NvtxStartEndRange": _fields("id=1:uint64 name=2:string"),
    "NvtxStartEndDomain": _fields("id=1:uint64 ranges=3:NvtxStartEndRange*"),
    "NvtxState": _fields(
        "domains=1:NvtxDomainInfo* threads=2:NvtxThread* "
        "start_end_domains=3:NvtxStartEndDomain* default_domain=4:uint64"
    ),
    "ProfileResult": _fields(
        "thread_id=1:uint32 api_call_id=2:uint64 kernel_id=4:uint64 mangled_name=5:string "
        "function_name=6:string demangled_name=7:string grid_size=10:Uint64x3 "
        "block_size=11:Uint64x3 metric_results=13:MetricResult* source=15:SourceData "
        "sections=17:Section* rule_results=19:RuleResult* nvtx=21:NvtxState "
        "context_id=22:uint32 stream_id=23:uint32"
    ),
    "RangeResult": _fields(
        "thread_id=1:uint32 api_call_id=2:uint64 metric_results=4:MetricResult* "
        "sections=7:Section* nvtx=10:NvtxState context_id=11:uint32 references=15:uint64* "
        "rule_results=20:RuleResult*"
    ),
    "CmdlistResult": _fields(
        "thread_id=1:uint32 api_call_id=2:uint64 metric_results=4:MetricResult* "
        "sections=7:Section* nvtx=10:NvtxState context_id=11:uint32 stream_id=12:uint32 "
        "references=17:uint64* display_name=18:string rule_results=21:RuleResult*"
    ),
    "GraphResult": _fields(
        "thread_id=1:uint32 api_call_id=2:uint64 metric_results=4:MetricResult* "
        "sections=7:Section* nvtx=10:NvtxState context_id=11:uint32 stream_id=12:uint32 "
        "references=17:uint64* rule_results=22:RuleResult*"
    ),
}


MESSAGES["SectionId"] = (("identifier", 1, "string", False),)
MESSAGES["RuleIdentifier"] = MESSAGES["SectionId"]
"""A RuleResult read for its rule's identifier alone (its body stays unknown bytes)."""
LEAN = {"ProfileResult": "LeanProfileResult", "RangeResult": "LeanRangeResult",
        "CmdlistResult": "LeanCmdlistResult", "GraphResult": "LeanGraphResult"}
"""The list pass decodes lean results: each metric kept as its encoded bytes (a MetricResult
starts with its string-table id, ``NameId = 1``), read on demand, and the sections and
rule results encoded (launches of one kernel often repeat them, so what readers make of
them is remembered by their bytes; a section's identifier is its first field alone
decoded, ``SectionId``); so a result of 2,000 metrics costs no Python object per metric,
and its sections are not decoded again for their bytes."""
for _full, _lean in LEAN.items():
    MESSAGES[_lean] = tuple(
        ("metric_bytes", number, "bytes", True) if name == "metric_results"
        else ("section_bytes", number, "bytes", True) if name == "sections"
        else ("rule_bytes", number, "bytes", True) if name == "rule_results"
        else (name, number, kind, repeated)
        for name, number, kind, repeated in MESSAGES[_full]
    )
SECTIONS_ONLY = {full: f"Sections{full}" for full in LEAN}
"""Each result's sections alone, whole (the Markdown and JSON exports read their tables of
every kernel): the metrics stay unknown bytes, which the protobuf runtime skips."""
for _full, _only in SECTIONS_ONLY.items():
    MESSAGES[_only] = tuple(f for f in MESSAGES[_full] if f[0] == "sections")

def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _field(number: int, value: int | str | bytes) -> bytes:
    """One field of a protobuf message as the wire format has it: an int as a varint, text
    and bytes (a nested message's included) length-delimited."""
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    data = value.encode() if isinstance(value, str) else value
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _field_proto(name: str, number: int, kind: str, repeated: bool) -> bytes:
    """A FieldDescriptorProto: name = 1, number = 3, label = 4, type = 5, type_name = 6."""
    head = _field(1, name) + _field(3, number) + _field(4, _REP if repeated else _OPT)
    if kind in _SCALAR:
        return head + _field(5, _SCALAR[kind])
    return head + _field(5, _MESSAGE) + _field(6, f".{PACKAGE}.{kind}")


def file_descriptor() -> bytes:
    """The schema as an encoded FileDescriptorProto of descriptor.proto (name = 1, package = 2,
    message_type = 4: DescriptorProto's name = 1 and field = 2 each, syntax = 12), written
    here rather than through ``descriptor_pb2``, whose import and message objects cost more
    than the whole schema (tests/ncu/test_schema.py builds it both ways)."""
    messages = b"".join(
        _field(4, _field(1, name) + b"".join(_field(2, _field_proto(*f)) for f in fields))
        for name, fields in MESSAGES.items()
    )
    return (_field(1, "kernelscope_ncu_report.proto") + _field(2, PACKAGE) + messages
            + _field(12, "proto2"))


def public_classes() -> dict[str, Any]:
    """Every message class by its name, made by the public API from a pool of their own."""
    from google.protobuf import descriptor_pool, message_factory

    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(file_descriptor())
    return {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{PACKAGE}.{name}"))
        for name in MESSAGES
    }


def _classes() -> dict[str, Any]:
    """Every message class by its name. With the upb runtime (protobuf's default) its pool and
    message metaclass make them as ``message_factory.GetMessageClass`` does, but without
    ``descriptor_pool``'s import of the pure-Python implementation (``python_message``,
    ``text_format``, ``well_known_types``: ~8 ms before the kernel list's first rows) that
    upb never runs. Another runtime gets them from :func:`public_classes`. Both are built
    from the same bytes (tests/ncu/test_schema.py decodes real reports with each)."""
    if api_implementation.Type() != "upb":
        return public_classes()
    try:  # (a private module: a protobuf that moves it gets the public API's classes)
        from google._upb import _message as upb

        pool = upb.DescriptorPool()
        pool.AddSerializedFile(file_descriptor())
        return {
            name: upb.MessageMeta(name, (Message,), {
                "DESCRIPTOR": pool.FindMessageTypeByName(f"{PACKAGE}.{name}"),
                "__module__": None})
            for name in MESSAGES
        }
    except (ImportError, AttributeError, TypeError):
        return public_classes()


CLASSES = _classes()
"""Every message class by its name."""


def decode(cls: Any, data: bytes, where: str) -> Any:
    """``data`` decoded as ``cls``; ReportError naming ``where`` when it is not one."""
    try:
        return cls.FromString(data)
    except DecodeError:
        raise ReportError(f"{where} cannot be read: the report is damaged there.") from None


def __getattr__(name: str) -> Any:
    """``from ...schema import ProfileResult`` (any message: ``FileHeader``, ``BlockHeader``,
    ``SourceData``, ``LeanProfileResult``, ...) reads the class from ``CLASSES``."""
    try:
        return CLASSES[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
