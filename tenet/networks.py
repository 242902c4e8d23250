"""Evaluate a network layer by layer on one architecture: each layer's workload takes the first
of the given dataflows made for it (its ``fits``), the layer is evaluated exactly (its array
model's metrics and its headline: the memory-aware figures, untiled, when the architecture has
levels inside the outermost), a layer's output that the next layer reads stays on chip when
both leave room for it (:mod:`tenet.metrics.residency`), and the per-layer figures are weighted
by the layer's count into network totals."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from tenet.api import load_problem, load_specs
from tenet.errors import SpecError
from tenet.metrics.assessment import Assessment, assess_problem
from tenet.metrics.cache import CountCache
from tenet.metrics.clock import clock_figures
from tenet.metrics.evaluate import Metrics
from tenet.metrics.residency import Edge, LayerRun, keep_outputs
from tenet.model.problem import Problem
from tenet.report.designspace import plot_layers
from tenet.report.html import MappingRecord, Report
from tenet.report.tables import axis_label
from tenet.report.text import fits_line
from tenet.spec import (
    ArchitectureSpec,
    LayerSpec,
    NetworkSpec,
    Specs,
    load_architecture,
    load_dataflow,
    load_network,
)
from tenet.vocab import EnergyUnit, column
from tenet.zoo import fits

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CountCache",
    "Edge",
    "LayerResult",
    "NetworkResult",
    "choose_dataflow",
    "evaluate_network",
    "network_report",
]

_Item = TypeVar("_Item")
_Evaluated = tuple[Metrics, Assessment, Problem]
"""A distinct layer's array metrics, memory assessment and problem."""


@dataclass(frozen=True)
class LayerResult:
    """One layer: its spec, the dataflow it ran with, its array model's metrics and its
    headline (:meth:`tenet.metrics.assessment.Assessment.headline`: the memory-aware figures,
    untiled, when the architecture has levels inside the outermost), for one occurrence."""

    layer: LayerSpec
    dataflow: str
    metrics: Metrics
    headline: Mapping[str, Any]
    dram_saved: int = 0
    """DRAM elements the layer saves by keeping its input or output on chip (per occurrence)."""
    resident: str = ""
    """What the layer keeps on chip between layers (``A from fc1; C to fc3``; empty: nothing)."""


