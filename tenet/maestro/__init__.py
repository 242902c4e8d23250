"""Exact relation-centric counts next to MAESTRO-style data-centric estimates.

One entry point per way of giving the dataflow, each returning one table row per quantity
(exact count, estimate, relative error, reason; :data:`COLUMNS`):

- :func:`compare_layer`: a layer in MAESTRO's notation (:class:`~tenet.maestro.directives.Layer`,
  e.g. from :func:`load_mapping`), estimated with :mod:`tenet.maestro.estimate` and counted
  exactly after its lowering to relation-centric specs (:mod:`tenet.maestro.lowering`);
- :func:`compare_problem`: a relation-centric :class:`~tenet.model.Problem`, counted with
  :func:`tenet.evaluate` and estimated through directives synthesised from it
  (:func:`~tenet.maestro.synthesis.synthesize`);
- :func:`compare_problem_with_layer`: both notations given, each side from its own;
- :func:`compare_network`: :func:`compare_layer` for every layer of a network.

:func:`tenet.report.plot_comparison` draws the table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from tenet.api import analyze
from tenet.errors import TenetError
from tenet.maestro.directives import Hardware, Layer, Network
from tenet.maestro.estimate import MaestroEstimate, estimate, estimate_network
from tenet.maestro.lowering import (
    Expressibility,
    Interconnect,
    LoweredLayer,
    check_expressible,
    lower,
)
from tenet.maestro.reader import load_hardware, load_mapping, parse_hardware, parse_mapping
from tenet.maestro.synthesis import Synthesis, match_tensors, synthesize
from tenet.maestro.table import COLUMNS, ComparisonRow, comparison_frame, comparison_rows
from tenet.metrics.assessment import assess_problem
from tenet.metrics.evaluate import Metrics

if TYPE_CHECKING:
    import pandas as pd

    from tenet.model import Problem

__all__ = [
    "COLUMNS",
    "ComparisonRow",
    "Expressibility",
    "Hardware",
    "Interconnect",
    "Layer",
    "LoweredLayer",
    "MaestroEstimate",
    "Network",
    "check_expressible",
    "compare_layer",
    "compare_network",
    "compare_problem",
    "compare_problem_with_layer",
    "estimate",
    "estimate_network",
    "load_hardware",
    "load_mapping",
    "lower",
    "match_tensors",
    "parse_hardware",
    "parse_mapping",
    "synthesize",
    "Synthesis",
]


def _exact(
    layer: Layer, hardware: Hardware, interconnect: Interconnect
) -> tuple[Metrics, dict[str, str]]:
    low = lower(layer, hardware, interconnect)
    s = low.specs
    return analyze(s.workload, s.architecture, s.require_dataflow()), dict(low.tensors)


def compare_layer(
    layer: Layer, hardware: Hardware, *, interconnect: Interconnect = "multicast"
) -> pd.DataFrame:
    """Compare the MAESTRO-style estimate of ``layer`` on ``hardware`` with the exact counts of
    its lowering (:func:`~tenet.maestro.lowering.lower` onto an ``interconnect`` array).

    Returns a DataFrame with the columns :data:`COLUMNS` (``dataflow, quantity, tensor, unit,
    exact, estimate, relative_error, reason``).

    Raises
    ------
    SpecError
        A layer that MAESTRO's model or the lowering cannot handle.

    Examples
    --------
    >>> net = parse_mapping("Network n { Layer g { Type: GEMM Dimensions { M 8 N 8 K 8 }"
    ...     " Dataflow { SpatialMap(1,1) M; TemporalMap(1,1) N; TemporalMap(8,8) K; } } }")
    >>> df = compare_layer(net.layer("g"), Hardware(num_pes=8, noc_latency=0))
    >>> row = df.set_index(["quantity", "tensor"]).loc[("volume_unique", "filter")]
    >>> int(row["exact"]), int(row["estimate"])  # B[k, n]: each of the 8 x 8 elements once
    (64, 64)
    """
    metrics, names = _exact(layer, hardware, interconnect)
    est = estimate(layer, hardware)
    return comparison_frame(comparison_rows(metrics, est, names, hardware.noc_latency))


def _with_estimate(
    problem: Problem, layer: Layer, hardware: Hardware, tensors: Mapping[str, str] | None
) -> pd.DataFrame:
    """The table of ``problem`` counted exactly next to ``layer`` estimated on ``hardware``."""
    metrics = assess_problem(problem, figures=["metrics"]).metrics
    names = dict(tensors) if tensors is not None else match_tensors(problem)
    est = estimate(layer, hardware)
    return comparison_frame(comparison_rows(metrics, est, names, hardware.noc_latency))


def compare_problem(
    problem: Problem,
    hardware: Hardware | None = None,
    *,
    tensors: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Compare the exact counts of ``problem`` with the MAESTRO-style estimate of directives
    synthesised from its dataflow (:func:`~tenet.maestro.synthesis.synthesize`).

    The estimate runs on ``hardware``'s NoC figures with the synthesised PE count, or without
    ``hardware`` on the architecture's bandwidth and latency. ``tensors`` maps MAESTRO's tensor
    names to the problem's (found from the accesses when omitted). Returns a DataFrame with the
    columns :data:`COLUMNS`.

    Raises
    ------
    InfeasibleError
        A dataflow that directives cannot express, saying why.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> p = load_problem("gemm", "systolic-2d-8x8", "gemm-os", params={"M": 8, "N": 8, "K": 8})
    >>> row = compare_problem(p).set_index(["quantity", "tensor"]).loc[("macs", "")]
    >>> int(row["exact"]), int(row["estimate"])  # 8 x 8 x 8 on both sides
    (512, 512)
    """
    found = synthesize(problem)
    chosen = found.hardware
    if hardware is not None:
        chosen = hardware.model_copy(update={"num_pes": found.hardware.num_pes})
    return _with_estimate(problem, found.layer, chosen, tensors)


