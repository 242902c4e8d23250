"""Reading and writing the peers' YAML files: tags such as ``!Memory`` kept as a ``kind`` key,
errors that name the file and the YAML path, tenet specs written atomically."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import yaml

from tenet.errors import SpecError
from tenet.files import write_atomically
from tenet.spec.io import read_text

__all__ = ["read_peer_yaml", "need", "need_known", "write_specs", "dump"]


class _Loader(yaml.SafeLoader):
    """Safe YAML with any ``!Tag`` on a mapping read as ``{"kind": "Tag", ...}``."""


def _tagged(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.MappingNode):
        return {"kind": suffix, **loader.construct_mapping(node, deep=True)}
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_scalar(cast(yaml.ScalarNode, node))


_Loader.add_multi_constructor("!", _tagged)


def read_peer_yaml(path: str | Path) -> Any:
    """Return the YAML document of ``path`` (tags kept as ``kind``).

    Raises
    ------
    SpecError
        A file that does not exist, is binary, empty or not YAML.
    """
    text = read_text(path)
    if "{%" in text or "{{" in text:
        raise SpecError("Jinja templates are not read: render the file first", source=str(path))
    try:
        doc = yaml.load(text, Loader=_Loader)  # noqa: S506  (a SafeLoader subclass)
    except yaml.YAMLError as exc:
        raise SpecError(f"not YAML: {exc}".splitlines()[0], source=str(path)) from exc
    if doc is None:
        raise SpecError("the file is empty (no YAML document)", source=str(path))
    return doc


def need(data: Any, key: str | int, kind: type | tuple[type, ...], source: str, where: str) -> Any:
    """Return ``data[key]``, checked to be of ``kind``; a SpecError naming ``where`` if not."""
    path = f"{where}.{key}" if where else str(key)
    try:
        value = data[key]
    except (KeyError, IndexError, TypeError) as exc:
        raise SpecError("missing", source=source, location=path) from exc
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise SpecError(
            f"expected {names}, not {type(value).__name__} {value!r}", source=source, location=path
        )
    return value


def need_known(
    data: Any,
    key: str,
    known: Sequence[str],
    source: str,
    where: str,
    unknown: Callable[[str], str],
) -> str:
    """Return the text ``data[key]``, one of ``known``; if it is another, a SpecError saying
    ``unknown(value)`` and listing the known ones."""
    value: str = need(data, key, str, source, where)
    if value not in known:
        raise SpecError(
            f"{unknown(value)} ({', '.join(known)})", source=source, location=f"{where}.{key}"
        )
    return value


class _Dumper(yaml.SafeDumper):
    """Safe YAML with ``{"kind": "Tag", ...}`` written as a ``!Tag`` mapping."""


class _Tagged(dict[str, Any]):
    pass


def _represent_tagged(dumper: yaml.SafeDumper, data: _Tagged) -> yaml.Node:
    body = {k: v for k, v in data.items() if k != "kind"}
    return dumper.represent_mapping(f"!{data['kind']}", body)


_Dumper.add_representer(_Tagged, _represent_tagged)


def _tag(value: Any) -> Any:
    if isinstance(value, Mapping):
        inner = {k: _tag(v) for k, v in value.items()}
        return _Tagged(inner) if "kind" in inner else inner
    if isinstance(value, (list, tuple)):
        return [_tag(v) for v in value]
    return value


def dump(data: Any) -> str:
    """Return ``data`` as block YAML, keys in their order, ``kind`` keys as ``!Tag``s.

    Examples
    --------
    >>> print(dump({"nodes": [{"kind": "Memory", "name": "dram"}]}), end="")
    nodes:
    - !Memory
      name: dram
    """
    return str(yaml.dump(_tag(data), Dumper=_Dumper, sort_keys=False, width=100))


def _writer(text: str) -> Callable[[Path], object]:
    return lambda tmp: tmp.write_text(text)


def write_specs(directory: str | Path, specs: Mapping[str, Any], header: str = "") -> list[Path]:
    """Write each spec as ``DIRECTORY/<name>.yaml`` (atomically); return the paths."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, data in specs.items():
        path = out / f"{name}.yaml"
        write_atomically(path, _writer(header + dump(data)))
        paths.append(path)
    return paths
