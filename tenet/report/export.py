"""Report tables -> text files: CSV, Markdown, JSON (a list of records) and HTML, written
through a temporary file; CSV and JSON read back into the same DataFrame."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tenet.errors import SpecError
from tenet.files import write_atomically
from tenet.spec.io import strict_json

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FORMATS", "Format", "format_of", "read_table", "render_table", "write_table"]

Format = Literal["csv", "markdown", "json", "html"]

FORMATS: dict[str, Format] = {
    ".csv": "csv",
    ".md": "markdown",
    ".markdown": "markdown",
    ".json": "json",
    ".html": "html",
    ".htm": "html",
}
"""File suffix -> table format."""


def format_of(path: str | Path) -> Format:
    """Return the table format of a file from its suffix.

    Examples
    --------
    >>> format_of("reuse.md")
    'markdown'
    """
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise SpecError(
            f"cannot tell the table format from {suffix or 'no suffix'!r}: "
            f"expected one of {', '.join(FORMATS)}",
            source=str(path),
        )
    return FORMATS[suffix]


def _records(table: pd.DataFrame) -> list[dict[str, object]]:
    """Rows as dicts of Python values, missing values as None (valid JSON)."""
    return [
        {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()}
        for row in table.to_dict(orient="records")
    ]


def render_table(table: pd.DataFrame, fmt: Format) -> str:
    """Return ``table`` as CSV, Markdown (pipe table), JSON (list of records) or HTML text.

    Floats keep every digit in CSV and JSON; Markdown and HTML show 6 significant digits.

    Examples
    --------
    >>> import pandas as pd
    >>> print(render_table(pd.DataFrame({"design": ["os"], "latency_cycles": [6]}), "markdown"))
    | design   |   latency_cycles |
    |:---------|-----------------:|
    | os       |                6 |
    """
    if fmt == "csv":
        return str(table.to_csv(index=False).rstrip("\n"))
    if fmt == "markdown":
        return str(table.to_markdown(index=False))
    if fmt == "json":
        return strict_json(_records(table))
    if fmt == "html":
        return str(table.to_html(index=False, na_rep=""))
    raise SpecError(f"unknown table format {fmt!r}: expected csv, markdown, json or html")


def write_table(table: pd.DataFrame, path: str | Path, fmt: Format | None = None) -> Path:
    """Write ``table`` to ``path`` (format from the suffix unless ``fmt``) through a temporary
    file renamed into place; return the path."""
    text = render_table(table, fmt or format_of(path))
    return write_atomically(path, lambda tmp: tmp.write_text(text + "\n"))


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a table written as CSV or JSON back into a DataFrame (floats exactly).

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> table = pd.DataFrame({"design": ["os"], "utilisation": [2 / 3]})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     back = read_table(write_table(table, Path(folder) / "t.json"))
    >>> back.equals(table)
    True
    """
    import pandas as pd

    fmt = format_of(path)
    if fmt == "csv":
        return pd.read_csv(path)
    if fmt == "json":
        with open(path) as f:
            return pd.DataFrame.from_records(json.load(f))
    raise SpecError(f"only CSV and JSON tables are read back, not {fmt}", source=str(path))
