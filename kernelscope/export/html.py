"""The HTML export of every kind: its Markdown export, converted once (a ``DerivedFormat`` in
``kinds/builtin.py``), so no kind renders HTML itself.

markdown-it-py (which rich already depends on) converts CommonMark with tables; raw HTML in
the Markdown is escaped, not passed through, so a kernel name such as
``vectorized_elementwise_kernel<4, float>`` is text, never a tag.
"""

from __future__ import annotations

import html

from kernelscope.export.writer import Rendered

STYLE = ("body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem}"
         "table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:.2rem .5rem}"
         "pre{overflow-x:auto}")


def markdown_html(markdown: str) -> str:
    """``markdown`` as a whole HTML document, titled by its first heading."""
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)
    title = next((line[2:].replace("\\", "") for line in markdown.splitlines()
                  if line.startswith("# ")), "kernelscope")
    return (f'<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n'
            f"<title>{html.escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n"
            f"<body>\n{body}</body>\n</html>\n")


def html_of(markdown: str | Rendered) -> str | Rendered:
    """A Markdown export (its text, or a ``Rendered`` with a CI gate's verdict, which stays)
    as HTML."""
    if isinstance(markdown, Rendered):
        return Rendered(markdown_html(markdown.full_text()), markdown.failure,
                        failure_code=markdown.failure_code)
    return markdown_html(markdown)
