"""Figures to files: a plot's figure written as PNG, SVG or PDF (the format from the file's
suffix) through a temporary file renamed into place."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from tenet.errors import SpecError
from tenet.files import write_atomically

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["IMAGE_FORMATS", "image_format", "save_axes", "save_figure"]

IMAGE_FORMATS = ("png", "svg", "pdf")
"""The image formats a figure is written in, by file suffix."""


def image_format(path: str | Path) -> str | None:
    """Return the image format of ``path`` from its suffix (one of :data:`IMAGE_FORMATS`), or
    None when it has none of them.

    Examples
    --------
    >>> image_format("front.SVG"), image_format("front.txt")
    ('svg', None)
    """
    suffix = Path(path).suffix.lower().lstrip(".")
    return suffix if suffix in IMAGE_FORMATS else None


def save_figure(figure: Figure, output: str | Path, option: str | None = None) -> None:
    """Save ``figure`` to ``output`` in the format of its suffix, through a temporary file;
    ``option`` names where ``output`` came from in the error of a wrong suffix."""
    found = image_format(output)
    if found is None:
        raise SpecError(f"expected a .png, .svg or .pdf file, got {str(output)!r}", source=option)
    write_atomically(output, lambda tmp: figure.savefig(tmp, format=found))


def save_axes(ax: Axes, output: str | Path, option: str | None = None) -> None:
    """Save the figure ``ax`` is drawn on, as :func:`save_figure` does; the plots of
    :mod:`tenet.report` draw on top-level figures."""
    save_figure(cast("Figure", ax.figure), output, option)
