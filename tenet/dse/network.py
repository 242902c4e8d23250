"""A network's search, layer entry by layer entry: the best mapping of each entry of the network
(repeated entries each under their own name) with its count, and the network's total, each
layer weighted by its count (as ``tenet eval-network`` weighs them): the latency of the layers
run one after the other, their energy and their DRAM traffic."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tenet.dse.run.store import ResultStore, run_key
from tenet.spec import NetworkSpec
from tenet.vocab import column

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["NETWORK_COLUMNS", "TOTALLED", "layer_counts", "network_totals", "record_network"]

TOTALLED = (column("latency"), "energy", column("traffic_dram"))
"""The figures a network's total weighs by each layer's count and adds up."""

NETWORK_COLUMNS = ["architecture", "layer", "count", "name", *TOTALLED, "energy_unit", "fits"]
"""Columns of :func:`network_totals`, in order."""


def layer_counts(network: NetworkSpec) -> list[tuple[str, int]]:
    """Return each layer entry's label in a search (``network/layer``) and its count, in the
    network's order.

    Examples
    --------
    >>> net = NetworkSpec.from_mapping({"name": "n", "layers": [
    ...     {"name": "a", "workload": "gemm", "count": 3}, {"name": "b", "workload": "gemm"}]})
    >>> layer_counts(net)
    [('n/a', 3), ('n/b', 1)]
    """
    return [(f"{network.name}/{layer.name}", layer.count) for layer in network.layers]


def record_network(store: str | Path, network: NetworkSpec) -> None:
    """Record in the results ``store`` of a network's search its layer entries and their
    counts (:func:`layer_counts`), which its report (:func:`tenet.dse.stored_results`) reads
    back; recorded once per network and set of counts.

    Examples
    --------
    >>> net = NetworkSpec.from_mapping({"name": "n", "layers": [{"name": "a", "workload": "gemm"}]})
    >>> record_network(":memory:", net)
    """
    arguments = {"network": network.name, "layers": layer_counts(network)}
    results = ResultStore(store)
    try:
        results.open_run(run_key(arguments), arguments, total=0)
    finally:
        results.close()


def network_totals(best: pd.DataFrame, counts: Sequence[tuple[str, int]]) -> pd.DataFrame:
    """Return, per architecture of ``best`` (the best row of each layer's exploration, with
    ``workload`` its label and ``architecture``), one row per layer entry of ``counts``
    (label, count) with its count and best mapping's figures, then a ``total`` row: the
    count of layers, each figure of :data:`TOTALLED` weighted by the counts and added up, and
    whether every layer fits (none when a layer lacks it, or has no best mapping: a time
    budget left it out, or none is feasible).

    Examples
    --------
    >>> import pandas as pd
    >>> best = pd.DataFrame({"workload": ["n/a", "n/b"], "architecture": ["x", "x"],
    ...     "name": ["m", "m"], "latency_cycles": [10, 4], "energy": [2.5, 1.0],
    ...     "traffic_dram_elements": [100, 30], "energy_unit": ["MAC", "MAC"]})
    >>> totals = network_totals(best, [("n/a", 3), ("n/b", 1)])
    >>> totals[["layer", "count", "latency_cycles", "energy"]].to_dict("records")[-1]
    {'layer': 'total', 'count': 4, 'latency_cycles': 34, 'energy': 8.5}
    """
    import pandas as pd

    rows: list[dict[str, Any]] = []
    architectures = list(dict.fromkeys(best["architecture"])) if len(best) else []
    for architecture in architectures:
        found = {
            str(r["workload"]): r
            for r in best[best["architecture"] == architecture].to_dict(orient="records")
        }
        layers = [
            {"layer": label, "count": count, **_figures(found.get(label))}
            for label, count in counts
        ]
        total: dict[str, Any] = {"layer": "total", "count": sum(c for _, c in counts)}
        for name in TOTALLED:
            weighed = [(layer[name], layer["count"]) for layer in layers]
            known = all(v is not None and pd.notna(v) for v, _ in weighed)
            total[name] = sum(v * n for v, n in weighed) if known else None
        units = {layer["energy_unit"] for layer in layers} - {None}
        total["energy_unit"] = units.pop() if len(units) == 1 else None
        fitting = [layer["fits"] for layer in layers]
        known = all(f in (True, False) for f in fitting)
        total["fits"] = all(fitting) if known else None
        rows += [{"architecture": architecture, **row} for row in (*layers, total)]
    # (objects: counts stay integers beside a missing figure)
    return pd.DataFrame(rows, columns=NETWORK_COLUMNS, dtype=object)


def _figures(row: dict[str, Any] | None) -> dict[str, Any]:
    """The mapping's name and figures of a layer's best row (None: every one missing)."""
    names = ["name", *TOTALLED, "energy_unit", "fits"]
    return {n: None if row is None else row.get(n) for n in names}
