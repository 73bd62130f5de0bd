"""The modules a report embeds (SourceData messages): each module's cubin and the source
files imported with ``--import-source``, read from the file when asked for."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import IO, Any

from kernelscope.kinds.ncu.model.container import SourceInfo
from kernelscope.kinds.ncu.model.file_format.schema import SourceData

SourceKey = tuple[int | None, int]
"""(process id, module reference): a reference repeats in each process of a report."""


class Modules:
    """Reads SourceData messages from an open report (under the report's lock)."""

    def __init__(
        self, file: IO[bytes], lock: threading.RLock, where: dict[SourceKey, SourceInfo]
    ) -> None:
        self._file = file
        self._lock = lock
        self._where = where
        self._texts: dict[SourceKey, dict[str, list[str]]] = {}

    def _message(self, key: SourceKey) -> Any:
        where = self._where.get(key)
        if where is None:
            return SourceData()
        with self._lock:
            self._file.seek(where.offset)
            data = self._file.read(where.size)
        return SourceData.FromString(data)

    def texts(self, pid: int | None, references: Iterable[int]) -> dict[str, list[str]]:
        """The embedded source files of the modules ``references``, lines by path."""
        out: dict[str, list[str]] = {}
        for ref in references:
            key = (pid, ref)
            if key not in self._texts:
                files = self._message(key).source_files.files
                self._texts[key] = {f.file_name: f.content.splitlines() for f in files}
            out.update(self._texts[key])
        return out

    def cubin(self, pid: int | None, reference: int) -> bytes:
        """The module's cubin (empty when the report holds none)."""
        return bytes(self._message((pid, reference)).binary)
