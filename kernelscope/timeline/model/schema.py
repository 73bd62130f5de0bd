"""The nsys SQLite export as kernelscope reads it: table names, enum labels, event types,
and for each table the columns read (export name -> model name) and their types."""

from __future__ import annotations

import polars as pl

I64 = pl.Int64
I32 = pl.Int32

KERNEL_TABLE = "CUPTI_ACTIVITY_KIND_KERNEL"
MEMCPY_TABLE = "CUPTI_ACTIVITY_KIND_MEMCPY"
MEMSET_TABLE = "CUPTI_ACTIVITY_KIND_MEMSET"
RUNTIME_TABLE = "CUPTI_ACTIVITY_KIND_RUNTIME"
OSRT_TABLE = "OSRT_API"
NVTX_TABLE = "NVTX_EVENTS"

# Labels nsys uses when the ENUM tables are missing from an export.
MEMCPY_LABELS = {
    0: "Unknown", 1: "Host-to-Device", 2: "Device-to-Host", 3: "Host-to-Array",
    4: "Array-to-Host", 5: "Array-to-Array", 6: "Array-to-Device", 7: "Device-to-Array",
    8: "Device-to-Device", 9: "Host-to-Host", 10: "Peer-to-Peer",
    11: "Unified Host-to-Device", 12: "Unified Device-to-Host", 13: "Unified Device-to-Device",
}
MEM_KIND_LABELS = {
    0: "Pageable", 1: "Pinned", 2: "Device", 3: "Array", 4: "Managed", 5: "Device Static",
    6: "Managed Static", 7: "Unknown",
}

# NVTX event types (ENUM_NSYS_EVENT_TYPE).
NVTX_MARK = 34
NVTX_PUSHPOP = 59
NVTX_STARTEND = 60
NVTXT_PUSHPOP = 70
NVTXT_STARTEND = 71
NVTX_DOMAIN_CREATE = 75
NVTX_RANGE_TYPES = (NVTX_PUSHPOP, NVTX_STARTEND, NVTXT_PUSHPOP, NVTXT_STARTEND)

KERNEL_SCHEMA = {
    "start": I64, "end": I64, "device_id": I64, "context_id": I64, "stream_id": I64,
    "correlation_id": I64, "global_pid": I64, "name_id": I64, "short_id": I64,
    "mangled_id": I64, "grid_x": I32, "grid_y": I32, "grid_z": I32, "block_x": I32,
    "block_y": I32, "block_z": I32, "graph_node_id": I64,
}
MEMCPY_SCHEMA = {
    "start": I64, "end": I64, "device_id": I64, "context_id": I64, "green_context_id": I64,
    "stream_id": I64, "correlation_id": I64, "global_pid": I64, "bytes": I64,
    "copy_kind": I64, "src_kind": I64, "dst_kind": I64, "src_device_id": I64,
    "dst_device_id": I64, "graph_node_id": I64,
}
MEMSET_SCHEMA = {
    "start": I64, "end": I64, "device_id": I64, "context_id": I64, "green_context_id": I64,
    "stream_id": I64, "correlation_id": I64, "global_pid": I64, "bytes": I64,
    "mem_kind": I64, "graph_node_id": I64,
}
API_SCHEMA = {
    "start": I64, "end": I64, "global_tid": I64, "correlation_id": I64, "name_id": I64,
}
OSRT_SCHEMA = {"start": I64, "end": I64, "global_tid": I64, "event_class": I64, "name_id": I64}
NVTX_SCHEMA = {
    "start": I64, "end": I64, "event_type": I64, "global_tid": I64, "domain_id": I64,
    "text": pl.String, "text_id": I64,
}

KERNEL_MAP = [
    ("start", "start"), ("end", "end"), ("deviceId", "device_id"), ("contextId", "context_id"),
    ("streamId", "stream_id"), ("correlationId", "correlation_id"),
    ("globalPid", "global_pid"), ("gridX", "grid_x"), ("gridY", "grid_y"),
    ("gridZ", "grid_z"), ("blockX", "block_x"), ("blockY", "block_y"), ("blockZ", "block_z"),
    ("graphNodeId", "graph_node_id"),
]
MEMCPY_MAP = [
    ("start", "start"), ("end", "end"), ("deviceId", "device_id"), ("contextId", "context_id"),
    ("greenContextId", "green_context_id"), ("streamId", "stream_id"),
    ("correlationId", "correlation_id"), ("globalPid", "global_pid"), ("bytes", "bytes"),
    ("copyKind", "copy_kind"), ("srcKind", "src_kind"), ("dstKind", "dst_kind"),
    ("srcDeviceId", "src_device_id"), ("dstDeviceId", "dst_device_id"),
    ("graphNodeId", "graph_node_id"),
]
MEMSET_MAP = [
    ("start", "start"), ("end", "end"), ("deviceId", "device_id"), ("contextId", "context_id"),
    ("greenContextId", "green_context_id"), ("streamId", "stream_id"),
    ("correlationId", "correlation_id"), ("globalPid", "global_pid"), ("bytes", "bytes"),
    ("memKind", "mem_kind"), ("graphNodeId", "graph_node_id"),
]
API_MAP = [("start", "start"), ("end", "end"), ("globalTid", "global_tid"),
           ("correlationId", "correlation_id"), ("nameId", "name_id")]
OSRT_MAP = [("start", "start"), ("end", "end"), ("globalTid", "global_tid"),
            ("eventClass", "event_class"), ("nameId", "name_id")]
OVERHEAD_MAP = [("start", "start"), ("end", "end"), ("globalTid", "global_tid"),
                ("nameId", "name_id")]
OVERHEAD_SCHEMA = {"start": I64, "end": I64, "global_tid": I64, "name_id": I64}
NVTX_MAP = [("start", "start"), ("end", "end"), ("eventType", "event_type"),
            ("globalTid", "global_tid"), ("domainId", "domain_id"), ("text", "text"),
            ("textId", "text_id")]
STRINGS_SCHEMA = {"id": I64, "value": pl.String}
SYNC_TABLE = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
SYNC_MAP = [("start", "start"), ("end", "end"), ("deviceId", "device_id"),
            ("streamId", "stream_id"), ("correlationId", "correlation_id"),
            ("globalPid", "global_pid"), ("syncType", "sync_type")]
SYNC_SCHEMA = {"start": I64, "end": I64, "device_id": I64, "stream_id": I64,
               "correlation_id": I64, "global_pid": I64, "sync_type": I64}
"""CUDA synchronisation records; ``sync_type`` as ENUM_CUPTI_SYNC_TYPE: 1 event synchronise,
2 stream wait event, 3 stream synchronise, 4 context synchronise."""