def compare_problem_with_layer(
    problem: Problem,
    layer: Layer,
    hardware: Hardware,
    *,
    tensors: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Compare the exact counts of ``problem`` with the MAESTRO-style estimate of ``layer`` on
    ``hardware``: the same dataflow written in both notations, each side counted from its own.

    ``tensors`` maps MAESTRO's tensor names to the problem's (found from the accesses when
    omitted). Returns a DataFrame with the columns :data:`COLUMNS`.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> net = parse_mapping("Network n { Layer g { Type: GEMM Dimensions { M 8 N 8 K 8 }"
    ...     " Dataflow { SpatialMap(1,1) M; TemporalMap(1,1) N; TemporalMap(8,8) K; } } }")
    >>> p = load_problem("gemm", "systolic-2d-8x8", "gemm-os", params={"M": 8, "N": 8, "K": 8})
    >>> df = compare_problem_with_layer(p, net.layer(), Hardware(num_pes=8, noc_latency=0))
    >>> int(df.set_index(["quantity", "tensor"]).loc[("macs", ""), "exact"])  # 8 x 8 x 8
    512
    """
    return _with_estimate(problem, layer, hardware, tensors)


def compare_network(
    network: Network,
    hardware: Hardware,
    *,
    layers: Sequence[str] | None = None,
    interconnect: Interconnect = "multicast",
) -> pd.DataFrame:
    """Compare every layer of a MAESTRO network (or those named in ``layers``) as
    :func:`compare_layer` does, in one table.

    A layer that MAESTRO's model or the lowering cannot handle gets one ``error`` row whose
    reason is the error message.
    """
    wanted = set(layers) if layers is not None else None
    rows: list[ComparisonRow] = []
    for chosen in network.layers:
        if wanted is not None and chosen.name not in wanted:
            continue
        try:
            est = estimate(chosen, hardware, network.name)
            metrics, names = _exact(chosen, hardware, interconnect)
        except TenetError as exc:
            nan = float("nan")
            rows.append(ComparisonRow(chosen.name, "error", "", "", nan, nan, nan, str(exc)))
            continue
        rows += comparison_rows(metrics, est, names, hardware.noc_latency)
    return comparison_frame(rows)
