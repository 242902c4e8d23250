"""Where the shipped entries live: ``arch_zoo/``, ``workloads/`` and ``workloads/dataflows/``,
found beside the package (source checkout) or inside it (installed wheel)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

__all__ = ["Kind", "zoo_folder", "zoo_names", "zoo_path"]

Kind = Literal["architecture", "workload", "dataflow"]

_FOLDERS: dict[str, tuple[str, ...]] = {
    "architecture": ("arch_zoo",),
    "workload": ("workloads",),
    "dataflow": ("workloads", "dataflows"),
}


def zoo_folder(kind: Kind) -> Path:
    """Return the folder holding the zoo entries of ``kind``."""
    package = Path(__file__).resolve().parent
    for base in (package / "_data", package.parent):
        folder = base.joinpath(*_FOLDERS[kind])
        if folder.is_dir():
            return folder
    return package.parent.joinpath(*_FOLDERS[kind])


def zoo_names(kind: Kind) -> list[str]:
    """Return the names of the zoo entries of ``kind``, sorted.

    Examples
    --------
    >>> "systolic-2d-8x8" in zoo_names("architecture")
    True
    """
    folder = zoo_folder(kind)
    return sorted(p.stem for p in folder.glob("*.yaml")) if folder.is_dir() else []


def zoo_path(kind: Kind, name: str) -> Path | None:
    """Return the file of the zoo entry ``name`` of ``kind``, or None if there is none."""
    path = zoo_folder(kind) / f"{name}.yaml"
    return path if path.is_file() else None
