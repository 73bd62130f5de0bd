"""Kineto events into columns, one frame per category: each piece of the event array read
by polars straight into columns (:func:`read_piece`), or, for a piece polars cannot type,
parsed by orjson and picked over in one Python pass (:meth:`Collector.rows`).

The operators' shapes (``record_shapes=True``: a ``cpu_op``'s ``Input Dims``, ``Input type``,
``Concrete Inputs`` and ``Input Strides``) nest lists to any depth, which polars cannot type;
a piece whose text holds ``"Input Dims"`` is also parsed by orjson in the same pass, and only
those members are kept (:func:`shapes_of`). A trace without shapes pays one substring
search a piece.

Times stay as Kineto writes them (``ts``/``dur``: float microseconds) beside integer
nanoseconds (``start``/``end``): HTA's numbers are defined on the former (it rounds each
event inward to whole microseconds), the timeline's on the latter.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any, NamedTuple

import orjson
import polars as pl

from kernelscope.kinds.kineto.model.stream import parse_events

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
COMMS_SCHEMA = {
    "cat": pl.String, "name": pl.String, "ts": pl.Float64, "correlation": pl.Int64,
    "external_id": pl.Int64, "collective": pl.String, "group": pl.String, "dtype": pl.String,
    "in_nelems": pl.Int64, "out_nelems": pl.Int64, "seq": pl.Int64,
}
"""The events carrying a collective's metadata (``args["Collective name"]``): PyTorch's
``record_param_comms`` operator and the NCCL kernels Kineto copies it onto."""
COMMS_ARGS = {"collective": "Collective name", "group": "Process Group Name",
              "dtype": "dtype", "in_nelems": "In msg nelems", "out_nelems": "Out msg nelems"}
SEQ_ARGS = ("Seq", "seq")
"""Newer PyTorch numbers each process group's collectives (``Seq``)."""
SCHEMAS = {key: pl.Schema(schema) for key, schema in (
    ("gpu", GPU_SCHEMA), ("runtime", RUNTIME_SCHEMA), ("cpu", CPU_SCHEMA),
    ("flows", FLOW_SCHEMA), ("names", NAME_SCHEMA), ("comms", COMMS_SCHEMA))}


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


_TEXT, _NUMBER, _INT = pl.String(), pl.Float64(), pl.Int64()
RAW_SCHEMA = pl.Schema({
    "ph": _TEXT, "cat": _TEXT, "name": _TEXT, "ts": _NUMBER, "dur": _NUMBER, "pid": _TEXT,
    "tid": _TEXT, "id": _TEXT,
    "args": pl.Struct({"device": _INT, "stream": _INT, "correlation": _INT,
                       "External id": _INT, "grid": pl.List(_INT), "block": pl.List(_INT),
                       "bytes": _INT, "name": _TEXT, "Collective name": _TEXT,
                       "Process Group Name": _TEXT, "dtype": _TEXT, "In msg nelems": _INT,
                       "Out msg nelems": _INT, "Seq": _INT, "seq": _INT}),
})
"""The members of an event read by polars (the rest is skipped). ``pid``, ``tid`` and
``id`` are read as text, as traces hold some as names (``"pid": "Spans"``)."""
ARG_MEMBERS = tuple(member.name for member in RAW_SCHEMA["args"].fields)  # type: ignore[attr-defined]

Frames = dict[str, pl.DataFrame]
Shapes = tuple[tuple[Any, ...], tuple[str, ...], tuple[str, ...], tuple[Any, ...]]
"""``Input Dims`` (as written: a list per argument, nested for a list of tensors), ``Input
type``, ``Concrete Inputs`` (as text) and ``Input Strides`` (as written, like the dims;
empty where the trace records none)."""
ShapeRecord = tuple[int, Shapes]
"""A ``cpu_op``'s ``External id`` and its :data:`Shapes` (shared by calls with equal ones)."""
SHAPES_KEY = b'"Input Dims"'
SHAPE_ARGS = ("Input Dims", "Input type", "Concrete Inputs", "Input Strides")
Seen = dict[bytes, Shapes]
"""The shapes read so far, by the JSON of their four members."""


class Piece(NamedTuple):
    """One piece of the event array, read: its category frames, or (read with
    ``columns=False`` by polars) its events as :data:`RAW_SCHEMA` reads them, ``raw``, whose
    category frames the :class:`Collector` makes a batch of pieces at a time."""

    events: int
    frames: Frames
    shapes: list[ShapeRecord]
    raw: pl.DataFrame | None = None


