"""One metric vocabulary: every name the core reports is a key of ``tenet.vocab.UNITS`` (or its
unit-suffixed column form), with a one-line description."""

from __future__ import annotations

import pytest

from tenet.api import analyze
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
            or metric_of_column(name) is not None
            or (tensor in {"A", "B", "C"} and metric_of_column(rest) is not None)
        ), name


def test_unit_suffixes_name_units_of_the_vocabulary() -> None:
    assert set(UNIT_SUFFIXES) <= set(UNITS.values())
    assert column("bandwidth_scratchpad") == "bandwidth_scratchpad_elements_per_cycle"
