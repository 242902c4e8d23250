"""Files in: read YAML spec files safely (remembering the line of every key for error
messages); JSON out without NaN or infinities. Outputs are written by
:func:`tenet.files.write_atomically` (also importable from here)."""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from tenet.errors import SpecError
from tenet.files import write_atomically  # re-exported for readers of tenet.spec.io

__all__ = [
    "MAX_INPUT_BYTES",
    "MAX_YAML_NODES",
    "strict_json",
    "read_text",
    "read_yaml",
    "write_atomically",
]

MAX_INPUT_BYTES = 4 * 2**20
"""The largest input file read (bytes): spec files are small, and a larger one is refused
before it is read rather than parsed for minutes."""

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_text(path: str | Path, limit: int = MAX_INPUT_BYTES) -> str:
    """Return the UTF-8 text of ``path``, read once; a missing, unreadable, binary or larger
    than ``limit`` bytes file, or a directory, is a :class:`SpecError`."""
    source = str(path)
    try:
        with open(path, "rb") as stream:
            data = stream.read(limit + 1)
    except FileNotFoundError as exc:
        raise SpecError("file not found", source=source) from exc
    except IsADirectoryError as exc:
        raise SpecError("is a directory, not a file", source=source) from exc
    except OSError as exc:
        raise SpecError(f"cannot read file ({exc.strerror or exc})", source=source) from exc
    if len(data) > limit:
        raise SpecError(
            f"file larger than {limit // 2**20} MB; input files this large are not read",
            source=source,
        )
    if b"\0" in data:
        raise SpecError("a binary file, not text", source=source)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SpecError(
            f"not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}): a binary file?",
            source=source,
        ) from exc


MAX_YAML_NODES = 1_000_000
"""The most YAML nodes (aliases counted every time they are used) a spec file may hold."""


def _lines(node: yaml.Node, prefix: str, out: dict[str, int], source: str) -> None:
    if len(out) > MAX_YAML_NODES:
        raise SpecError(
            f"more than {MAX_YAML_NODES} YAML values (with aliases expanded); not a spec file",
            source=source,
        )
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            path = f"{prefix}.{key.value}" if prefix else str(key.value)
            out[path] = key.start_mark.line + 1
            _lines(value, path, out, source)
    elif isinstance(node, yaml.SequenceNode):
        for k, item in enumerate(node.value):
            path = f"{prefix}.{k}"
            out[path] = item.start_mark.line + 1
            _lines(item, path, out, source)


def read_yaml(path: str | Path) -> tuple[dict[str, Any], dict[str, int]]:
    """Return the top-level mapping of a YAML file and the line of each dotted key path."""
    text = read_text(path)
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        raise SpecError(f"not valid YAML ({exc})".replace("\n", " "), source=str(path)) from exc
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise SpecError("expected a mapping at the top level", source=str(path))
    lines: dict[str, int] = {}
    if node is not None:
        _lines(node, "", lines, str(path))
    return data, lines


def _strict(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isnan(number):
            return None
        if math.isinf(number):
            return "inf" if number > 0 else "-inf"
        return number
    if isinstance(value, Mapping):
        return {str(k): _strict(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_strict(v) for v in value]
    if type(value).__name__ in ("NAType", "NaTType"):  # pandas' missing values
        return None
    return value


def strict_json(payload: Any, indent: int | None = 2) -> str:
    """Return ``payload`` as JSON that strict parsers accept: a missing or undefined number
    (NaN) is ``null``, an infinity the string ``"inf"`` or ``"-inf"``; integers keep every
    digit, other numbers (numpy's, fractions) become JSON numbers.

    Examples
    --------
    >>> strict_json({"runtime": float("inf"), "share": float("nan"), "macs": 10**30}, None)
    '{"runtime": "inf", "share": null, "macs": 1000000000000000000000000000000}'
    """
    return json.dumps(_strict(payload), indent=indent, allow_nan=False)
