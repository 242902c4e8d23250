"""NetworkSpec: a network as a list of layers, each a zoo workload with its sizes, and where a
layer's input comes from when it is the output of the layer just before it."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from tenet.spec.base import SpecModel

__all__ = ["LayerInput", "LayerSpec", "NetworkSpec"]


class LayerInput(BaseModel):
    """Where one input of a layer comes from: the output (the tensor its workload writes) of
    the layer just before it, which this layer is the only one to read."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    producer: str = Field(alias="from", description="The layer whose output this input is.")
    tensor: str = Field(description="The tensor of this layer's workload that it reads.")

    @model_serializer(mode="wrap")
    def _as_written(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Written back under the file's key, ``from``."""
        data: dict[str, Any] = handler(self)
        return {"from" if k == "producer" else k: v for k, v in data.items()}


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
    input: LayerInput | None = Field(
        None, description="The input that is the output of the layer just before (its name)."
    )


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

    @model_validator(mode="after")
    def _inputs_from_the_layer_before(self) -> NetworkSpec:
        """A layer's input comes from the entry just before it, with the same count (the
        edge holds in each repeat)."""
        names = [layer.name for layer in self.layers]
        for k, layer in enumerate(self.layers):
            if layer.input is None:
                continue
            producer = layer.input.producer
            where = f"layers.{k}.input.from"
            if producer not in names:
                raise ValueError(f"{where}: {producer!r} is not a layer of the network")
            if k == 0 or names[k - 1] != producer:
                before = f"the layer just before is {names[k - 1]!r}" if k else "it is first"
                raise ValueError(
                    f"{where}: layer {layer.name!r} takes its input from {producer!r}, which "
                    f"does not run just before it ({before}): only the output of the layer "
                    "just before stays on chip"
                )
            if self.layers[k - 1].count != layer.count:
                raise ValueError(
                    f"{where}: layer {layer.name!r} (count {layer.count}) takes its input from "
                    f"{producer!r} (count {self.layers[k - 1].count}): an edge holds in each "
                    "repeat, so both need the same count"
                )
        return self
