"""Compressed reports (xz, gzip, zstd): tell them by their magic bytes, read them as streams,
and never unpack more than a report of that size can hold.

A decompression bomb (a 1 MB ``.gz`` of a gigabyte of zeros) would otherwise fill the temporary
directory; :func:`unpack_limit` bounds every decompression to ``max(256 MiB, 200 x the
compressed size)`` (real reports compress up to ~70x), or ``KERNELSCOPE_MAX_UNPACKED_MB``.
"""

from __future__ import annotations

import gzip
import lzma
import os
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, BinaryIO, cast

from kernelscope.core.errors import ReportError, safe_text

XZ_MAGIC = b"\xfd7zXZ\x00"
GZ_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

MIN_LIMIT = 256 << 20
RATIO_LIMIT = 200
LIMIT_ENV = "KERNELSCOPE_MAX_UNPACKED_MB"
CHUNK = 4 << 20


def _zstd_error() -> type[Exception]:
    try:
        import zstandard
    except ImportError:  # pragma: no cover - a dependency of the package
        return OSError
    return zstandard.ZstdError


def decompress_errors() -> tuple[type[BaseException], ...]:
    """What a damaged compressed stream raises while it is read."""
    return (lzma.LZMAError, zlib.error, EOFError, OSError, _zstd_error())


def compression_of(head: bytes) -> str | None:
    """``"xz"``, ``"gz"`` or ``"zst"`` from a file's first bytes, else None."""
    if head.startswith(XZ_MAGIC):
        return "xz"
    if head.startswith(GZ_MAGIC):
        return "gz"
    if head.startswith(ZSTD_MAGIC):
        return "zst"
    return None


def file_compression(path: str | os.PathLike[str]) -> str | None:
    with open(path, "rb") as fh:
        return compression_of(fh.read(6))


def open_stream(raw: BinaryIO, kind: str) -> IO[bytes]:
    """A reader of the decompressed bytes of ``raw`` (an open binary file)."""
    if kind == "xz":
        return lzma.open(raw, "rb")
    if kind == "gz":
        return cast(IO[bytes], gzip.open(raw, "rb"))
    if kind == "zst":
        import zstandard

        return zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
    raise ValueError(kind)


def unpack_limit(path: str | os.PathLike[str]) -> int:
    """The most bytes a compressed report at ``path`` may decompress to."""
    override = os.environ.get(LIMIT_ENV, "").strip()
    if override:
        try:
            return max(1, int(float(override) * (1 << 20)))
        except ValueError:
            pass
    return max(MIN_LIMIT, RATIO_LIMIT * os.path.getsize(path))


def too_large(display: object, limit: int) -> ReportError:
    return ReportError(
        f"{safe_text(display)} decompresses to more than {limit:,} bytes, more than a report "
        f"of its size can hold; set {LIMIT_ENV} to allow more."
    )


def decompress_failure(
    display: object, exc: BaseException, target: Path, folder: Path
) -> ReportError:
    """The sentence for a decompression that failed with ``exc`` (one of
    ``decompress_errors()``): writing ``target`` into ``folder`` failed (disk full, no
    permission), or the compressed data of ``display`` is damaged."""
    if isinstance(exc, OSError) and exc.filename == str(target):
        return ReportError(
            f"{safe_text(display)} could not be decompressed into {folder} "
            f"({exc.strerror or exc})."
        )
    return ReportError(
        f"{safe_text(display)} is compressed but could not be decompressed ({exc})."
    )


def copy_capped(
    src: IO[bytes],
    out: IO[bytes],
    limit: int,
    display: object,
    on_chunk: Callable[[], Any] | None = None,
) -> int:
    """Copy the decompressed stream ``src`` to ``out``; raise ReportError past ``limit``
    bytes. ``on_chunk`` runs after every chunk (progress, cancellation)."""
    written = 0
    while True:
        chunk = src.read(CHUNK)
        if not chunk:
            return written
        written += len(chunk)
        if written > limit:
            raise too_large(display, limit)
        out.write(chunk)
        if on_chunk is not None:
            on_chunk()


def head_of(path: Path, size: int = 64) -> bytes:
    """The first ``size`` decompressed bytes of ``path`` (its raw bytes when uncompressed)."""
    with open(path, "rb") as fh:
        kind = compression_of(fh.read(6))
        fh.seek(0)
        if kind is None:
            return fh.read(size)
        try:
            with open_stream(fh, kind) as zfh:
                return zfh.read(size)
        except decompress_errors() as exc:
            raise ReportError(
                f"{safe_text(path)} is compressed but could not be decompressed ({exc})."
            ) from exc
