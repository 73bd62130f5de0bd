"""Kineto events into columns: one pass over each parsed piece, one frame per category.

Times stay as Kineto writes them (``ts``/``dur``: float microseconds) beside integer
nanoseconds (``start``/``end``): HTA's numbers are defined on the former (it rounds each
event inward to whole microseconds), the timeline's on the latter.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import polars as pl

GPU_CATS = {"kernel": "kernel", "Kernel": "kernel", "gpu_memcpy": "memcpy", "Memcpy": "memcpy",
            "gpu_memset": "memset", "Memset": "memset", "cuda_sync": "sync"}
"""GPU activity categories (the capitalised ones are older PyTorch's) and what each is."""
RUNTIME_CATS = frozenset({"cuda_runtime", "cuda_driver", "Runtime", "Driver"})
CPU_CATS = frozenset({"cpu_op", "user_annotation", "python_function", "Operator",
                      "gpu_user_annotation"})

GPU_SCHEMA = {
    "kind": pl.String, "name": pl.String, "ts": pl.Float64, "dur": pl.Float64,
    "device": pl.Int64, "stream": pl.Int64, "correlation": pl.Int64, "external_id": pl.Int64,
    "grid_x": pl.Int32, "grid_y": pl.Int32, "grid_z": pl.Int32, "block_x": pl.Int32,
    "block_y": pl.Int32, "block_z": pl.Int32, "bytes": pl.Int64, "pid": pl.Int64,
    "tid": pl.Int64,
}
RUNTIME_SCHEMA = {
    "name": pl.String, "ts": pl.Float64, "dur": pl.Float64, "pid": pl.Int64, "tid": pl.Int64,
    "correlation": pl.Int64, "external_id": pl.Int64, "driver": pl.Boolean,
}
CPU_SCHEMA = {
    "cat": pl.String, "name": pl.String, "ts": pl.Float64, "dur": pl.Float64, "pid": pl.Int64,
    "tid": pl.Int64, "external_id": pl.Int64,
}
FLOW_SCHEMA = {"phase": pl.String, "id": pl.Int64, "ts": pl.Float64, "pid": pl.Int64,
               "tid": pl.Int64}
NAME_SCHEMA = {"what": pl.String, "pid": pl.Int64, "tid": pl.Int64, "name": pl.String}


def _int(value: Any, default: int | None = None) -> int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value == value:
        return int(value)
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return default
    return default


def _xyz(value: Any) -> tuple[int | None, int | None, int | None]:
    if isinstance(value, list) and len(value) == 3:
        return _int(value[0]), _int(value[1]), _int(value[2])
    return None, None, None


class Collector:
    """Columns of every category, filled piece by piece and turned into frames once."""

    def __init__(self) -> None:
        self.gpu: list[pl.DataFrame] = []
        self.runtime: list[pl.DataFrame] = []
        self.cpu: list[pl.DataFrame] = []
        self.flows: list[pl.DataFrame] = []
        self.names: list[pl.DataFrame] = []
        self.events = 0

    def add(self, events: Iterable[dict[str, Any]]) -> None:
        gpu: list[tuple[Any, ...]] = []
        runtime: list[tuple[Any, ...]] = []
        cpu: list[tuple[Any, ...]] = []
        flows: list[tuple[Any, ...]] = []
        names: list[tuple[Any, ...]] = []
        for event in events:
            self.events += 1
            phase = event.get("ph")
            if phase == "X":
                self._complete(event, gpu, runtime, cpu)
            elif phase in ("s", "f") and event.get("cat") == "ac2g":
                flows.append((phase, _int(event.get("id")), event.get("ts"),
                              _int(event.get("pid")), _int(event.get("tid"))))
            elif phase == "M" and event.get("name") in ("process_name", "thread_name"):
                args = event.get("args") or {}
                names.append((event["name"], _int(event.get("pid")), _int(event.get("tid")),
                              str(args.get("name", ""))))
        self.gpu.append(pl.DataFrame(gpu, schema=GPU_SCHEMA, orient="row"))
        self.runtime.append(pl.DataFrame(runtime, schema=RUNTIME_SCHEMA, orient="row"))
        self.cpu.append(pl.DataFrame(cpu, schema=CPU_SCHEMA, orient="row"))
        self.flows.append(pl.DataFrame(flows, schema=FLOW_SCHEMA, orient="row"))
        self.names.append(pl.DataFrame(names, schema=NAME_SCHEMA, orient="row"))

    @staticmethod
    def _complete(event: dict[str, Any], gpu: list[tuple[Any, ...]],
                  runtime: list[tuple[Any, ...]], cpu: list[tuple[Any, ...]]) -> None:
        cat = event.get("cat")
        ts, dur = event.get("ts"), event.get("dur")
        if not isinstance(ts, (int, float)) or not isinstance(dur, (int, float)):
            return
        args = event.get("args") or {}
        name = str(event.get("name", ""))
        if cat in GPU_CATS:
            stream = _int(args.get("stream"), -1)
            gpu.append((
                GPU_CATS[cat], name, float(ts), float(dur),
                _int(args.get("device"), _int(event.get("pid"))), stream,
                _int(args.get("correlation"), -1), _int(args.get("External id")),
                *_xyz(args.get("grid")), *_xyz(args.get("block")), _int(args.get("bytes")),
                _int(event.get("pid")), _int(event.get("tid")),
            ))
        elif cat in RUNTIME_CATS:
            runtime.append((name, float(ts), float(dur), _int(event.get("pid")),
                            _int(event.get("tid")), _int(args.get("correlation"), -1),
                            _int(args.get("External id")), cat in ("cuda_driver", "Driver")))
        elif cat in CPU_CATS:
            cpu.append((cat, name, float(ts), float(dur), _int(event.get("pid")),
                        _int(event.get("tid")), _int(args.get("External id"))))

    def frames(self) -> dict[str, pl.DataFrame]:
        def join(parts: list[pl.DataFrame], schema: dict[str, Any]) -> pl.DataFrame:
            return pl.concat(parts) if parts else pl.DataFrame(schema=schema)

        return {
            "gpu": join(self.gpu, GPU_SCHEMA), "runtime": join(self.runtime, RUNTIME_SCHEMA),
            "cpu": join(self.cpu, CPU_SCHEMA), "flows": join(self.flows, FLOW_SCHEMA),
            "names": join(self.names, NAME_SCHEMA),
        }
