"""The folders an MCP server may read: every path an agent gives is resolved (links
followed) and refused unless it lies inside one of them."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kernelscope.core.errors import ReportError, safe_text


@dataclass(frozen=True)
class Roots:
    """The resolved roots; a relative path is taken from the first."""

    folders: tuple[Path, ...]

    @classmethod
    def of(cls, given: Sequence[str | os.PathLike[str]]) -> Roots:
        """The roots ``given`` (default: the working directory); ReportError, one sentence,
        for one that is not a folder."""
        folders = []
        for root in given or [os.getcwd()]:
            real = Path(os.path.realpath(root))
            if not real.is_dir():
                raise ReportError(f"The root {safe_text(root)} is not a folder.")
            folders.append(real)
        return cls(tuple(folders))

    def describe(self) -> str:
        return ", ".join(safe_text(f) for f in self.folders)

    def resolve(self, text: str) -> Path:
        """``text`` as a real path inside a root: relative to the first root, with every
        link followed; ReportError, one sentence, when it leads outside them all."""
        if not text or "\0" in text:
            raise ReportError("A path is empty or holds a NUL character; give a report's path.")
        given = Path(os.path.expanduser(text))
        if not given.is_absolute():
            given = self.folders[0] / given
        real = Path(os.path.realpath(given))
        if not any(real == root or real.is_relative_to(root) for root in self.folders):
            raise ReportError(
                f"{safe_text(text)} is outside the folders this server reads "
                f"({self.describe()}); start it with --root for that folder."
            )
        return real

    def relative(self, path: Path) -> str:
        """``path`` as the server names it to an agent: relative to the first root that
        holds it (resources' URIs take no absolute path)."""
        for root in self.folders:
            if path == root or path.is_relative_to(root):
                return str(path.relative_to(root))
        return str(path)
