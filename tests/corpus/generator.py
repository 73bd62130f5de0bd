"""A seeded, deterministic corpus of damaged and odd inputs made from our samples.

``build(folder, seed)`` writes every input into a folder of its own under ``folder`` and
returns a :class:`Case` per input: its category, the file to open and the command to run on
it. The same seed gives the same bytes. Categories:

- ``truncated``: kernel reports and SQLite exports cut at seeded offsets (and compressed ones)
- ``bit-flipped``: a few seeded bits flipped, in headers and in the body
- ``zeroed``: seeded ranges overwritten with zeros
- ``wrong-type``: other kinds of file, or one kind of report named as another
- ``odd-name``: a path component over 255 bytes, non-UTF-8 bytes, ANSI escape sequences, a
  newline, spaces and non-ASCII letters in the file name, a directory, a FIFO
- ``compressed-garbage``: xz/gzip/zstd magic followed by noise, a ``.gz`` with a valid header
  and corrupt data, truncated compressed reports
- ``bomb``: small compressed files that decompress to hundreds of megabytes (of zeros, or a
  real report followed by zeros)
- ``schema``: SQLite exports mutated like damaged or unusual nsys versions: tables dropped or
  renamed ``_V2``, NULL and text in device, pid and time columns, a kernel at -2^63, columns
  dropped, a ``-wal`` beside the file
- ``trailing-zeros``: a report followed by 1 GiB of zeros (a sparse file, so it costs no disk)
- ``kineto-bounds``: PyTorch profiler traces past what one holds: a kernel named by a 64 MiB
  string, 1 GiB of whitespace between two events (a 1 MiB gzip), 300 MiB of events from a
  1 MiB gzip
"""

from __future__ import annotations

import gzip
import lzma
import os
import random
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import NCU_SAMPLES, SAMPLES

NCU_BASE = NCU_SAMPLES / "zoo_a.ncu-rep.xz"
NSYS_BASE = SAMPLES / "nsys" / "zoo.sqlite.xz"
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("summary",),
    ("export", "--format", "json"),
    ("export", "--format", "md"),
    ("export", "--format", "csv"),
)
GIB = 1 << 30
KERNELS = "CUPTI_ACTIVITY_KIND_KERNEL"
MEMCPY = "CUPTI_ACTIVITY_KIND_MEMCPY"
RUNTIME = "CUPTI_ACTIVITY_KIND_RUNTIME"


@dataclass(frozen=True)
class Case:
    category: str
    label: str
    path: Path  # what the command is given (may not exist, may be a directory)
    args: tuple[str, ...]  # the kernelscope subcommand and options, before the path

    @property
    def folder(self) -> Path:
        """The folder that holds the input and nothing else (checked unchanged after)."""
        return self.path.parent