@dataclass(frozen=True)
class NetworkResult:
    """Every layer of a network on one architecture; totals weight each layer by its count."""

    name: str
    architecture: str
    layers: tuple[LayerResult, ...]
    energy_unit: EnergyUnit = "MAC"
    """The unit of the energies: the architecture's energy table's."""
    clock_mhz: float | None = None
    """The architecture's clock frequency (MHz), if it gives one."""
    edges: tuple[Edge, ...] = ()
    """Each layer's input that is the output of the layer before, and whether it stayed on
    chip."""

    def _total(self, figure: str) -> Any:
        """A figure of the layers' headlines weighted by their counts and added up."""
        return sum(r.layer.count * r.headline[figure] for r in self.layers)

    @property
    def macs(self) -> int:
        """Return the MACs of the whole network."""
        return sum(r.layer.count * r.metrics.macs for r in self.layers)

    @property
    def latency(self) -> int | float:
        """Return the latency of the layers run one after the other (their headlines'), in
        cycles."""
        return cast("int | float", self._total(column("latency")))

    @property
    def energy(self) -> float:
        """Return the energy of the whole network (its layers' headlines'), in the
        architecture's energy unit."""
        return cast(float, self._total("energy"))

    @property
    def traffic_dram(self) -> int:
        """Return the elements moved between DRAM and the next level by every layer."""
        return cast(int, self._total(column("traffic_dram")))

    @property
    def dram_saved(self) -> int:
        """Return the DRAM elements the network saves by keeping outputs on chip."""
        return sum(r.layer.count * r.dram_saved for r in self.layers)

    def kept_words(self) -> list[str]:
        """Return what stayed on chip between layers and what did not, one line per edge.

        Examples
        --------
        >>> NetworkResult("n", "a", ()).kept_words()
        []
        """
        return [e.words for e in self.edges]

    @property
    def fits(self) -> bool:
        """Return whether every layer fits its memory levels."""
        return all(r.headline["fits"] for r in self.layers)

    @property
    def volume_unique(self) -> int:
        """Return the scratchpad traffic (unique volume of every tensor), in elements."""
        return sum(
            r.layer.count * sum(t.volume_unique for t in r.metrics.tensors) for r in self.layers
        )

    @property
    def utilisation(self) -> Fraction:
        """Return the occupied share of the (PE, time-stamp) points of all layers."""
        occupied = sum(r.layer.count * r.metrics.occupied_points for r in self.layers)
        offered = sum(
            r.layer.count * r.metrics.pe_count * r.metrics.timestamps for r in self.layers
        )
        return Fraction(occupied, offered) if offered else Fraction(0)

    def rows(self) -> list[dict[str, Any]]:
        """Return one record per layer (figures of one occurrence) and a ``total`` one
        (weighted by the counts), named as the columns of :meth:`table`: the headline first
        (:data:`tenet.metrics.row.HEADLINE_FIELDS`), then the array model's latency and
        energy as ``latency_array_cycles`` and ``energy_array``; with a clock, each one's
        runtime, throughput and average power (of the headline)."""
        rows = [
            {
                "layer": r.layer.name,
                "workload": r.layer.workload,
                "dataflow": r.dataflow,
                "count": r.layer.count,
                "macs": r.metrics.macs,
                **r.headline,
                column("dram_saved"): r.dram_saved,
                "resident": r.resident,
                "utilisation": float(r.metrics.utilisation),
                column("latency_array"): r.metrics.latency,
                "energy_array": r.metrics.energy,
                "volume_unique_elements": sum(t.volume_unique for t in r.metrics.tensors),
            }
            for r in self.layers
        ]
        models = {r.headline["memory_model"] for r in self.layers}
        rows.append(
            {
                "layer": "total",
                "workload": "",
                "dataflow": "",
                "count": sum(r.layer.count for r in self.layers),
                "macs": self.macs,
                column("latency"): self.latency,
                "energy": self.energy,
                "energy_unit": self.energy_unit,
                column("traffic_dram"): self.traffic_dram,
                "fits": self.fits,
                "overflow": None,
                "memory_model": models.pop() if len(models) == 1 else None,
                column("dram_saved"): self.dram_saved,
                "resident": "",
                "utilisation": float(self.utilisation),
                column("latency_array"): sum(
                    r.layer.count * r.metrics.latency for r in self.layers
                ),
                "energy_array": sum(r.layer.count * r.metrics.energy for r in self.layers),
                "volume_unique_elements": self.volume_unique,
            }
        )
        return [row | self._clock(row) for row in rows]

    def _clock(self, row: Mapping[str, Any]) -> dict[str, float]:
        """The figures of a row's headline at the architecture's clock, named as columns."""
        latency, macs, energy = row[column("latency")], row["macs"], row["energy"]
        figures = clock_figures(latency, macs, energy, self.energy_unit, self.clock_mhz)
        return {column(k): v for k, v in figures.items()}

    def table(self) -> pd.DataFrame:
        """Return :meth:`rows` as a table indexed by ``layer``."""
        import pandas as pd

        return pd.DataFrame(self.rows()).set_index("layer")


def choose_dataflow(layer: LayerSpec, dataflows: Sequence[str], architecture: str) -> str:
    """Return the first of ``dataflows`` that fits the layer's workload on ``architecture``.

    Examples
    --------
    >>> layer = LayerSpec(name="fc", workload="gemm", params={"M": 1, "N": 8, "K": 8})
    >>> choose_dataflow(layer, ["conv2d-os", "gemm-os-systolic"], "systolic-2d-8x8")
    'gemm-os-systolic'
    """
    for name in dataflows:
        if fits(name, layer.workload, architecture):
            return name
    raise SpecError(
        f"layer {layer.name}: none of the dataflows {', '.join(dataflows) or '(none given)'} "
        f"is made for workload {layer.workload!r} on {architecture!r}; give one more --dataflow"
    )


def _each(items: Iterable[_Item], total: int) -> Iterable[_Item]:
    return items


