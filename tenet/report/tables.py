"""Metrics -> tidy pandas DataFrames: the per-tensor reuse table and the side-by-side comparison
of several design points (the layout of the paper's tables). Units are in the column names
(``volume_unique_elements``, ``latency_cycles``, ``energy``); ratios are floats. Plots and
exports read these tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from tenet.metrics.assessment import Assessment
from tenet.metrics.clock import clock_figures
from tenet.metrics.evaluate import Metrics, TensorMetrics
from tenet.vocab import ENERGY, ENERGY_DELAY, UNITS, column, metric_of_column, unit_label

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "axis_label",
    "clock_columns",
    "DATAFLOW_COLUMNS",
    "DESIGN_COLUMNS",
    "Result",
    "Results",
    "TENSOR_COLUMNS",
    "comparison_table",
    "records_table",
    "reuse_table",
    "stacked",
    "tensor_label",
]

DESIGN_COLUMNS: tuple[str, ...] = ("design", "workload", "architecture", "dataflow")
"""Columns naming a design point in the tables: its label, then the names of its workload,
architecture and dataflow."""

Result = Metrics | Assessment
"""A design point's array metrics, or its assessment (metrics and memory figures: its
headline too)."""

Results = Result | Sequence[Result] | Mapping[str, Result] | Mapping[tuple[str, ...], Result]
"""One result, results named by their ``name``, or results keyed by a label or a tuple of
names (see ``names`` of the table functions)."""


def _columns(*metrics: str) -> dict[str, str]:
    return {m: column(m) for m in metrics}


TENSOR_COLUMNS: dict[str, str] = _columns(
    "volume_total",
    "volume_unique",
    "volume_reuse",
    "volume_reuse_spatial",
    "volume_reuse_temporal",
    "reuse_factor",
)
"""Per-tensor metric -> its column in the reuse table (:func:`tenet.vocab.column`)."""

DATAFLOW_COLUMNS: dict[str, str] = {
    **_columns("macs", "active_pes", "timestamps", "utilisation"),
    **_columns("latency_compute", "latency_ingress", "latency_egress"),
    "latency": column("latency_array"),
    **_columns("bandwidth_pe", "bandwidth_scratchpad"),
    "energy": column("energy_array"),
}
"""Per-dataflow metric of the array model -> its column in the comparison table
(``bandwidth_pe`` is the interconnect bandwidth IBW, ``bandwidth_scratchpad`` the scratchpad
bandwidth SBW; the latency and energy are the array's, ``latency_array_cycles`` and
``energy_array``, in the unit of the architecture's energy table, its ``energy.unit``: MAC or
pJ)."""


def _value(value: object) -> object:
    return float(value) if isinstance(value, Fraction) else value


def _keyed(results: Results, names: Sequence[str]) -> list[tuple[dict[str, str], Result]]:
    """Pair each result with its key columns."""
    if isinstance(results, (Metrics, Assessment)):
        results = [results]
    if isinstance(results, Mapping):
        items = [((k,) if isinstance(k, str) else tuple(k), m) for k, m in results.items()]
    else:
        items = [((_metrics(m).name,), m) for m in results]
        seen = [k for k, _ in items]
        repeated = next((k[0] for k in seen if seen.count(k) > 1), None)
        if repeated is not None:
            raise ValueError(f"two results are named {repeated!r}: pass a mapping label -> Metrics")
    lengths = {len(k) for k, _ in items}
    if len(lengths) > 1:
        raise ValueError(f"keys of different lengths {sorted(lengths)}: give every key the same")
    width = lengths.pop() if lengths else 1
    if width > len(names):
        raise ValueError(f"keys have {width} parts but only {len(names)} names: {list(names)}")
    return [(dict(zip(names, key, strict=False)), m) for key, m in items]


def _key_columns(keyed: list[tuple[dict[str, str], Result]], names: Sequence[str]) -> list[str]:
    return list(keyed[0][0]) if keyed else list(names[:1])


def _metrics(result: Result) -> Metrics:
    """The array metrics of a result."""
    return result.metrics if isinstance(result, Assessment) else result


def tensor_label(metrics: Metrics, tensor: TensorMetrics) -> str:
    """Return the tensor's name, with ``_read``/``_write`` when ``metrics`` has both accesses.

    Examples
    --------
    >>> from tenet.api import analyze
    >>> m = analyze("gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": 8, "N": 8, "K": 4})
    >>> [tensor_label(m, t) for t in m.tensors]
    ['A', 'B', 'C']
    """
    accesses = sum(t.tensor == tensor.tensor for t in metrics.tensors)
    return tensor.tensor if accesses == 1 else f"{tensor.tensor}_{tensor.access}"


def reuse_table(results: Results, names: Sequence[str] = DESIGN_COLUMNS) -> pd.DataFrame:
    """Return the per-tensor reuse table: one row per design point x tensor access.

    Columns: the key columns (``names``, as many as the keys have parts), ``tensor``,
    ``access``, the volumes in elements (total, unique, reuse, spatial and temporal reuse) and
    ``reuse_factor`` (total / unique).

    Examples
    --------
    >>> from tenet.api import analyze
    >>> m = analyze("gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": 8, "N": 8, "K": 4})
    >>> # A[i,k]: 8·4 elements fetched once, used by 8 columns (256 / 32); C[i,j] 64, 4 steps each
    >>> reuse_table(m)[["design", "tensor", "volume_unique_elements", "reuse_factor"]]
                 design tensor  volume_unique_elements  reuse_factor
    0  gemm-os-systolic      A                      32           8.0
    1  gemm-os-systolic      B                      32           8.0
    2  gemm-os-systolic      C                      64           4.0
    """
    keyed = _keyed(results, names)
    rows = [
        {
            **key,
            "tensor": t.tensor,
            "access": t.access,
            **{column: _value(getattr(t, field)) for field, column in TENSOR_COLUMNS.items()},
        }
        for key, m in ((key, _metrics(r)) for key, r in keyed)
        for t in m.tensors
    ]
    import pandas as pd

    return pd.DataFrame(
        rows, columns=[*_key_columns(keyed, names), "tensor", "access", *TENSOR_COLUMNS.values()]
    )


def comparison_table(results: Results, names: Sequence[str] = DESIGN_COLUMNS) -> pd.DataFrame:
    """Return the comparison table: one row per design point, side by side.

    Columns: the key columns (``names``, as many as the keys have parts); for assessments,
    the headline (:meth:`tenet.metrics.assessment.Assessment.headline`: latency, energy, DRAM
    traffic, whether it fits, which model); per tensor access ``<tensor>_reuse_factor`` and
    ``<tensor>_volume_unique_elements`` (see :func:`tensor_label`; empty where a design point
    lacks the tensor); then :data:`DATAFLOW_COLUMNS` of the array model: MACs, active PEs,
    time-stamps, utilisation, latencies in cycles (the array's latency as
    ``latency_array_cycles``), IBW and SBW in elements/cycle, the array's energy
    (``energy_array``); ``energy_unit``, the unit of the energies (its architecture's:
    ``MAC`` or ``pJ``).

    Examples
    --------
    >>> from tenet.api import analyze
    >>> m = analyze("gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": 8, "N": 8, "K": 4})
    >>> # latency = egress = ceil(64 C elements * 16 bits / 64) + 16 - 1; utilisation 4 / 18
    >>> table = comparison_table({"os": m})
    >>> table[["A_reuse_factor", "latency_array_cycles", "utilisation"]].to_dict("records")
    [{'A_reuse_factor': 8.0, 'latency_array_cycles': 31, 'utilisation': 0.2222222222222222}]
    """
    keyed = _keyed(results, names)
    tensor_columns: dict[str, None] = {}
    headlines: dict[str, None] = {}
    rows = []
    for key, result in keyed:
        m = _metrics(result)
        row: dict[str, object] = dict(key)
        if isinstance(result, Assessment):
            headline = result.headline()
            headlines.update(dict.fromkeys(headline))
            row.update(headline)
        for t in m.tensors:
            label = tensor_label(m, t)
            row[f"{label}_{column('reuse_factor')}"] = float(t.reuse_factor)
            row[f"{label}_{column('volume_unique')}"] = t.volume_unique
        tensor_columns.update(dict.fromkeys(c for c in row if c not in key and c not in headlines))
        row.update({c: _value(getattr(m, f)) for f, c in DATAFLOW_COLUMNS.items()})
        row["energy_unit"] = m.energy_unit
        rows.append(row)
    import pandas as pd

    return pd.DataFrame(
        rows,
        columns=[
            *_key_columns(keyed, names),
            *headlines,
            *tensor_columns,
            *DATAFLOW_COLUMNS.values(),
            *(["energy_unit"] if "energy_unit" not in headlines else []),
        ],
    )


def records_table(
    records: Sequence[Mapping[str, object]], columns: Sequence[str] | None = None
) -> pd.DataFrame:
    """Return one row per record (``columns``, in this order, when given; else the records'
    keys).

    Examples
    --------
    >>> records_table([{"tensor": "A", "fills": 32}, {"tensor": "B", "fills": 16}]).shape
    (2, 2)
    """
    import pandas as pd

    return pd.DataFrame(list(records), columns=list(columns) if columns is not None else None)


def stacked(tables: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Return the rows of ``tables`` one after the other, numbered again from 0."""
    import pandas as pd

    return pd.concat(list(tables), ignore_index=True)


