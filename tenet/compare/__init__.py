"""Exact relation-centric counts next to MAESTRO-style data-centric estimates.

``compare`` takes a dataflow in MAESTRO's notation (a mapping file or a
:class:`~tenet.compare.directives.Layer`), estimates it with :mod:`tenet.compare.maestro`, lowers
it to relation-centric specs (:mod:`tenet.compare.lowering`) or takes the relation-centric
counterpart you give, counts that exactly with :func:`tenet.evaluate`, and returns one table row
per quantity with the relative error and the reason. ``compare_network`` does it for every
layer of a network; ``plot_comparison`` draws the table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from tenet.api import analyze, load_problem
from tenet.compare.directives import Hardware, Layer, Network
from tenet.compare.lowering import (
    Expressibility,
    Interconnect,
    LoweredLayer,
    check_expressible,
    lower,
)
from tenet.compare.maestro import MaestroEstimate, estimate, estimate_network
from tenet.compare.plots import plot_comparison
from tenet.compare.reader import load_hardware, load_mapping, parse_hardware, parse_mapping
from tenet.compare.synthesis import Synthesis, match_tensors, synthesize
from tenet.compare.table import COLUMNS, ComparisonRow, comparison_frame, comparison_rows
from tenet.errors import SpecError, TenetError
from tenet.metrics.evaluate import Metrics, evaluate
from tenet.vocab import Source

if TYPE_CHECKING:
    import pandas as pd

    from tenet.spec import ArchitectureSpec, DataflowSpec, WorkloadSpec

__all__ = [
    "COLUMNS",
    "ComparisonRow",
    "Expressibility",
    "Hardware",
    "Layer",
    "LoweredLayer",
    "MaestroEstimate",
    "Network",
    "check_expressible",
    "compare",
    "compare_network",
    "estimate",
    "estimate_network",
    "load_hardware",
    "load_mapping",
    "lower",
    "match_tensors",
    "parse_hardware",
    "parse_mapping",
    "plot_comparison",
    "synthesize",
    "Synthesis",
]


def _hardware(hardware: Hardware | Source) -> Hardware:
    return hardware if isinstance(hardware, Hardware) else load_hardware(hardware)


def _layer(mapping: Layer | Network | Source, name: str | None) -> tuple[Layer, str]:
    network = mapping if isinstance(mapping, (Layer, Network)) else load_mapping(mapping)
    if isinstance(network, Layer):
        return network, ""
    if name is None:
        return network.layers[0], network.name
    for layer in network.layers:
        if layer.name == name:
            return layer, network.name
    known = ", ".join(layer.name for layer in network.layers)
    raise SpecError(f"no layer {name!r} in the network (layers: {known})", source=network.source)


def _exact(
    layer: Layer, hardware: Hardware, interconnect: Interconnect
) -> tuple[Metrics, dict[str, str]]:
    low = lower(layer, hardware, interconnect)
    return analyze(low.workload, low.architecture, low.dataflow), dict(low.tensors)


def compare(
    mapping: Layer | Network | Source | None = None,
    hardware: Hardware | Source | None = None,
    *,
    layer: str | None = None,
    workload: Source | WorkloadSpec | None = None,
    architecture: Source | ArchitectureSpec | None = None,
    dataflow: Source | DataflowSpec | None = None,
    params: Mapping[str, int] | None = None,
    tensors: Mapping[str, str] | None = None,
    interconnect: Interconnect = "multicast",
) -> pd.DataFrame:
    """Compare the exact counts of a dataflow with MAESTRO-style estimates, quantity by
    quantity; the dataflow is given in either notation, or in both.

    - Data-centric: ``mapping`` (a MAESTRO mapping file, a parsed network or one layer;
      ``layer`` picks a layer by name, default the first) and ``hardware``. The exact side is
      its lowering (:func:`~tenet.compare.lowering.lower` with ``interconnect``).
    - Relation-centric: ``workload``, ``architecture`` and ``dataflow`` (anything
      :func:`tenet.load_problem` takes, with ``params``). Without ``mapping`` the directives
      are synthesised (:func:`~tenet.compare.synthesis.synthesize`; a dataflow directives
      cannot express raises :class:`~tenet.errors.SpecError` saying why), on ``hardware`` if
      given (its NoC figures, the synthesised PE count) or on the architecture's bandwidth and
      latency.

    ``tensors`` maps MAESTRO's tensor names to the exact problem's (found from the accesses
    when omitted). Returns a DataFrame with the columns ``dataflow, quantity, tensor, unit,
    exact, estimate, relative_error, reason``.

    Examples
    --------
    >>> net = parse_mapping("Network n { Layer g { Type: GEMM Dimensions { M 8 N 8 K 8 }"
    ...     " Dataflow { SpatialMap(1,1) M; TemporalMap(1,1) N; TemporalMap(8,8) K; } } }")
    >>> df = compare(net, Hardware(num_pes=8, noc_latency=0))
    >>> row = df.set_index(["quantity", "tensor"]).loc[("volume_unique", "filter")]
    >>> int(row["exact"]), int(row["estimate"])
    (64, 64)
    """
    given = [x is not None for x in (workload, architecture, dataflow)]
    if any(given) and not all(given):
        raise TypeError("give workload, architecture and dataflow together")
    if mapping is not None and hardware is None:
        raise TypeError("a mapping needs its hardware")
    if workload is None or architecture is None or dataflow is None:
        if mapping is None or hardware is None:
            raise TypeError("give a mapping (data-centric) or workload, architecture and dataflow")
        chosen, network = _layer(mapping, layer)
        hw = _hardware(hardware)
        metrics, names = _exact(chosen, hw, interconnect)
    else:
        problem = load_problem(workload, architecture, dataflow, params=params)
        metrics, names = evaluate(problem), match_tensors(problem)
        if mapping is not None and hardware is not None:  # (a mapping comes with its hardware)
            chosen, network = _layer(mapping, layer)
            hw = _hardware(hardware)
        else:
            found = synthesize(problem)
            chosen, network = found.layer, ""
            hw = found.hardware
            if hardware is not None:
                given_hw = _hardware(hardware)
                hw = given_hw.model_copy(update={"num_pes": found.hardware.num_pes})
    est = estimate(chosen, hw, network)
    return comparison_frame(comparison_rows(metrics, est, dict(tensors or names), hw.noc_latency))


def compare_network(
    mapping: Network | Source,
    hardware: Hardware | Source,
    *,
    layers: Sequence[str] | None = None,
    interconnect: Interconnect = "multicast",
) -> pd.DataFrame:
    """Compare every layer of a MAESTRO network (or those named in ``layers``).

    A layer that MAESTRO's model or the lowering cannot handle gets one ``error`` row whose
    reason is the error message.
    """
    network = mapping if isinstance(mapping, Network) else load_mapping(mapping)
    hw = _hardware(hardware)
    wanted = set(layers) if layers is not None else None
    rows: list[ComparisonRow] = []
    for chosen in network.layers:
        if wanted is not None and chosen.name not in wanted:
            continue
        try:
            est = estimate(chosen, hw, network.name)
            metrics, names = _exact(chosen, hw, interconnect)
        except TenetError as exc:
            nan = float("nan")
            rows.append(ComparisonRow(chosen.name, "error", "", "", nan, nan, nan, str(exc)))
            continue
        rows += comparison_rows(metrics, est, names, hw.noc_latency)
    return comparison_frame(rows)