def evaluate_network(
    network: str | Path | NetworkSpec,
    architecture: str | Path | ArchitectureSpec,
    dataflows: Sequence[str],
    *,
    progress: Callable[[Iterable[LayerSpec], int], Iterable[LayerSpec]] = _each,
    cache: CountCache | None = None,
    residency: bool = True,
) -> NetworkResult:
    """Evaluate every layer of ``network`` on ``architecture``, each with the first of
    ``dataflows`` made for its workload; identical layers are counted once. With
    ``residency``, a layer's output that the next layer reads (its ``input``) stays in the
    level inside the outermost when both layers leave room for it
    (:func:`tenet.metrics.residency.keep_outputs`); without, every layer reads its inputs from
    DRAM and writes its output back.

    ``progress`` wraps the layer iteration (e.g. a progress bar); it receives the layers and
    their number. A ``cache`` (:class:`tenet.metrics.cache.CountCache`) evaluates each distinct
    problem once across calls and, given a folder, across runs.

    Examples
    --------
    >>> net = NetworkSpec.from_mapping({"name": "mlp", "layers": [
    ...     {"name": "fc1", "workload": "gemm", "params": {"M": 8, "N": 16, "K": 8}, "count": 2}]})
    >>> result = evaluate_network(net, "systolic-2d-8x8", ["gemm-os-systolic"])
    >>> result.macs  # 2 x 8 * 16 * 8
    2048
    """
    spec = load_network(network)
    arch = load_architecture(architecture)
    arch_name = str(architecture) if not isinstance(architecture, ArchitectureSpec) else arch.name
    done: dict[tuple[str, tuple[tuple[str, int], ...], str], _Evaluated] = {}
    chosen: dict[str, str] = {}  # per workload: its dataflow
    loaded: dict[tuple[str, str], Specs] = {}
    runs: list[tuple[LayerSpec, str, Metrics, Assessment, Problem]] = []
    for layer in progress(spec.layers, len(spec.layers)):
        if layer.workload not in chosen:
            chosen[layer.workload] = choose_dataflow(layer, dataflows, arch_name)
        name = chosen[layer.workload]
        key = (layer.workload, tuple(sorted(layer.params.items())), name)
        if key not in done:
            if (layer.workload, name) not in loaded:
                loaded[layer.workload, name] = load_specs(layer.workload, arch, name)
            specs = loaded[layer.workload, name]
            problem = load_problem(
                specs.workload, specs.architecture, specs.require_dataflow(), params=layer.params
            )
            metrics = (
                cache.evaluate(problem)
                if cache is not None
                else assess_problem(problem, figures=["metrics"]).metrics
            )
            memory = assess_problem(
                problem, figures=["memory"], latency_compute=metrics.latency_compute
            )
            done[key] = metrics, replace(memory, _metrics=metrics), problem
        runs.append((layer, name, *done[key]))
    results = [
        LayerResult(layer, name, metrics, assessment.headline())
        for layer, name, metrics, assessment, _ in runs
    ]
    edges: tuple[Edge, ...] = ()
    if any(layer.input is not None for layer in spec.layers):
        kept = keep_outputs(
            [
                LayerRun(layer.name, problem, None, assessment.memory)
                for layer, _, _, assessment, problem in runs
            ],
            [layer.input for layer in spec.layers],
            on=residency,
            source=spec.source,
        )
        edges = kept.edges
        results = [
            replace(
                result,
                headline=replace(run[3], _memory=memory).headline(),
                dram_saved=saved,
                resident=words,
            )
            if words
            else result
            for result, run, memory, saved, words in zip(
                results, runs, kept.memory, kept.dram_saved, kept.resident, strict=True
            )
        ]
    return NetworkResult(
        spec.name, arch.name, tuple(results), arch.energy.unit, arch.clock_mhz, edges
    )


def network_report(
    result: NetworkResult,
    architecture: str | Path | ArchitectureSpec,
    inputs: Mapping[str, str],
) -> Report:
    """Return the HTML report of ``result`` (evaluated on ``architecture``): the per-layer
    table with the totals, the per-layer plot, and the dataflow of each dataflow used with
    the layers it ran."""
    table = result.table().reset_index()
    layers = table[table["layer"] != "total"]
    title = f"{result.name} on {result.architecture}"
    panels = [
        (column("latency"), axis_label(column("latency"))),
        ("energy", axis_label("energy", layers)),
        (column("utilisation"), "PE utilisation"),
    ]
    axes = plot_layers(layers, panels=panels, title=title, by="layer")
    arch = load_architecture(architecture)
    used: dict[str, list[str]] = {}
    for r in result.layers:
        used.setdefault(r.dataflow, []).append(r.layer.name)
    mappings = []
    for name, names in used.items():
        spec = load_dataflow(name, architecture=arch)
        mappings.append(
            MappingRecord(
                f"{len(names)} layer(s): {', '.join(names)}",
                name,
                spec.space_stamp,
                spec.time_stamp,
                dict(spec.tiles),
            )
        )
    tables = [("Layers (figures of one occurrence) and the network's total", table)]
    figures = [("Per layer", axes[0].figure)]
    notes = [
        f"layer {r.layer.name}: {fits_line(r.headline)}"
        for r in result.layers
        if not r.headline["fits"]
    ] + [f"between layers: {words}" for words in result.kept_words()]
    return Report(title, dict(inputs), tables, figures, mappings, notes)  # type: ignore[arg-type]