def axis_label(name: str, table: pd.DataFrame | None = None, text: str | None = None) -> str:
    """Return the axis label of column ``name`` (its metric, or ``text``) with its unit; an
    energy's is the unit of ``table``'s ``energy_unit`` column when it holds one, else "each
    architecture's unit".

    Examples
    --------
    >>> import pandas as pd
    >>> axis_label("latency_cycles"), axis_label("energy", pd.DataFrame({"energy_unit": ["pJ"]}))
    ('latency, cycles', 'energy, pJ')
    >>> axis_label("edp", pd.DataFrame({"energy_unit": ["pJ", "MAC"]}))
    "edp, each architecture's unit x cycles"
    """
    metric = metric_of_column(name) or name
    label = text or metric
    unit = UNITS.get(metric)
    if unit in (ENERGY, ENERGY_DELAY):
        units = set(table["energy_unit"]) if table is not None and "energy_unit" in table else set()
        if len(units) == 1:
            return f"{label}, {unit_label(metric, str(units.pop()))}"
        delay = " x cycles" if unit == ENERGY_DELAY else ""
        return f"{label}, each architecture's unit{delay}"
    shown = unit_label(metric) if unit is not None else ""
    return f"{label}, {shown}" if shown else label


def clock_columns(table: pd.DataFrame, clocks: Sequence[float | None]) -> pd.DataFrame:
    """Return ``table`` (columns ``latency_cycles``, ``macs``, ``energy``, ``energy_unit``)
    with, when a row's architecture has a clock (``clocks``, MHz, one per row), the columns
    of :func:`tenet.metrics.clock.clock_figures` (``clock_mhz``, ``runtime_seconds``,
    ``throughput_macs_per_second``, ``power_avg_watts``); ``table`` itself when none has.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"latency_cycles": [31, 31], "macs": [256, 256],
    ...     "energy": [4224.0, 40.0], "energy_unit": ["pJ", "MAC"]})
    >>> clock_columns(rows, [200, 200])["power_avg_watts"].round(6).tolist()
    [0.027252, nan]
    """
    if all(c is None for c in clocks):
        return table
    names = [column(m) for m in ("clock_mhz", "runtime", "throughput", "power_avg")]
    rows = table[[column("latency"), "macs", "energy", "energy_unit"]].itertuples(
        index=False, name=None
    )
    figures = [
        {column(k): v for k, v in clock_figures(latency, macs, energy, unit, clock).items()}
        for (latency, macs, energy, unit), clock in zip(rows, clocks, strict=True)
    ]
    import pandas as pd

    return table.assign(**pd.DataFrame(figures, columns=names, index=table.index))
