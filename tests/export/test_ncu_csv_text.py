"""The kernel CSV is written without polars: its cells and columns against polars' own."""

from __future__ import annotations

import random
import struct

import polars as pl

from kernelscope.export.writer import ExportOptions, render
from kernelscope.kinds.ncu.export.ncu_csv import (
    csv_cells,
    float_text,
    integers_as_integers,
    quoted,
)
from kernelscope.kinds.ncu.model.key_frame import FLOAT, INT, TEXT
from tests.conftest import NCU_SAMPLES


def _floats() -> list[float]:
    found = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 5e-324, 2.0**53, -(2.0**53),
             2.0**53 - 1, 1e-5, 9.5e-5, 1e-4, 1e-6, 1e15, 1e16, 1.7976931348623157e308]
    found += [float(f"{m}e{e}") for e in range(-320, 308) for m in (1, 1.5, 9.99999)]
    rng = random.Random(7)
    found += [struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0] for _ in range(20000)]
    found += [rng.uniform(-1, 1) * 10.0 ** rng.randint(-30, 30) for _ in range(20000)]
    return found


def test_float_text_is_what_polars_writes():
    floats = _floats()
    frame = integers_as_integers(pl.DataFrame({"x": pl.Series(floats, dtype=pl.Float64)}))
    assert [float_text(v) for v in floats] == frame.get_column("x").to_list()


def test_csv_cells_are_polars_write_csv():
    texts = ["", "a", " sp ", "x,y", 'q"q', "l\nm", "r\rr", "#", "é✖", None]
    texts += [f"x{chr(i)}y" for i in range(256)]
    texts += ["", "x,y", None, "a"]  # repeated: each text is kept by its value
    ints = [None, 0, -3, 2**62, 0, -3, None]
    floats = [None, 1.0, 0.5, 1e-7, 3e20, float("nan"), 0.0, -0.0, 1, 1.0, 0.5, float("nan")]
    columns = [("t", TEXT, texts), ("i", INT, ints), ("f", FLOAT, floats)]
    for name, kind, values in columns:
        dtype = {TEXT: pl.Utf8, INT: pl.Int64, FLOAT: pl.Float64}[kind]
        frame = integers_as_integers(pl.DataFrame({name: pl.Series(values, dtype=dtype)}))
        written = frame.write_csv(include_header=False)
        assert "".join(f"{cell}\n" for cell in csv_cells(kind, values)) == written


def test_quoted_headers():
    assert quoted("a,b") == '"a,b"'
    assert quoted("plain") == "plain"


def test_the_kernel_csv_is_polars_frame():
    """The CSV of a sample against the frame it was written from before (polars')."""
    text = render(NCU_SAMPLES / "zoo_a.ncu-rep.xz", ExportOptions(fmt="csv"))
    frame = pl.read_csv(text.encode(), infer_schema=False)
    assert text == frame.write_csv()
