"""The zoo's files: where ``arch_zoo/``, ``workloads/``, ``workloads/dataflows/`` and
``workloads/networks/`` live (beside the package in a source checkout, inside it in an
installed wheel), and which file and template arguments a zoo name denotes: a file's own name,
or one of the presets its ``template`` section declares."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal, get_args

from tenet.errors import SpecError
from tenet.spec.template import Entry, read_entry

__all__ = ["Kind", "KINDS", "find_entry", "zoo_entries", "zoo_folder", "zoo_names", "zoo_path"]

Kind = Literal["architecture", "workload", "dataflow", "network"]

KINDS: tuple[Kind, ...] = get_args(Kind)

_FOLDERS: dict[str, tuple[str, ...]] = {
    "architecture": ("arch_zoo",),
    "workload": ("workloads",),
    "dataflow": ("workloads", "dataflows"),
    "network": ("workloads", "networks"),
}


def zoo_folder(kind: Kind) -> Path:
    """Return the folder holding the zoo entries of ``kind``."""
    package = Path(__file__).resolve().parents[1]
    for base in (package / "_data", package.parent):
        folder = base.joinpath(*_FOLDERS[kind])
        if folder.is_dir():
            return folder
    return package.parent.joinpath(*_FOLDERS[kind])


def zoo_path(kind: Kind, name: str) -> Path | None:
    """Return the file named ``name`` among the zoo entries of ``kind``, or None."""
    path = zoo_folder(kind) / f"{name}.yaml"
    return path if path.is_file() else None


@lru_cache(maxsize=64)
def _entries(folder: Path, stamp: tuple[tuple[str, int], ...]) -> tuple[Entry, ...]:
    return tuple(read_entry(folder / name) for name, _ in stamp)


def zoo_entries(kind: Kind) -> tuple[Entry, ...]:
    """Return the entries (files) of ``kind``, sorted by name; re-read when a file changes."""
    folder = zoo_folder(kind)
    if not folder.is_dir():
        return ()
    files = sorted(folder.glob("*.yaml"), key=lambda p: p.stem)
    return _entries(folder, tuple((p.name, p.stat().st_mtime_ns) for p in files))


def zoo_names(kind: Kind) -> list[str]:
    """Return every zoo name of ``kind``: file names and preset names, sorted.

    Examples
    --------
    >>> {"systolic-2d", "systolic-2d-8x8"} <= set(zoo_names("architecture"))
    True
    """
    names = []
    for entry in zoo_entries(kind):
        names.append(entry.stem)
        names.extend(entry.template.presets)
    return sorted(names)


def find_entry(kind: Kind, name: str) -> tuple[Entry, dict[str, int]] | None:
    """Return the entry a zoo name denotes and the preset's arguments, or None.

    Examples
    --------
    >>> entry, args = find_entry("architecture", "systolic-2d-16x16")
    >>> entry.stem, args
    ('systolic-2d', {'rows': 16, 'cols': 16})
    """
    path = zoo_path(kind, name)
    if path is not None:
        return read_entry(path), {}
    found = [
        (entry, dict(entry.template.presets[name]))
        for entry in zoo_entries(kind)
        if name in entry.template.presets
    ]
    if len(found) > 1:
        raise SpecError(
            f"zoo name {name!r} is a preset of several {kind} files: "
            + ", ".join(str(entry.path) for entry, _ in found)
        )
    return found[0] if found else None
