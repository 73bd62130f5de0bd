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

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

PACKAGE = "kernelscope.ncu"

_OPT, _REP = 1, 3  # field labels
_T = descriptor_pb2.FieldDescriptorProto
_SCALAR = {
    "string": _T.TYPE_STRING,
    "bytes": _T.TYPE_BYTES,
    "float": _T.TYPE_FLOAT,
    "double": _T.TYPE_DOUBLE,
    "uint32": _T.TYPE_UINT32,
    "uint64": _T.TYPE_UINT64,
    "int32": _T.TYPE_INT32,
    "int64": _T.TYPE_INT64,
    "bool": _T.TYPE_BOOL,
}

# message -> ((field, number, type, repeated), ...). A type that is not a scalar names a
# message of this schema (enums are read as plain int32: the numbers are what matter).
_METRIC_LIST = (("metrics", 1, "SectionMetric", True),)
MESSAGES: dict[str, tuple[tuple[str, int, str, bool], ...]] = {
    "FileHeader": (("version", 1, "uint32", False),),
    "StringTable": (("strings", 1, "string", True),),
    "ProcessInfo": (
        ("process_id", 1, "uint32", False),
        ("hostname", 2, "string", False),
        ("process_name", 3, "string", False),
    ),
    "MetricValue": (
        ("string_value", 1, "string", False),
        ("float_value", 2, "float", False),
        ("double_value", 3, "double", False),
        ("uint32_value", 4, "uint32", False),
        ("uint64_value", 5, "uint64", False),
    ),
    "MetricListElement": (
        ("correlation_id", 1, "MetricValue", False),
        ("element_value", 2, "MetricValue", False),
    ),
    "MetricResult": (
        ("name_id", 1, "uint32", False),
        ("metric_value", 2, "MetricValue", False),
        ("metric_value_list", 3, "MetricListElement", True),
    ),
    "DeviceAttribute": (("name", 1, "string", False), ("value", 2, "MetricValue", False)),
    "DeviceAttributes": (
        ("id", 1, "uint32", False),
        ("name", 2, "string", False),
        ("attributes", 3, "DeviceAttribute", True),
    ),
    "DeviceProperty": (("key", 1, "string", False), ("value", 2, "string", False)),
    "DeviceProperties": (("properties", 1, "DeviceProperty", True),),
    "SystemInfo": (
        ("os_name", 1, "string", False),
        ("build", 2, "string", False),
        ("processor", 3, "string", False),
        ("architecture", 4, "string", False),
        ("computer_name", 5, "string", False),
    ),
    "VersionInfo": (("provider", 1, "string", False), ("version", 2, "string", False)),
    "SessionDetails": (
        ("process_id", 1, "uint32", False),
        ("creation_time", 2, "uint64", False),
        ("host_system", 3, "SystemInfo", False),
        ("target_system", 4, "SystemInfo", False),
        ("device_properties", 5, "DeviceProperties", False),
        ("device_attributes", 6, "DeviceAttributes", True),
        ("comments", 7, "string", False),
        ("version_info", 8, "VersionInfo", True),
        ("profiler_cmdline", 11, "string", False),
    ),
    "BlockHeader": (
        ("num_sources", 1, "uint32", False),
        ("num_results", 2, "uint32", False),
        ("session_details", 3, "SessionDetails", False),
        ("string_table", 4, "StringTable", False),
        ("payload_size", 5, "uint32", False),
        ("process", 6, "ProcessInfo", False),
        ("num_range_results", 7, "uint32", False),
        ("num_cmdlist_results", 8, "uint32", False),
        ("num_graph_results", 9, "uint32", False),
    ),
    "SourceFile": (("file_name", 1, "string", False), ("content", 2, "string", False)),
    "SourceFiles": (("files", 1, "SourceFile", True),),
    "SourceData": (
        ("reference", 1, "uint64", False),
        ("binary", 4, "bytes", False),
        ("cuda_sm_version", 6, "uint32", False),
        ("source_files", 8, "SourceFiles", False),
    ),
    "Uint64x3": (("x", 1, "uint64", False), ("y", 2, "uint64", False), ("z", 3, "uint64", False)),
    # Sections: their identifiers and the metrics of their header and body tables.
    "SectionMetric": (("name", 1, "string", False), ("label", 2, "string", False)),
    "SectionHeader": (("metrics", 2, "SectionMetric", True),),
    "SectionTable": (("metrics", 5, "SectionMetric", True),),
    "SectionBarChart": (("metrics", 5, "SectionMetric", True),),
    "SectionHistogram": (("metric", 4, "SectionMetric", False),),
    "SectionLineChart": (("metrics", 4, "SectionMetric", True),),
    "SectionContainer": (("items", 1, "SectionBodyItem", True),),
    "SectionBodyItem": (
        ("table", 1, "SectionTable", False),
        ("bar_chart", 2, "SectionBarChart", False),
        ("histogram", 3, "SectionHistogram", False),
        ("line_chart", 4, "SectionLineChart", False),
        ("container", 5, "SectionContainer", False),
    ),
    "SectionBody": (("items", 1, "SectionBodyItem", True),),
    "SectionMetrics": _METRIC_LIST,
    "Section": (
        ("identifier", 1, "string", False),
        ("display_name", 2, "string", False),
        ("order", 3, "uint32", False),
        ("header", 4, "SectionHeader", False),
        ("body", 5, "SectionBody", True),
        ("metrics", 6, "SectionMetrics", False),
    ),
    # Rule results: messages, estimated speedups, focus metrics.
    "RuleMessage": (
        ("message", 1, "string", False),
        ("type", 2, "int32", False),
        ("id", 3, "int32", False),
        ("name", 4, "string", False),
    ),
    "RuleSpeedup": (("speedup_type", 1, "int32", False), ("value", 2, "double", False)),
    "RuleFocusMetric": (
        ("message_id", 1, "int32", False),
        ("metric_name", 2, "string", False),
        ("metric_value", 3, "double", False),
        ("info", 5, "string", False),
    ),
    "RuleBodyItem": (
        ("message", 1, "RuleMessage", False),
        ("focus_metrics", 8, "RuleFocusMetric", True),
        ("speedup", 10, "RuleSpeedup", False),
    ),
    "RuleBody": (("items", 1, "RuleBodyItem", True),),
    "RuleResult": (
        ("identifier", 1, "string", False),
        ("display_name", 2, "string", False),
        ("body", 3, "RuleBody", False),
        ("section_identifier", 4, "string", False),
    ),
    # NVTX state at the launch: domains, each thread's push/pop stacks, start/end ranges.
    "NvtxDomainInfo": (("id", 1, "uint64", False), ("name", 2, "string", False)),
    "NvtxPushPopRange": (("name", 1, "string", False),),
    "NvtxPushPopDomain": (("id", 1, "uint64", False), ("stack", 3, "NvtxPushPopRange", True)),
    "NvtxThread": (("tid", 1, "uint32", False), ("push_pop_domains", 2, "NvtxPushPopDomain", True)),
    "NvtxStartEndRange": (("id", 1, "uint64", False), ("name", 2, "string", False)),
    "NvtxStartEndDomain": (("id", 1, "uint64", False), ("ranges", 3, "NvtxStartEndRange", True)),
    "NvtxState": (
        ("domains", 1, "NvtxDomainInfo", True),
        ("threads", 2, "NvtxThread", True),
        ("start_end_domains", 3, "NvtxStartEndDomain", True),
        ("default_domain", 4, "uint64", False),
    ),
    "ProfileResult": (
        ("thread_id", 1, "uint32", False),
        ("api_call_id", 2, "uint64", False),
        ("kernel_id", 4, "uint64", False),
        ("mangled_name", 5, "string", False),
        ("function_name", 6, "string", False),
        ("demangled_name", 7, "string", False),
        ("grid_size", 10, "Uint64x3", False),
        ("block_size", 11, "Uint64x3", False),
        ("metric_results", 13, "MetricResult", True),
        ("source", 15, "SourceData", False),
        ("sections", 17, "Section", True),
        ("rule_results", 19, "RuleResult", True),
        ("nvtx", 21, "NvtxState", False),
        ("context_id", 22, "uint32", False),
        ("stream_id", 23, "uint32", False),
    ),
    "RangeResult": (
        ("thread_id", 1, "uint32", False),
        ("api_call_id", 2, "uint64", False),
        ("metric_results", 4, "MetricResult", True),
        ("sections", 7, "Section", True),
        ("nvtx", 10, "NvtxState", False),
        ("context_id", 11, "uint32", False),
        ("references", 15, "uint64", True),
        ("rule_results", 20, "RuleResult", True),
    ),
    "CmdlistResult": (
        ("thread_id", 1, "uint32", False),
        ("api_call_id", 2, "uint64", False),
        ("metric_results", 4, "MetricResult", True),
        ("sections", 7, "Section", True),
        ("nvtx", 10, "NvtxState", False),
        ("context_id", 11, "uint32", False),
        ("stream_id", 12, "uint32", False),
        ("references", 17, "uint64", True),
        ("display_name", 18, "string", False),
        ("rule_results", 21, "RuleResult", True),
    ),
    "GraphResult": (
        ("thread_id", 1, "uint32", False),
        ("api_call_id", 2, "uint64", False),
        ("metric_results", 4, "MetricResult", True),
        ("sections", 7, "Section", True),
        ("nvtx", 10, "NvtxState", False),
        ("context_id", 11, "uint32", False),
        ("stream_id", 12, "uint32", False),
        ("references", 17, "uint64", True),
        ("rule_results", 22, "RuleResult", True),
    ),
}


