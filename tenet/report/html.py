"""A report -> one self-contained HTML page: the run's inputs, sortable tables whose headers
carry the units of :mod:`tenet.vocab`, the figures inline as SVG, and the dataflow (space-stamp,
time-stamp, tile stamps) of every reported mapping. The clients that ran the work
(:mod:`tenet.dse.report`, :mod:`tenet.networks`) gather a :class:`Report`; this module only
renders it. The page references nothing outside itself: no URL, no external script or style."""

from __future__ import annotations

import html
import io
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from pathlib import Path
from typing import TYPE_CHECKING

from tenet.files import write_atomically
from tenet.vocab import (
    DESCRIPTIONS,
    ENERGY,
    ENERGY_DELAY,
    FIELDS,
    UNITS,
    metric_of_column,
    unit_label,
)

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = [
    "MappingRecord",
    "Report",
    "column_header",
    "figure_svg",
    "render_report",
    "write_report",
]


SVG_METADATA = ("Creator", "Date", "Format", "Type")
"""Metadata matplotlib writes into an SVG by default, left out of a page (no date, no URL)."""


@dataclass(frozen=True)
class MappingRecord:
    """The dataflow of one reported mapping: what it was reported for, its name, its
    space-stamp and time-stamp (isl map text) and its tile stamps by memory level."""

    label: str
    name: str
    space_stamp: str
    time_stamp: str
    tiles: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Report:
    """What one page shows: a title, the run's inputs (name -> value text), tables (heading,
    DataFrame), figures (heading, matplotlib Figure), the reported mappings and notes."""

    title: str
    inputs: Mapping[str, str]
    tables: Sequence[tuple[str, pd.DataFrame]] = ()
    figures: Sequence[tuple[str, Figure]] = ()
    mappings: Sequence[MappingRecord] = ()
    notes: Sequence[str] = ()
    """What the page says first, under its title: e.g. each reported mapping that does not
    fit its memory levels (``... fits: no — rf needs 2,880 of 64 elements``)."""


STYLE = """
body { font-family: sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; vertical-align: top; }
td { white-space: nowrap; } td.wrap { white-space: normal; min-width: 10em; }
div.wide { overflow-x: auto; }
th { background: #eef; text-align: left; }
table.sortable th { cursor: pointer; }
th .unit { display: block; font-weight: normal; color: #555; font-size: 0.9em; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
th[aria-sort=ascending]::after { content: " \\25B2"; }
th[aria-sort=descending]::after { content: " \\25BC"; }
code { font-size: 0.95em; }
p.note { font-weight: bold; }
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; }
"""

