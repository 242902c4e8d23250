"""Files in and out: read YAML spec files safely (remembering the line of every key for error
messages), and write outputs through a temporary file renamed into place."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from tenet.errors import SpecError

__all__ = ["read_text", "read_yaml", "write_atomically"]


def read_text(path: str | Path) -> str:
    """Return the text of ``path``; a missing or unreadable file is a :class:`SpecError`."""
    try:
        return Path(path).read_text()
    except FileNotFoundError as exc:
        raise SpecError("file not found", source=str(path)) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"cannot read file ({exc})", source=str(path)) from exc


def _lines(node: yaml.Node, prefix: str, out: dict[str, int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            path = f"{prefix}.{key.value}" if prefix else str(key.value)
            out[path] = key.start_mark.line + 1
            _lines(value, path, out)
    elif isinstance(node, yaml.SequenceNode):
        for k, item in enumerate(node.value):
            path = f"{prefix}.{k}"
            out[path] = item.start_mark.line + 1
            _lines(item, path, out)


def read_yaml(path: str | Path) -> tuple[dict[str, Any], dict[str, int]]:
    """Return the top-level mapping of a YAML file and the line of each dotted key path."""
    text = read_text(path)
    loader = yaml.SafeLoader(text)  # parsed once: the node for the lines, then the data
    try:
        node = loader.get_single_node()
        data = None if node is None else loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise SpecError(f"not valid YAML ({exc})".replace("\n", " "), source=str(path)) from exc
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise SpecError("expected a mapping at the top level", source=str(path))
    lines: dict[str, int] = {}
    if node is not None:
        _lines(node, "", lines)
    return data, lines


def write_atomically(path: str | Path, write: Callable[[Path], object]) -> Path:
    """Call ``write`` on a temporary file beside ``path``, then rename it to ``path``: a
    reader never sees a half-written file, and a failed write leaves ``path`` as it was.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     out = write_atomically(Path(folder) / "a.txt", lambda tmp: tmp.write_text("ok"))
    ...     out.read_text()
    'ok'
    """
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target
