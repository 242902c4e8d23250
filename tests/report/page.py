"""An HTML page read back with the standard library's parser: its tables (header cells and
body rows), its inline SVGs, its headings and every attribute that could reference another
file, for the tests of the HTML report."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

__all__ = ["Page", "read_page"]

REFERENCING = {"src", "href", "xlink:href", "action", "data", "poster"}
"""Attributes whose value may name another file or URL."""


@dataclass
class Page:
    """What the tests look at in a page."""

    tables: list[tuple[list[str], list[list[str]]]] = field(default_factory=list)
    """Each table's header texts and body rows (cell texts)."""
    cell_values: list[list[dict[str, str]]] = field(default_factory=list)
    """Each table's cells' attributes, row by row (``data-value`` of numbers)."""
    svgs: int = 0
    headings: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    """Values of :data:`REFERENCING` attributes."""
    links: int = 0
    """``<link>`` elements (a style sheet or icon fetched from elsewhere)."""
    scripts_from_files: int = 0


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.page = Page()
        self._cell: list[str] | None = None
        self._heading: list[str] | None = None
        self._header: list[str] = []
        self._rows: list[list[str]] = []
        self._row: list[str] | None = None
        self._attrs: list[list[dict[str, str]]] = []
        self._in_head = False
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        self.page.references += [v for k, v in values.items() if k in REFERENCING]
        if tag == "svg":
            self.page.svgs += 1
        elif tag == "link":
            self.page.links += 1
        elif tag == "script" and "src" in values:
            self.page.scripts_from_files += 1
        elif tag in ("h1", "h2"):
            self._heading = []
        elif tag == "table":
            self._depth += 1
            self._header, self._rows, self._attrs = [], [], []
        elif tag == "thead":
            self._in_head = True
        elif tag == "tr":
            self._row = []
            if not self._in_head:
                self._attrs.append([])
        elif tag in ("td", "th"):
            self._cell = []
            if not self._in_head and tag == "td":
                self._attrs[-1].append(values)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h1", "h2") and self._heading is not None:
            self.page.headings.append("".join(self._heading).strip())
            self._heading = None
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join(" ".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            (self._header if self._in_head else self._rows).extend(
                [self._row] if not self._in_head else self._row
            )
            self._row = None
        elif tag == "thead":
            self._in_head = False
        elif tag == "table":
            self.page.tables.append((self._header, self._rows))
            self.page.cell_values.append(self._attrs)

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if self._heading is not None:
            self._heading.append(data)


def read_page(text: str) -> Page:
    """Return what :class:`Page` records of the HTML ``text``."""
    reader = _Reader()
    reader.feed(text)
    reader.close()
    return reader.page