def read_piece(text: bytes, shapes: bool = True, seen: Seen | None = None, *,
               columns: bool = True) -> Piece:
    """The events of ``text``, a JSON array of events: read by polars into columns (no Python
    object per event), or, where an event holds a member of another type than
    :data:`RAW_SCHEMA`'s, by orjson and one pass in Python; with ``shapes``, the operators'
    shapes too (:func:`shapes_of`, only where the text names ``Input Dims``; ``seen``: the
    shapes of the pieces before); with ``columns=False``, the events polars read are left
    raw (:class:`Piece`). ValueError when ``text`` is not a JSON array of objects."""
    wanted = shapes and SHAPES_KEY in text
    try:
        raw = pl.read_json(io.BytesIO(text), schema=RAW_SCHEMA)
    except (pl.exceptions.PolarsError, OverflowError):
        events = parse_events(text)
        return Piece(len(events), Collector.rows(events),
                     shapes_of(events, seen) if wanted else [])
    found = shapes_of(parse_events(text), seen) if wanted else []
    if not columns:
        return Piece(raw.height, {}, found, raw)
    return Piece(raw.height, columns_of(raw), found)


def _tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, list) else ()


def _text_tuple(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def shapes_of(events: Iterable[dict[str, Any]], seen: Seen | None = None
              ) -> list[ShapeRecord]:
    """The shapes of every ``cpu_op`` event with a numeric ``External id`` that records any,
    in the events' order (an operator's ``External id`` names its row of the ``cpu`` frame).
    Calls with the same shapes share one record (``seen``, by their JSON): a training loop
    repeats its calls' shapes every step."""
    seen = {} if seen is None else seen
    found: list[ShapeRecord] = []
    for event in events:
        if event.get("cat") != "cpu_op":
            continue
        args = event.get("args")
        if not isinstance(args, dict):
            continue
        ext = args.get("External id")
        if not isinstance(ext, (int, float)):
            continue
        dims, types, concrete, strides = (args.get(k) for k in SHAPE_ARGS)
        key = orjson.dumps((dims, types, concrete, strides))
        record = seen.get(key)
        if record is None:
            record = seen.setdefault(key, (_tuple(dims), _text_tuple(types),
                                           _text_tuple(concrete), _tuple(strides)))
        if any(record):
            found.append((int(ext), record))
    return found


def _as_int(name: str) -> pl.Expr:
    return pl.col(name).cast(pl.Int64, strict=False)


def _arg(member: str) -> pl.Expr:
    """An ``args`` member of :data:`RAW_SCHEMA`, a column of its own in :func:`columns_of`."""
    return pl.col(f"args.{member}")


def _xyz_cols(arg: str, prefix: str) -> list[pl.Expr]:
    values = _arg(arg)
    three = values.list.len() == 3
    return [pl.when(three).then(values.list.get(i, null_on_oob=True)).cast(pl.Int32)
            .alias(f"{prefix}_{axis}") for i, axis in enumerate("xyz")]


def columns_of(raw: pl.DataFrame) -> Frames:
    """The category frames (the schemas above) of events read with :data:`RAW_SCHEMA`.
    ``args``' members are made columns of their own first (no copy): each frame's filter then
    gathers only the members it reads, not the whole struct (half the time, measured)."""
    arg = _arg
    timed = (pl.col("ph") == "X") & pl.col("ts").is_not_null() & pl.col("dur").is_not_null()
    name = pl.col("name").fill_null("")
    events = raw.with_columns(pl.col("args").struct.rename_fields(
        [f"args.{member}" for member in ARG_MEMBERS])).unnest("args").lazy()
    plans = {
        "gpu": events.filter(timed & pl.col("cat").is_in(list(GPU_CATS))).select(
            pl.col("cat").replace_strict(GPU_CATS, default=None, return_dtype=pl.String)
            .alias("kind"), name, "ts", "dur",
            pl.coalesce(arg("device"), _as_int("pid")).alias("device"),
            arg("stream").fill_null(-1).alias("stream"),
            arg("correlation").fill_null(-1).alias("correlation"),
            arg("External id").alias("external_id"), *_xyz_cols("grid", "grid"),
            *_xyz_cols("block", "block"), arg("bytes").alias("bytes"), _as_int("pid"),
            _as_int("tid")),
        "runtime": events.filter(timed & pl.col("cat").is_in(list(RUNTIME_CATS))).select(
            name, "ts", "dur", _as_int("pid"), _as_int("tid"),
            arg("correlation").fill_null(-1).alias("correlation"),
            arg("External id").alias("external_id"),
            pl.col("cat").is_in(["cuda_driver", "Driver"]).alias("driver")),
        "cpu": events.filter(timed & pl.col("cat").is_in(list(CPU_CATS))).select(
            "cat", name, "ts", "dur", _as_int("pid"), _as_int("tid"),
            arg("External id").alias("external_id")),
        "flows": events.filter(pl.col("ph").is_in(["s", "f"]) & (pl.col("cat") == "ac2g"))
        .select(pl.col("ph").alias("phase"), _as_int("id"), "ts", _as_int("pid"),
                _as_int("tid")),
        "names": events.filter((pl.col("ph") == "M")
                               & pl.col("name").is_in(["process_name", "thread_name"]))
        .select(pl.col("name").alias("what"), _as_int("pid"), _as_int("tid"),
                arg("name").fill_null("").alias("name")),
        "comms": events.filter(timed & arg("Collective name").is_not_null()).select(
            "cat", name, "ts", arg("correlation").alias("correlation"),
            arg("External id").alias("external_id"),
            *(arg(member).alias(column) for column, member in COMMS_ARGS.items()),
            pl.coalesce(*(arg(member) for member in SEQ_ARGS)).alias("seq")),
    }
    frames = pl.collect_all([plan.cast(SCHEMAS[key]) for key, plan in plans.items()])
    return dict(zip(plans, frames, strict=True))


RAW_BATCH_ROWS = 65_536
"""How many raw events (pieces read with ``columns=False``) :class:`Collector` gathers before
making their category frames in one :func:`columns_of`: its fixed cost per piece was more
than its work (~0.03 s of CPU of a 6 MB trace's 0.12 s), and a batch of pieces holds ~10 MB."""


class Collector:
    """The frames of every category, piece by piece (raw pieces a batch at a time), joined
    once, in the pieces' order."""

    def __init__(self, batch_rows: int = RAW_BATCH_ROWS) -> None:
        self.batch_rows = batch_rows
        self.parts: dict[str, list[pl.DataFrame]] = {k: [] for k in SCHEMAS}
        self.events = 0
        self.shapes: list[ShapeRecord] = []
        self.raw: list[pl.DataFrame] = []
        self.raw_rows = 0

    def add(self, piece: Piece) -> None:
        self.events += piece.events
        self.shapes += piece.shapes
        if piece.raw is not None:
            self.raw.append(piece.raw)
            self.raw_rows += piece.raw.height
            if self.raw_rows >= self.batch_rows:
                self._add_raw()
            return
        self._add_raw()  # the raw pieces before this one come first
        self._keep(piece.frames)

    def _add_raw(self) -> None:
        if self.raw:
            self._keep(columns_of(pl.concat(self.raw)))
            self.raw, self.raw_rows = [], 0

    def _keep(self, frames: Frames) -> None:
        for key, frame in frames.items():
            if frame.height:
                self.parts[key].append(frame)

    @classmethod
    def rows(cls, events: Iterable[dict[str, Any]]) -> Frames:
        """The category frames of parsed events, in one pass in Python."""
        gpu: list[tuple[Any, ...]] = []
        runtime: list[tuple[Any, ...]] = []
        cpu: list[tuple[Any, ...]] = []
        flows: list[tuple[Any, ...]] = []
        names: list[tuple[Any, ...]] = []
        comms: list[tuple[Any, ...]] = []
        for event in events:
            phase = event.get("ph")
            if phase == "X":
                cls._complete(event, gpu, runtime, cpu)
                cls._comms(event, comms)
            elif phase in ("s", "f") and event.get("cat") == "ac2g":
                flows.append((phase, _int(event.get("id")), event.get("ts"),
                              _int(event.get("pid")), _int(event.get("tid"))))
            elif phase == "M" and event.get("name") in ("process_name", "thread_name"):
                args = event.get("args") or {}
                names.append((event["name"], _int(event.get("pid")), _int(event.get("tid")),
                              str(args.get("name", ""))))
        rows = {"gpu": gpu, "runtime": runtime, "cpu": cpu, "flows": flows, "names": names,
                "comms": comms}
        return {k: pl.DataFrame(rows[k], schema=SCHEMAS[k], orient="row") for k in SCHEMAS}

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

    @staticmethod
    def _comms(event: dict[str, Any], comms: list[tuple[Any, ...]]) -> None:
        args = event.get("args") or {}
        if not isinstance(args, dict) or args.get("Collective name") is None:
            return
        ts = event.get("ts")
        if not isinstance(ts, (int, float)) or not isinstance(event.get("dur"), (int, float)):
            return
        text = {c: (None if args.get(m) is None else str(args[m]))
                for c, m in COMMS_ARGS.items() if c in ("collective", "group", "dtype")}
        seq = next((_int(args[m]) for m in SEQ_ARGS if args.get(m) is not None), None)
        comms.append((event.get("cat"), str(event.get("name", "")), float(ts),
                      _int(args.get("correlation")), _int(args.get("External id")),
                      text["collective"], text["group"], text["dtype"],
                      _int(args.get("In msg nelems")), _int(args.get("Out msg nelems")), seq))

    def frames(self) -> Frames:
        self._add_raw()
        return {key: pl.concat(parts) if parts
                else pl.DataFrame(schema=SCHEMAS[key]) for key, parts in self.parts.items()}