MESSAGES["SectionId"] = (("identifier", 1, "string", False),)
LEAN = {"ProfileResult": "LeanProfileResult", "RangeResult": "LeanRangeResult",
        "CmdlistResult": "LeanCmdlistResult", "GraphResult": "LeanGraphResult"}
"""The list pass decodes lean results: each metric kept as its encoded bytes (a MetricResult
starts with its string-table id, ``NameId = 1``), read on demand, and sections by
identifier only; so a result of 2,000 metrics costs no Python object per metric."""
for _full, _lean in LEAN.items():
    MESSAGES[_lean] = tuple(
        ("metric_bytes", number, "bytes", True) if name == "metric_results"
        else ("sections", number, "SectionId", True) if name == "sections"
        else (name, number, kind, repeated)
        for name, number, kind, repeated in MESSAGES[_full]
    )


def _file() -> descriptor_pb2.FileDescriptorProto:
    proto = descriptor_pb2.FileDescriptorProto(
        name="kernelscope_ncu_report.proto", package=PACKAGE, syntax="proto2"
    )
    for name, fields in MESSAGES.items():
        message = proto.message_type.add(name=name)
        for field_name, number, kind, repeated in fields:
            field = message.field.add(
                name=field_name, number=number, label=_REP if repeated else _OPT
            )
            if kind in _SCALAR:
                field.type = _SCALAR[kind]  # type: ignore[assignment]
            else:
                field.type = _T.TYPE_MESSAGE  # type: ignore[assignment]
                field.type_name = f".{PACKAGE}.{kind}"
    return proto


def _classes() -> dict[str, Any]:
    pool = descriptor_pool.DescriptorPool()
    pool.Add(_file())
    return {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{PACKAGE}.{name}"))
        for name in MESSAGES
    }


CLASSES = _classes()
FileHeader = CLASSES["FileHeader"]
BlockHeader = CLASSES["BlockHeader"]
SourceData = CLASSES["SourceData"]
ProfileResult = CLASSES["ProfileResult"]
RangeResult = CLASSES["RangeResult"]
CmdlistResult = CLASSES["CmdlistResult"]
GraphResult = CLASSES["GraphResult"]
MetricResult = CLASSES["MetricResult"]
LeanProfileResult = CLASSES["LeanProfileResult"]
LeanRangeResult = CLASSES["LeanRangeResult"]
LeanCmdlistResult = CLASSES["LeanCmdlistResult"]
LeanGraphResult = CLASSES["LeanGraphResult"]
