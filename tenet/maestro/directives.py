"""Data-centric dataflows as data: MAESTRO's directives, layers, networks and hardware.

This is the boundary of the comparison side: :mod:`tenet.maestro.reader` turns MAESTRO's
description language into these frozen models, :mod:`tenet.maestro.estimate` estimates them and
:mod:`tenet.maestro.lowering` turns them into relation-centric specs.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tenet.errors import SpecError

__all__ = [
    "MapDirective",
    "ClusterDirective",
    "Directive",
    "LayerType",
    "LAYER_TENSORS",
    "Layer",
    "Network",
    "Hardware",
    "tensor_dims",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MapDirective(_Frozen):
    """``SpatialMap(size, offset) dim`` or ``TemporalMap(size, offset) dim``.

    A temporal map gives every unit of its level the same window of ``size`` indices of ``dim``
    and moves it by ``offset`` per step; a spatial map gives unit ``i`` the window starting at
    ``i * offset`` and folds in time when the units do not cover ``dim``.

    Examples
    --------
    >>> MapDirective(kind="spatial", size=1, offset=1, dim="K").text()
    'SpatialMap(1,1) K'
    """

    kind: Literal["spatial", "temporal"] = Field(description="Spatial or temporal map.")
    size: int = Field(gt=0, description="Window size, in indices of dim.")
    offset: int = Field(gt=0, description="Window step, in indices of dim.")
    dim: str = Field(min_length=1, description="Dimension name (K, C, R, S, Y, X, Y', X', ...).")
    line: int | None = Field(None, exclude=True, description="Line in the mapping file.")

    @property
    def spatial(self) -> bool:
        """Whether this is a spatial map."""
        return self.kind == "spatial"

    def text(self) -> str:
        """Return the directive in MAESTRO's syntax."""
        name = "SpatialMap" if self.spatial else "TemporalMap"
        return f"{name}({self.size},{self.offset}) {self.dim}"


class ClusterDirective(_Frozen):
    """``Cluster(size, P|L)``: the directives below it run inside groups of ``size`` units.

    Examples
    --------
    >>> ClusterDirective(size=8).text()
    'Cluster(8,P)'
    """

    size: int = Field(gt=0, description="Units per cluster.")
    kind: Literal["P", "L"] = Field("P", description="Physical or logical (same behaviour).")
    line: int | None = Field(None, exclude=True, description="Line in the mapping file.")

    def text(self) -> str:
        """Return the directive in MAESTRO's syntax."""
        return f"Cluster({self.size},{self.kind})"


Directive = MapDirective | ClusterDirective
LayerType = Literal["CONV", "TRCONV", "DSCONV", "NGCONV", "GEMM"]

LAYER_TENSORS: dict[str, dict[str, tuple[str, ...]]] = {
    "CONV": {"input": ("C", "Y", "X"), "filter": ("K", "C", "R", "S"), "output": ("K", "Y", "X")},
    "TRCONV": {
        "input": ("C", "Y", "X"),
        "filter": ("K", "C", "R", "S"),
        "output": ("K", "Y", "X"),
    },
    "DSCONV": {"input": ("C", "Y", "X"), "filter": ("C", "R", "S"), "output": ("C", "Y", "X")},
    "NGCONV": {
        "input": ("G", "C", "Y", "X"),
        "filter": ("G", "K", "C", "R", "S"),
        "output": ("G", "K", "C", "Y", "X"),
    },
    "GEMM": {"input": ("M", "K"), "filter": ("K", "N"), "output": ("M", "N")},
}
"""Dimensions indexing each tensor, per layer type (MAESTRO's fixed operator set). Convolutions
index the input and output rows/columns by Y/X; the output's are Y' = Y - R + 1 and
X' = X - S + 1. A batch dimension N, when given, indexes input and output of convolutions."""


