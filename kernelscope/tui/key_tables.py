"""The key tables, from one source: the bindings of the screens and widgets each session
lists (``help_sections``). ``?`` shows the tables of the session in use; the README's
"Keys" section holds every session's, written by ``python -m kernelscope.tui.key_tables``
(``tests/test_readme_keys.py`` checks that the README holds what this module writes)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from textual.app import App

from kernelscope.export.writer import write_text
from kernelscope.kinds import kinds, resolve
from kernelscope.tui.app import create_app
from kernelscope.ui.help import bindings_of, bindings_table, everywhere, keys_markdown
from kernelscope.ui.session import HelpSections

BEGIN = "<!-- keys: written by python -m kernelscope.tui.key_tables -->"
END = "<!-- keys: end -->"

def areas() -> dict[str, HelpSections]:
    """Every kind's key tables by their heading, in the order the kinds are registered (a
    kind registered twice, by content and by its word, once)."""
    found: dict[str, HelpSections] = {}
    for kind in kinds():
        if kind.keys is None or kind.keys[0] in found:
            continue
        title, ref = kind.keys
        sections = resolve(ref)
        found[title] = sections() if callable(sections) else sections
    return found


def readme_keys(app: App[object]) -> str:
    """The README's key tables: one ``###`` heading per kind, ``####`` per table."""
    parts = [f"### {title}\n\n{keys_markdown(app, bindings_of(sections), level=4)}"
             for title, sections in areas().items()]
    (_, bindings), = everywhere(app)
    parts.append(f"### Everywhere\n\n{bindings_table(app, bindings)}")
    return "\n\n".join(parts)


def with_keys(readme: str, keys: str) -> str:
    """``readme`` with ``keys`` between its two markers (it must have both, in order)."""
    start, end = readme.find(BEGIN), readme.find(END)
    if start < 0 or end < start:
        raise ValueError(f"the README has no {BEGIN!r} … {END!r} block")
    return f"{readme[: start + len(BEGIN)]}\n\n{keys}\n\n{readme[end:]}"


def main(argv: Sequence[str] = ()) -> int:
    """Rewrite the key tables of the README named (``README.md`` by default)."""
    path = Path(argv[0] if argv else "README.md")
    text = path.read_text(encoding="utf-8")
    updated = with_keys(text, readme_keys(create_app()))
    if updated != text:
        write_text(updated, path, inputs=())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
