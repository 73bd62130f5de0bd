"""HTML, a format every kind exports by one registration (``kinds/builtin.py``'s ``DERIVED``):
its Markdown converted once, so no kind renders it and no raw HTML passes through."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from kernelscope.export.html import html_of
from kernelscope.export.writer import ExportOptions, Rendered, render
from kernelscope.kinds import kinds
from tests.conftest import NCU_SAMPLES, SAMPLES

DOCUMENT_TAGS = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "h4", "h5", "h6", "p",
    "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "code", "pre", "em",
    "strong", "a", "hr", "br", "blockquote",
}


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parsed(text: str) -> Tags:
    tags = Tags()
    tags.feed(text)
    tags.close()
    return tags


def test_every_kind_with_markdown_exports_html() -> None:
    for kind in kinds():
        assert ("html" in kind.formats) == ("md" in kind.formats), kind.name


@pytest.mark.parametrize("path", [NCU_SAMPLES / "gemm_torch_default.ncu-rep.xz",
                                  SAMPLES / "nsys" / "graph_eager.sqlite.xz"],
                         ids=["kernels", "timeline"])
def test_html_is_the_markdown_with_no_raw_tag(path: Path, tmp_path: Path) -> None:
    markdown = render(path, ExportOptions(fmt="md", cache_dir=tmp_path))
    page = render(path, ExportOptions(fmt="html", cache_dir=tmp_path))
    tags = parsed(page)
    assert tags.tags <= DOCUMENT_TAGS, tags.tags - DOCUMENT_TAGS  # a kernel's <T> is text
    assert {"table", "h1", "h2"} <= tags.tags
    title = markdown.splitlines()[0].removeprefix("# ").replace("\\", "")
    assert f"<title>{title}</title>" in page
    text = "".join(tags.text)
    templated = [line for line in markdown.splitlines() if "<" in line and "`" not in line]
    assert not templated or "<" in text  # angle brackets reach the reader as text


def test_a_gates_verdict_stays_with_its_html() -> None:
    done = html_of(Rendered("# Diff\n", "The summed kernel time regressed.", failure_code=1))
    assert isinstance(done, Rendered) and done.failure == "The summed kernel time regressed."
    assert "<h1>Diff</h1>" in done.full_text()