class Layer(_Frozen):
    """One layer of a mapping file: operator type, loop bounds, strides and dataflow.

    Examples
    --------
    >>> layer = Layer(name="L", type="GEMM", dims={"M": 4, "N": 4, "K": 4}, directives=(
    ...     MapDirective(kind="spatial", size=1, offset=1, dim="M"),))
    >>> layer.tensors["filter"]
    ('K', 'N')
    """

    name: str = Field(description="Layer name.")
    type: LayerType = Field(description="Operator: CONV, TRCONV, DSCONV, NGCONV or GEMM.")
    dims: dict[str, int] = Field(description="Loop bounds, in the file's order.")
    strides: dict[str, int] = Field(default_factory=dict, description="Stride per dimension.")
    directives: tuple[MapDirective | ClusterDirective, ...] = Field(
        description="The dataflow, outermost directive first."
    )
    line: int | None = Field(None, exclude=True, description="Line of the layer in its file.")

    @property
    def tensors(self) -> dict[str, tuple[str, ...]]:
        """Return the dimensions indexing ``input``, ``filter`` and ``output``."""
        return tensor_dims(self.type, self.dims)

    def dataflow_text(self) -> str:
        """Return the directives in MAESTRO's syntax, one per line."""
        return "\n".join(f"{d.text()};" for d in self.directives)


class Network(_Frozen):
    """A mapping file: a network name and its layers."""

    name: str = Field(description="Network name.")
    layers: tuple[Layer, ...] = Field(description="Layers in file order.")
    source: str | None = Field(None, exclude=True, description="File it was read from.")

    def layer(self, name: str | None = None) -> Layer:
        """Return the layer called ``name`` (the first layer when None).

        Raises
        ------
        SpecError
            No layer of that name, listing the layers.

        Examples
        --------
        >>> one = Layer(name="g", type="GEMM", dims={"M": 8, "N": 8, "K": 8}, directives=())
        >>> Network(name="n", layers=(one,)).layer().name
        'g'
        """
        if name is None:
            return self.layers[0]
        for layer in self.layers:
            if layer.name == name:
                return layer
        known = ", ".join(layer.name for layer in self.layers)
        raise SpecError(f"no layer {name!r} in the network (layers: {known})", source=self.source)


class Hardware(_Frozen):
    """A MAESTRO hardware file. Sizes are in elements, bandwidths in elements per cycle.

    MAESTRO only warns when buffer sizes or bandwidths are exceeded; the NoC bandwidth and hop
    latency shape the estimated delays, the off-chip bandwidth the top level's fill time.

    Examples
    --------
    >>> Hardware(num_pes=64).noc_latency
    1
    """

    num_pes: int = Field(1, gt=0, description="Number of PEs.")
    l1_size: int = Field(2**31 - 1, ge=0, description="Per-PE buffer size (l1_size_cstr).")
    l2_size: int = Field(2**31 - 1, ge=0, description="Shared buffer size (l2_size_cstr).")
    noc_bandwidth: int = Field(2**31 - 1, gt=0, description="NoC elements/cycle (noc_bw_cstr).")
    noc_latency: int = Field(1, ge=0, description="Cycles per transfer (NoC_NumHops).")
    offchip_bandwidth: int = Field(
        2**31 - 1, gt=0, description="Off-chip elements/cycle (offchip_bw_cstr)."
    )
    simd_lanes: int = Field(1, gt=0, description="MACs per PE per cycle.")
    source: str | None = Field(None, exclude=True, description="File it was read from.")


def tensor_dims(layer_type: str, dims: dict[str, int]) -> dict[str, tuple[str, ...]]:
    """Return the dimensions indexing each tensor of a ``layer_type`` layer with loop bounds
    ``dims`` (a batch dimension N indexes the input and output of convolutions).

    Examples
    --------
    >>> tensor_dims("CONV", {"N": 2, "K": 1})["output"]
    ('N', 'K', 'Y', 'X')
    """
    tensors = LAYER_TENSORS[layer_type]
    if layer_type == "GEMM" or "N" not in dims:
        return dict(tensors)
    return {
        name: (("N", *vars_) if name in ("input", "output") else vars_)
        for name, vars_ in tensors.items()
    }
