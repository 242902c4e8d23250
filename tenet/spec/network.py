"""NetworkSpec: a network as a list of layers, each a zoo workload with its sizes."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from tenet.spec.base import SpecModel

__all__ = ["LayerSpec", "NetworkSpec"]


class LayerSpec(BaseModel):
    """One layer: a workload (zoo name, optionally with template arguments such as
    ``conv2d:stride=2``), its size parameters and how many times it occurs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="Layer name, as in the publication.")
    workload: str = Field(description="Workload: zoo name (NAME:ARG=VALUE,...) or YAML file.")
    params: dict[str, int] = Field(
        default_factory=dict, description="Size parameters of the layer's workload."
    )
    count: int = Field(1, ge=1, description="Number of identical layers this entry stands for.")


class NetworkSpec(SpecModel):
    """A network: its layers in execution order.

    Examples
    --------
    >>> spec = NetworkSpec.from_mapping({"name": "mlp", "layers": [
    ...     {"name": "fc1", "workload": "gemm", "params": {"M": 1, "N": 256, "K": 784}},
    ...     {"name": "fc2", "workload": "gemm", "params": {"M": 1, "N": 10, "K": 256}}]})
    >>> [layer.name for layer in spec.layers]
    ['fc1', 'fc2']
    """

    kind: ClassVar[str] = "network"

    layers: tuple[LayerSpec, ...] = Field(min_length=1, description="The layers, in order.")
