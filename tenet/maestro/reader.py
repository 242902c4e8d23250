"""Readers of MAESTRO's description language (``.m`` mapping files) and hardware files.

Text -> :class:`~tenet.maestro.directives.Network` / :class:`~tenet.maestro.directives.Hardware`.
The grammar is MAESTRO's: ``Constant NAME VALUE;``, ``Network NAME { Layer NAME { Type: T
Stride {...} Dimensions {...} Dataflow {...} } }``; commas, colons, parentheses and semicolons
only separate tokens, ``//`` starts a comment, ``Sz(D)`` is D's size. A layer without a
``Dataflow`` block reuses the previous layer's, as in MAESTRO. Every malformed input raises
:class:`~tenet.errors.SpecError` with the file and line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Literal, cast

from pydantic import ValidationError

from tenet.errors import SpecError
from tenet.maestro.directives import (
    ClusterDirective,
    Directive,
    Hardware,
    Layer,
    LayerType,
    MapDirective,
    Network,
)
from tenet.spec.io import read_text

__all__ = ["parse_mapping", "load_mapping", "parse_hardware", "load_hardware"]

_TOKEN = re.compile(r"[{}]|[^\s,():;{}]+")
_LAYER_TYPES = ("CONV", "TRCONV", "DSCONV", "NGCONV", "GEMM")
_UNIMPLEMENTED_TYPES = ("FC", "POOL", "LSTM", "RESIDUAL_IDENTITY")
_HW_KEYS = {
    "num_pes": "num_pes",
    "l1_size_cstr": "l1_size",
    "l2_size_cstr": "l2_size",
    "noc_bw_cstr": "noc_bandwidth",
    "NoC_NumHops": "noc_latency",
    "offchip_bw_cstr": "offchip_bandwidth",
}


def _tokens(text: str) -> Iterator[tuple[str, int]]:
    for number, line in enumerate(text.splitlines(), start=1):
        for match in _TOKEN.finditer(line.split("//", 1)[0]):
            yield match.group(), number


class _Stream:
    """Tokens with one-token look-ahead and errors that name the file and line."""

    def __init__(self, text: str, source: str | None):
        self.items = list(_tokens(text))
        self.pos = 0
        self.source = source

    def line(self) -> int:
        if self.pos < len(self.items):
            return self.items[self.pos][1]
        return self.items[-1][1] if self.items else 1

    def error(self, reason: str, line: int | None = None) -> SpecError:
        return SpecError(reason, source=self.source, location=f"line {line or self.line()}")

    def peek(self) -> str | None:
        return self.items[self.pos][0] if self.pos < len(self.items) else None

    def next(self, what: str) -> str:
        if self.pos >= len(self.items):
            raise self.error(f"unexpected end of file, expected {what}")
        token = self.items[self.pos][0]
        self.pos += 1
        return token

    def expect(self, token: str) -> None:
        got = self.next(repr(token))
        if got != token:
            self.pos -= 1
            raise self.error(f"expected {token!r}, got {got!r}")

    def name_until_brace(self, what: str) -> str:
        words = []
        while self.peek() not in ("{", None):
            words.append(self.next(what))
        self.expect("{")
        return " ".join(words)


def _value(stream: _Stream, constants: dict[str, int], dims: dict[str, int], what: str) -> int:
    token = stream.next(what)
    if token == "Sz":
        dim = stream.next("a dimension after Sz")
        if dim not in dims:
            raise stream.error(f"Sz({dim}): {dim} is not among the layer's Dimensions")
        return dims[dim]
    if token in constants:
        return constants[token]
    try:
        value = int(token)
    except ValueError:
        raise stream.error(f"{what}: {token!r} is neither an integer nor a Constant") from None
    if value <= 0:
        raise stream.error(f"{what} must be a positive integer, got {value}")
    return value


def _pairs(stream: _Stream, constants: dict[str, int], what: str) -> dict[str, int]:
    stream.expect("{")
    pairs: dict[str, int] = {}
    while (token := stream.next(f"a dimension or '}}' in {what}")) != "}":
        pairs[token] = _value(stream, constants, {}, f"{what} {token}")
    return pairs


def _dataflow(
    stream: _Stream, constants: dict[str, int], dims: dict[str, int]
) -> tuple[Directive, ...]:
    stream.expect("{")
    directives: list[Directive] = []
    while (token := stream.next("a directive or '}'")) != "}":
        line = stream.items[stream.pos - 1][1]
        if token in ("SpatialMap", "TemporalMap"):
            size = _value(stream, constants, dims, f"{token} size")
            offset = _value(stream, constants, dims, f"{token} offset")
            dim = stream.next(f"the dimension of {token}")
            kind: Literal["spatial", "temporal"] = (
                "spatial" if token == "SpatialMap" else "temporal"
            )
            directives.append(MapDirective(kind=kind, size=size, offset=offset, dim=dim, line=line))
        elif token == "Cluster":
            size = _value(stream, constants, dims, "Cluster size")
            cluster = stream.next("P or L")
            if cluster not in ("P", "L"):
                raise stream.error(f"Cluster type must be P or L, got {cluster!r}", line)
            directives.append(
                ClusterDirective(size=size, kind=cast(Literal["P", "L"], cluster), line=line)
            )
        else:
            raise stream.error(f"expected SpatialMap, TemporalMap or Cluster, got {token!r}", line)
    return tuple(directives)


def _layer(
    stream: _Stream, constants: dict[str, int], previous: tuple[Directive, ...] | None
) -> Layer:
    line = stream.line()
    name = stream.name_until_brace("the layer name") or "Layer"
    layer_type: str | None = None
    dims: dict[str, int] = {}
    strides: dict[str, int] = {}
    directives: tuple[Directive, ...] | None = None
    while (token := stream.next(f"a layer item or '}}' in layer {name}")) != "}":
        if token == "Type":
            layer_type = stream.next("a layer type")
            if layer_type in _UNIMPLEMENTED_TYPES:
                raise stream.error(
                    f"layer {name}: type {layer_type} is recognised by MAESTRO but not "
                    f"implemented in its model (supported: {', '.join(_LAYER_TYPES)})"
                )
            if layer_type not in _LAYER_TYPES:
                raise stream.error(
                    f"layer {name}: unknown type {layer_type!r} "
                    f"(supported: {', '.join(_LAYER_TYPES)})"
                )
        elif token == "Stride":
            strides.update(_pairs(stream, constants, "Stride"))
        elif token == "Dimensions":
            dims.update(_pairs(stream, constants, "Dimensions"))
        elif token == "Dataflow":
            directives = _dataflow(stream, constants, dims)
        else:
            raise stream.error(
                f"layer {name}: expected Type, Stride, Dimensions or Dataflow, got {token!r}"
            )
    if layer_type is None:
        raise stream.error(f"layer {name} has no Type", line)
    if not dims:
        raise stream.error(f"layer {name} has no Dimensions", line)
    if directives is None:
        if previous is None:
            raise stream.error(f"layer {name} has no Dataflow and no previous layer's", line)
        directives = previous
    try:
        return Layer(
            name=name,
            type=cast(LayerType, layer_type),
            dims=dims,
            strides=strides,
            directives=directives,
            line=line,
        )
    except ValidationError as exc:
        raise stream.error(f"layer {name}: {exc.errors()[0]['msg']}", line) from exc


def parse_mapping(text: str, source: str | None = None) -> Network:
    """Parse a MAESTRO mapping file's text into a :class:`Network`.

    Examples
    --------
    >>> net = parse_mapping('''Constant T 4;
    ... Network N { Layer L { Type: GEMM
    ...   Dimensions { M: 8, N: 8, K: T }
    ...   Dataflow { SpatialMap(1,1) M; TemporalMap(Sz(K),Sz(K)) K; } } }''')
    >>> net.layers[0].dims, net.layers[0].directives[1].text()
    ({'M': 8, 'N': 8, 'K': 4}, 'TemporalMap(4,4) K')
    """
    stream = _Stream(text, source)
    constants: dict[str, int] = {}
    name: str | None = None
    layers: list[Layer] = []
    while (token := stream.peek()) is not None:
        stream.next("Constant or Network")
        if token == "Constant":
            key = stream.next("a constant name")
            constants[key] = _value(stream, constants, {}, f"Constant {key}")
        elif token == "Network":
            name = stream.name_until_brace("the network name") or name
            while (item := stream.next("Layer or '}'")) != "}":
                if item != "Layer":
                    raise stream.error(f"expected Layer or '}}' in the network, got {item!r}")
                previous = layers[-1].directives if layers else None
                layers.append(_layer(stream, constants, previous))
        elif token == "Accelerator":
            raise stream.error("Accelerator blocks are not supported; give a hardware file")
        else:
            raise stream.error(f"expected Constant or Network, got {token!r}")
    if not layers:
        raise SpecError("no Network with layers in the file", source=source)
    return Network(name=name or "Network", layers=tuple(layers), source=source)


def load_mapping(path: str | Path) -> Network:
    """Read a MAESTRO mapping file (``.m``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = pathlib.Path(d, "g.m")
    ...     _ = path.write_text("Network G { Layer L { Type: GEMM Dimensions { M 2 N 2 K 2 }"
    ...                         " Dataflow { SpatialMap(1,1) M; } } }")
    ...     load_mapping(path).name
    'G'
    """
    return parse_mapping(read_text(path), source=str(path))


def parse_hardware(text: str, source: str | None = None) -> Hardware:
    """Parse a MAESTRO hardware file (``key: value`` lines) into :class:`Hardware`.

    Examples
    --------
    >>> hw = parse_hardware("num_pes: 64\\nnoc_bw_cstr: 64\\nNoC_NumHops: 1")
    >>> hw.num_pes, hw.noc_bandwidth, hw.noc_latency
    (64, 64, 1)
    """
    values: dict[str, int] = {}
    stream = _Stream(text, source)
    while (key := stream.peek()) is not None:
        line = stream.line()
        stream.next("a hardware key")
        if key not in _HW_KEYS:
            raise stream.error(f"unknown hardware key {key!r} (known: {', '.join(_HW_KEYS)})", line)
        token = stream.next(f"the value of {key}")
        try:
            values[_HW_KEYS[key]] = int(token)
        except ValueError:
            raise stream.error(f"{key}: {token!r} is not an integer", line) from None
    try:
        return Hardware(**values, source=source)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0])
        key = next(k for k, v in _HW_KEYS.items() if v == field)
        raise SpecError(f"{key}: {err['msg']}", source=source) from exc


def load_hardware(path: str | Path) -> Hardware:
    """Read a MAESTRO hardware file."""
    return parse_hardware(read_text(path), source=str(path))