SORTING = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, k) {
    th.addEventListener("click", function () {
      var up = th.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("th").forEach(function (o) { o.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", up ? "ascending" : "descending");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      function key(row) {
        var cell = row.cells[k], v = cell.getAttribute("data-value");
        return v === null ? cell.textContent : v;
      }
      var numeric = rows.every(function (r) { var v = key(r); return v === "" || !isNaN(v); });
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        var c = numeric ? (x === "" ? Infinity : +x) - (y === "" ? Infinity : +y)
                        : x.localeCompare(y);
        return up ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""


def column_header(name: str, energy_unit: str | None = None) -> tuple[str, str, str]:
    """Return the header of column ``name``: its label, its unit (empty when it has none)
    and its description, from :data:`tenet.vocab.UNITS` and the descriptions beside it; an
    energy's unit is ``energy_unit``'s (the table's one ``energy_unit``), else the column
    that holds it.

    Examples
    --------
    >>> column_header("latency_cycles")[:2], column_header("name")[:2]
    (('latency', 'cycles'), ('name', ''))
    >>> column_header("energy", "pJ")[1], column_header("energy")[1]
    ('pJ', 'see energy_unit')
    """
    metric = metric_of_column(name) or (name if name in UNITS else None)
    if metric is None:
        return name, "", FIELDS.get(name, "")
    unit = UNITS[metric]
    if unit in (ENERGY, ENERGY_DELAY):
        unit = unit_label(metric, energy_unit) if energy_unit else "see energy_unit"
    return metric, unit, DESCRIPTIONS.get(metric, "")


def _cell(value: object) -> str:
    """A table cell: numbers right-aligned, sorted by their exact value, floats shown with
    four significant digits; a missing value empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return '<td data-value=""></td>'
    if isinstance(value, bool) or not isinstance(value, Real):
        return f"<td>{html.escape(str(value))}</td>"
    if isinstance(value, Integral):
        return f'<td class="number" data-value="{int(value)}">{int(value)}</td>'
    number = float(value)
    return f'<td class="number" data-value="{number!r}">{number:.4g}</td>'


def _table(table: pd.DataFrame) -> str:
    heads = []
    units = set(table["energy_unit"].dropna()) if "energy_unit" in table.columns else set()
    energy_unit = str(units.pop()) if len(units) == 1 else None
    for name in table.columns:
        label, unit, description = column_header(str(name), energy_unit)
        title = f' title="{html.escape(description)}"' if description else ""
        shown = f'<span class="unit">{html.escape(unit)}</span>' if unit else ""
        heads.append(f"<th{title}>{html.escape(label)}{shown}</th>")
    rows = [
        "<tr>" + "".join(_cell(v) for v in row) + "</tr>"
        for row in table.itertuples(index=False, name=None)
    ]
    return (
        '<div class="wide"><table class="sortable"><thead><tr>'
        + "".join(heads)
        + "</tr></thead><tbody>\n"
        + "\n".join(rows)
        + "\n</tbody></table></div>"
    )


def figure_svg(figure: Figure) -> str:
    """Return ``figure`` as an inline ``<svg>`` element (no XML prolog, text as text, no
    date), for an HTML page.

    Examples
    --------
    >>> from tenet.report.axes import new_axes
    >>> figure_svg(new_axes((2, 1)).figure).startswith("<svg")
    True
    """
    from matplotlib import rc_context

    buffer = io.StringIO()
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "tenet"}):
        figure.savefig(buffer, format="svg", metadata=dict.fromkeys(SVG_METADATA))
    text = buffer.getvalue()
    svg = text[text.index("<svg") :].strip()
    # an inline <svg> of an HTML page is in the SVG namespace without declaring it
    head, rest = svg.split(">", 1)
    head = re.sub(r'\s+xmlns(:xlink)?="[^"]*"', "", head)
    return f"{head}>{rest}"


def _inputs(inputs: Mapping[str, str]) -> str:
    rows = "".join(
        f'<tr><th>{html.escape(k)}</th><td class="wrap">{html.escape(v)}</td></tr>'
        for k, v in inputs.items()
    )
    return f'<table class="inputs">{rows}</table>'


def _mappings(mappings: Sequence[MappingRecord]) -> str:
    rows = []
    for m in mappings:
        tiles = (
            "<br>".join(
                f"{html.escape(level)}: <code>{html.escape(text)}</code>"
                for level, text in m.tiles.items()
            )
            or "none (untiled)"
        )
        rows.append(
            f'<tr><td class="wrap">{html.escape(m.label)}</td><td>{html.escape(m.name)}</td>'
            f'<td class="wrap"><code>{html.escape(m.space_stamp)}</code></td>'
            f'<td class="wrap"><code>{html.escape(m.time_stamp)}</code></td>'
            f'<td class="wrap">{tiles}</td></tr>'
        )
    return (
        '<div class="wide"><table class="sortable"><thead><tr><th>reported for</th>'
        "<th>mapping</th><th>space-stamp</th><th>time-stamp</th><th>tile stamps</th></tr>"
        "</thead><tbody>\n" + "\n".join(rows) + "\n</tbody></table></div>"
    )


def render_report(report: Report) -> str:
    """Return ``report`` as the text of one self-contained HTML page.

    Examples
    --------
    >>> import pandas as pd
    >>> page = render_report(Report("gemm on systolic-2d-8x8", {"objective": "latency"},
    ...     tables=[("best", pd.DataFrame({"name": ["os"], "latency_cycles": [47]}))]))
    >>> "<span class=\\"unit\\">cycles</span>" in page, 'data-value="47"' in page
    (True, True)
    """
    title = html.escape(report.title)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{title}</title><style>{STYLE}</style></head><body>",
        f"<h1>{title}</h1>",
        *(f'<p class="note">{html.escape(note)}</p>' for note in report.notes),
        "<h2>Inputs</h2>",
        _inputs(report.inputs),
    ]
    for heading, table in report.tables:
        parts += [f"<h2>{html.escape(heading)}</h2>", _table(table)]
    for heading, figure in report.figures:
        parts += [f"<h2>{html.escape(heading)}</h2>", f"<figure>{figure_svg(figure)}</figure>"]
    if report.mappings:
        parts += ["<h2>Dataflows of the reported mappings</h2>", _mappings(report.mappings)]
    parts += [f"<script>{SORTING}</script>", "</body></html>", ""]
    return "\n".join(parts)


def write_report(report: Report, path: str | Path) -> Path:
    """Write ``report`` as an HTML page to ``path`` through a temporary file; return the
    path."""
    text = render_report(report)
    return write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