class _Builder:
    def __init__(self, root: Path, seed: int) -> None:
        self.root = root
        self.rng = random.Random(seed)
        self.cases: list[Case] = []
        self.ncu = lzma.decompress(NCU_BASE.read_bytes())
        self.sqlite = lzma.decompress(NSYS_BASE.read_bytes())

    def _folder(self) -> Path:
        folder = self.root / f"case{len(self.cases):04d}"
        folder.mkdir(parents=True)
        return folder

    def add(self, category: str, label: str, name: str | bytes, data: bytes | None) -> Path:
        folder = self._folder()
        path = Path(os.fsdecode(os.path.join(os.fsencode(folder), os.fsencode(name))))
        if data is not None:
            path.write_bytes(data)
        command = COMMANDS[len(self.cases) % len(COMMANDS)]
        self.cases.append(Case(category, label, path, command))
        return path

    def offsets(self, size: int, count: int, head: int = 4096) -> list[int]:
        """Seeded offsets: some in the first ``head`` bytes (headers), the rest anywhere."""
        near = [self.rng.randrange(1, min(head, size)) for _ in range(count // 3)]
        far = [self.rng.randrange(1, size) for _ in range(count - len(near))]
        return sorted(set(near + far))

    # -- categories ------------------------------------------------------------------------
    def truncated(self) -> None:
        for blob, ext in ((self.ncu, ".ncu-rep"), (self.sqlite, ".sqlite")):
            for cut in self.offsets(len(blob), 24):
                self.add("truncated", f"{ext} cut at {cut}", f"cut{ext}", blob[:cut])
        for cut in self.offsets(len(NCU_BASE.read_bytes()), 6, head=256):
            self.add("truncated", f".ncu-rep.xz cut at {cut}", "cut.ncu-rep.xz",
                     NCU_BASE.read_bytes()[:cut])

    def flipped(self) -> None:
        for blob, ext in ((self.ncu, ".ncu-rep"), (self.sqlite, ".sqlite")):
            for i in range(24):
                data = bytearray(blob)
                spots = self.offsets(len(data), 1 + i % 6, head=512 if i % 2 else 1 << 20)
                for at in spots:
                    data[at] ^= 1 << self.rng.randrange(8)
                self.add("bit-flipped", f"{ext} flips at {spots}", f"flipped{ext}", bytes(data))

    def zeroed(self) -> None:
        for blob, ext in ((self.ncu, ".ncu-rep"), (self.sqlite, ".sqlite")):
            for _ in range(12):
                start = self.rng.randrange(0, len(blob) - 1)
                length = self.rng.choice((16, 512, 4096, 65536, 1 << 20))
                data = bytearray(blob)
                data[start : start + length] = bytes(len(data[start : start + length]))
                self.add("zeroed", f"{ext} zeros at {start}+{length}", f"zeroed{ext}", bytes(data))

    def wrong_type(self) -> None:
        png = b"\x89PNG\r\n\x1a\n" + bytes(self.rng.randrange(256) for _ in range(2000))
        cases: list[tuple[str, str, bytes]] = [
            ("empty file", "empty.ncu-rep", b""),
            ("one byte", "one.ncu-rep", b"N"),
            ("just the NVR magic", "magic.ncu-rep", b"NVR\x00"),
            ("NVR magic and noise", "noise.ncu-rep", b"NVR\x00" + self.rng.randbytes(8192)),
            ("random bytes", "random.ncu-rep", self.rng.randbytes(65536)),
            ("a PNG named .ncu-rep", "picture.ncu-rep", png),
            ("text named .sqlite", "notes.sqlite", b"hello\nworld\n" * 100),
            ("a kernel report named .sqlite", "kernels.sqlite", self.ncu),
            ("an SQLite export named .ncu-rep", "timeline.ncu-rep", self.sqlite),
            ("an SQLite file that is not nsys", "other.sqlite", _other_sqlite(self.root)),
            ("nsys-rep magic and noise", "noise.nsys-rep",
             b"NVIDIA Tegra Profiler Report" + self.rng.randbytes(4096)),
            ("SQLite magic and noise", "noise.sqlite",
             b"SQLite format 3\x00" + self.rng.randbytes(8192)),
        ]
        for label, name, data in cases:
            self.add("wrong-type", label, name, data)

    def odd_names(self) -> None:
        long_name = "k" * 300 + ".ncu-rep"  # a path component over 255 bytes: cannot exist
        self.add("odd-name", "component over 255 bytes", long_name, None)
        self.add("odd-name", "missing file", "missing.ncu-rep", None)
        for label, name, blob in (
            ("non-UTF-8 name", b"k\xff\xfe\x80.ncu-rep", self.ncu),
            ("non-UTF-8 name, damaged", b"d\xc3\x28.ncu-rep", self.ncu[:5000]),
            ("ANSI escapes in the name", "\x1b[31mred\x1b[0m\x1b]0;title\x07.ncu-rep", self.ncu),
            ("ANSI escapes, damaged", "\x1b[2J\x1b[H.sqlite", self.sqlite[:3000]),
            ("newline in the name", "two\nlines.ncu-rep", self.ncu[:100]),
            ("spaces and unicode", "rapport d’essai é 報告.sqlite", self.sqlite),
            ("rich markup in the name", "[bold red]x[reverse].ncu-rep", self.ncu),
        ):
            self.add("odd-name", label, name, blob)
        folder = self.add("odd-name", "a directory", "dir.ncu-rep", None)
        folder.mkdir()
        fifo = self.add("odd-name", "a FIFO", "fifo.ncu-rep", None)
        os.mkfifo(fifo)

    def compressed_garbage(self) -> None:
        import zstandard

        magic = {
            "xz": b"\xfd7zXZ\x00",
            "gz": b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03",
            "zst": b"\x28\xb5\x2f\xfd",
        }
        for ext, head in magic.items():
            for i in range(3):
                self.add("compressed-garbage", f"{ext} magic and noise {i}", f"noise.ncu-rep.{ext}",
                         head + self.rng.randbytes(4096 << i))
        good_gz = gzip.compress(self.ncu, compresslevel=1, mtime=0)
        for _ in range(4):
            data = bytearray(good_gz)
            at = self.rng.randrange(20, len(data) - 20)
            data[at : at + 64] = self.rng.randbytes(64)
            self.add("compressed-garbage", f".gz valid header, corrupt data at {at}",
                     "corrupt.ncu-rep.gz", bytes(data))
        gz_sqlite = gzip.compress(self.sqlite, mtime=0)
        self.add("compressed-garbage", ".sqlite.gz cut", "cut.sqlite.gz",
                 gz_sqlite[: len(gz_sqlite) // 2])
        zst = zstandard.ZstdCompressor().compress(self.ncu)
        self.add("compressed-garbage", "zstd report cut", "cut.ncu-repz", zst[: len(zst) // 3])
        self.add("compressed-garbage", "zstd report, good", "good.ncu-repz", zst)
        self.add("compressed-garbage", "zstd report named .zst", "good.ncu-rep.zst", zst)
        flipped = bytearray(zst)
        flipped[len(flipped) // 2] ^= 0x10
        self.add("compressed-garbage", "zstd report, a flipped bit", "flip.ncu-repz",
                 bytes(flipped))

    def bombs(self) -> None:
        import zstandard

        # Each bomb decompresses to 300 MiB (over the 256 MiB floor of the cap): one compressed
        # MiB of zeros repeated (gzip members, xz streams and zstd frames concatenated are one
        # stream to a reader; compressing the 300 MiB whole took seconds a bomb).
        repeat = 300
        chunk = bytes(1 << 20)
        gz_zeros = gzip.compress(chunk, compresslevel=9, mtime=0) * repeat
        self.add("bomb", "gzip of 300 MiB of zeros", "bomb.ncu-rep.gz", gz_zeros)
        xz_zeros = lzma.compress(chunk, preset=0) * repeat
        self.add("bomb", "xz of a report and 300 MiB of zeros", "tail.ncu-rep.xz",
                 lzma.compress(self.ncu[:200_000], preset=0) + xz_zeros)
        zstd = zstandard.ZstdCompressor(level=1)
        self.add("bomb", "zstd of NVR and 300 MiB of zeros", "bomb.ncu-repz",
                 zstd.compress(b"NVR\x00") + zstd.compress(chunk) * repeat)
        self.add("bomb", "xz of an SQLite export and 300 MiB of zeros", "tail.sqlite.xz",
                 lzma.compress(self.sqlite, preset=0) + xz_zeros)
        self.add("bomb", "gzip of SQLite magic and 300 MiB of zeros", "bomb.sqlite.gz",
                 gzip.compress(b"SQLite format 3\x00", mtime=0) + gz_zeros)

    def kineto_bounds(self) -> None:
        event = (b'{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, '
                 b'"dur": 2, "args": {"device": 0, "stream": 7}}')
        head = b'{"schemaVersion": 1, "traceEvents": ['
        name = b'{"ph": "X", "cat": "kernel", "name": "' + b"a" * (64 << 20) + event[38:]
        self.add("kineto-bounds", "a kernel named by a 64 MiB string", "name.pt.trace.json.gz",
                 gzip.compress(head + name + b"]}", compresslevel=1, mtime=0))
        spaces = gzip.compress(b" " * (1 << 20), compresslevel=9, mtime=0) * 1024
        self.add("kineto-bounds", "1 GiB of whitespace between two events",
                 "spaces.pt.trace.json.gz", gzip.compress(head + event + b",", mtime=0)
                 + spaces + gzip.compress(event + b"]}", mtime=0))
        events = gzip.compress((event + b",") * ((1 << 20) // (len(event) + 1)), mtime=0)
        self.add("kineto-bounds", "300 MiB of events from a 1 MiB gzip", "many.pt.trace.json.gz",
                 gzip.compress(head, mtime=0) + events * 300 + gzip.compress(event + b"]}",
                                                                            mtime=0))

    def schema(self) -> None:
        def loose(table: str, change: str) -> Callable[[sqlite3.Connection], None]:
            return _loose(table, f"UPDATE {table} SET {change}")

        mutations: list[tuple[str, Callable[[sqlite3.Connection], None]]] = [
            ("NULL deviceId", loose(KERNELS, "deviceId = NULL")),
            ("text deviceId", loose(KERNELS, "deviceId = 'gpu'")),
            ("NULL globalPid", loose(KERNELS, "globalPid = NULL")),
            ("text globalPid", loose(KERNELS, "globalPid = 'x'")),
            ("NULL start", loose(KERNELS, "start = NULL WHERE rowid % 2 = 0")),
            ("text end", loose(KERNELS, '"end" = \'later\'')),
            ("kernel at -2^63", _sql(f"UPDATE {KERNELS} SET start = -9223372036854775808 "
                                     "WHERE rowid = 1")),
            ("kernel ending at 2^63-1", _sql(f'UPDATE {KERNELS} SET "end" = '
                                             "9223372036854775807 WHERE rowid = 2")),
            ("end before start", _sql(f'UPDATE {KERNELS} SET "end" = start - 5')),
            ("text in runtime times",
             loose(RUNTIME, "start = 'a', globalTid = 'b' WHERE rowid % 3 = 0")),
            ("NULL memcpy device", loose(MEMCPY, "deviceId = NULL")),
            ("float times", _sql(f"UPDATE {KERNELS} SET start = start + 0.5")),
            ("kernel table dropped", _sql(f"DROP TABLE {KERNELS}")),
            ("every CUDA table dropped", _sql(*(f"DROP TABLE {t}" for t in (
                KERNELS, MEMCPY, "CUPTI_ACTIVITY_KIND_MEMSET", RUNTIME)))),
            ("StringIds dropped", _sql("DROP TABLE StringIds")),
            ("StringIds value NULL", loose("StringIds", "value = NULL")),
            ("metadata dropped",
             _sql("DROP TABLE META_DATA_EXPORT", "DROP TABLE ANALYSIS_DETAILS")),
            ("ANALYSIS_DETAILS text",
             loose("ANALYSIS_DETAILS", "startTime = 'x', stopTime = NULL")),
            ("ANALYSIS_DETAILS inverted",
             _sql("UPDATE ANALYSIS_DETAILS SET startTime = stopTime + 1000")),
            ("TARGET_INFO_GPU text id", loose("TARGET_INFO_GPU", "id = 'zero', smCount = 'many'")),
            ("PROCESSES text pid", loose("PROCESSES", "pid = 'p'")),
            ("kernel table renamed _V2",
             _sql(f"ALTER TABLE {KERNELS} RENAME TO {KERNELS}_V2")),
            ("kernel column dropped", _sql(f"ALTER TABLE {KERNELS} DROP COLUMN demangledName",
                                           f"ALTER TABLE {KERNELS} DROP COLUMN shortName")),
            ("kernel table a view of nothing",
             _sql(f"DROP TABLE {KERNELS}", f"CREATE VIEW {KERNELS} AS SELECT 1 AS start")),
            ("every table but StringIds dropped", _drop_all_but("StringIds")),
        ]
        for label, mutate in mutations:
            path = self.add("schema", label, "export.sqlite", self.sqlite)
            with sqlite3.connect(path) as conn:
                mutate(conn)
            conn.close()
        path = self.add("schema", "-wal beside the export", "walled.sqlite", None)
        _with_wal(path, self.sqlite)

    def trailing_zeros(self) -> None:
        for blob, name in ((self.ncu, "padded.ncu-rep"), (self.sqlite, "padded.sqlite")):
            path = self.add("trailing-zeros", f"{name} + 1 GiB of zeros", name, blob)
            with open(path, "r+b") as fh:
                fh.truncate(len(blob) + GIB)  # sparse: the zeros take no disk


def _loose(table: str, *statements: str) -> Callable[[sqlite3.Connection], None]:
    """``statements`` on ``table`` rebuilt without its NOT NULL and type constraints (as a
    damaged or hand-edited export may hold)."""
    return _sql(
        f"CREATE TABLE _loose AS SELECT * FROM {table}",
        f"DROP TABLE {table}",
        f"ALTER TABLE _loose RENAME TO {table}",
        *statements,
    )


def _sql(*statements: str) -> Callable[[sqlite3.Connection], None]:
    def run(conn: sqlite3.Connection) -> None:
        for sql in statements:
            conn.execute(sql)
        conn.commit()

    return run


def _drop_all_but(keep: str) -> Callable[[sqlite3.Connection], None]:
    def run(conn: sqlite3.Connection) -> None:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            if table != keep:
                conn.execute(f'DROP TABLE "{table}"')
        conn.commit()

    return run


def _other_sqlite(root: Path) -> bytes:
    scratch = root / ".other.sqlite"
    with sqlite3.connect(scratch) as conn:
        conn.execute("CREATE TABLE people (name TEXT)")
        conn.execute("INSERT INTO people VALUES ('ada')")
    conn.close()
    data = scratch.read_bytes()
    scratch.unlink()
    return data


def _with_wal(path: Path, sqlite_bytes: bytes) -> None:
    """The export with its newest rows only in a write-ahead log beside it (as a writer that
    crashed or is still running leaves it)."""
    path.write_bytes(sqlite_bytes)
    scratch = path.with_name(".writer")
    scratch.mkdir()
    work = scratch / path.name
    shutil.copyfile(path, work)
    conn = sqlite3.connect(work)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute(
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 5"
    )
    conn.commit()
    shutil.copyfile(work, path)
    shutil.copyfile(work.with_name(work.name + "-wal"), path.with_name(path.name + "-wal"))
    conn.close()
    shutil.rmtree(scratch)


def build(root: Path, seed: int = 16, *, heavy: bool = True) -> list[Case]:
    """Write the whole corpus under ``root`` (which must be empty or absent); without
    ``heavy``, leave out the bombs and the 1 GiB files (slow to make, not to check)."""
    builder = _Builder(root, seed)
    for category in (
        builder.truncated, builder.flipped, builder.zeroed, builder.wrong_type,
        builder.odd_names, builder.compressed_garbage, builder.schema,
    ):
        category()
    if heavy:
        builder.bombs()
        builder.trailing_zeros()
        builder.kineto_bounds()
    return builder.cases
