"""One metric vocabulary: every name the core reports is a key of ``tenet.vocab.UNITS`` (or its
unit-suffixed column form), with a one-line description."""

from __future__ import annotations

import pytest

from tenet.api import analyze
from tenet.dse.run.execution import ExecutionOptions
from tenet.metrics.evaluate import Metrics
from tenet.report.tables import comparison_table, reuse_table
from tenet.vocab import DESCRIPTIONS, FIELDS, UNIT_SUFFIXES, UNITS, column, metric_of_column


@pytest.fixture(scope="module")
def metrics() -> Metrics:
    return analyze("gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": 4, "N": 4, "K": 2})


def test_vocabulary_describes_every_metric_once() -> None:
    assert set(DESCRIPTIONS) == set(UNITS)
    assert all(d and "\n" not in d for d in DESCRIPTIONS.values())
    assert not set(FIELDS) & set(UNITS)
    # the column forms are one-to-one: no two metrics share a column
    assert len({column(m) for m in UNITS}) == len(UNITS)
    assert all(metric_of_column(column(m)) == m for m in UNITS)


def test_every_key_of_to_dict_is_a_vocabulary_name(metrics: Metrics) -> None:
    out = metrics.to_dict()
    assert set(out) <= set(UNITS) | set(FIELDS)
    for tensor in out["tensors"]:
        assert set(tensor) <= set(UNITS) | set(FIELDS)


def test_every_column_of_table_is_a_vocabulary_name(metrics: Metrics) -> None:
    table = metrics.table()
    assert set(table.index.names) <= set(FIELDS)
    assert set(table.columns) <= set(UNITS)


def test_every_report_column_is_a_vocabulary_column(metrics: Metrics) -> None:
    keys = {"design", "tensor", "access"}
    for name in reuse_table(metrics).columns:
        assert name in keys or metric_of_column(name) is not None, name
    for name in comparison_table(metrics).columns:
        tensor, _, rest = name.partition("_")
        assert (
            name in keys
            or name in FIELDS
            or metric_of_column(name) is not None
            or (tensor in {"A", "B", "C"} and metric_of_column(rest) is not None)
        ), name


def test_unit_suffixes_name_units_of_the_vocabulary() -> None:
    assert set(UNIT_SUFFIXES) <= set(UNITS.values())
    assert column("bandwidth_scratchpad") == "bandwidth_scratchpad_elements_per_cycle"


def _is_vocabulary_name(name: str) -> bool:
    return name in UNITS or name in FIELDS or metric_of_column(name) is not None


def test_every_design_space_column_is_a_vocabulary_name() -> None:
    from tenet.dse.layers import LAYER_COLUMNS
    from tenet.dse.network import NETWORK_COLUMNS
    from tenet.dse.ranking.layout import LAYOUT_COLUMN
    from tenet.dse.ranking.objectives import ALIASES, OBJECTIVES
    from tenet.dse.report import REPORTED_COLUMNS
    from tenet.dse.run.store import ROW_COLUMNS
    from tenet.dse.run.worker import METRIC_COLUMNS

    names = [
        *ROW_COLUMNS,
        *REPORTED_COLUMNS,
        *LAYER_COLUMNS,
        *NETWORK_COLUMNS,
        LAYOUT_COLUMN,
        *ALIASES.values(),
        *(o.column for o in OBJECTIVES.values()),
    ]
    assert [n for n in names if not _is_vocabulary_name(n)] == []
    # the metric columns carry their unit: column(metric), never a hand-written name
    assert all(metric_of_column(n) is not None for n in METRIC_COLUMNS)
    # energies carry the architecture's unit in the energy_unit column, not in their name
    assert (column("energy"), column("edp")) == ("energy", "edp")
    assert ALIASES["sbw"] == column("bandwidth_scratchpad")
    assert ALIASES["ibw"] == column("bandwidth_pe")


def test_every_design_row_is_named_from_the_vocabulary() -> None:
    from tenet.dse.explore import explore

    rows = explore(
        "gemm",
        "systolic-2d-8x8",
        params={"M": 2, "N": 2, "K": 2},
        execution=ExecutionOptions(workers=1),
    ).results
    assert [n for n in rows.columns if not _is_vocabulary_name(n)] == []


def test_every_design_label_column_is_a_field() -> None:
    from tenet.report.tables import DESIGN_COLUMNS

    assert set(DESIGN_COLUMNS) <= set(FIELDS)


def test_every_comparison_column_is_a_vocabulary_name() -> None:
    from tenet.maestro.directives import Hardware
    from tenet.maestro.estimate import estimate
    from tenet.maestro.lowering import lower
    from tenet.maestro.reader import parse_mapping
    from tenet.maestro.table import COLUMNS, comparison_rows

    layer = parse_mapping(
        "Network n { Layer g { Type: GEMM Dimensions { M 4 N 4 K 4 }"
        " Dataflow { SpatialMap(1,1) M; TemporalMap(1,1) N; TemporalMap(4,4) K; } } }"
    ).layers[0]
    hardware = Hardware(num_pes=4, noc_latency=0)
    low = lower(layer, hardware)
    m = analyze(low.specs.workload, low.specs.architecture, low.specs.dataflow)
    rows = comparison_rows(m, estimate(layer, hardware), low.tensors)
    assert set(COLUMNS) <= set(FIELDS)
    assert {r.quantity for r in rows} <= set(UNITS)
    # the energy in the unit of the lowered architecture's table: MAESTRO's, relative to a MAC
    assert all(r.unit == UNITS[r.quantity] for r in rows if r.quantity != "energy_array")
    assert {r.unit for r in rows if r.quantity == "energy_array"} == {"MAC-relative"}
