"""The HTML page of a report, read back with ``html.parser``: tables with units in their
headers, numbers sortable by their exact value, figures inline as SVG, dataflows, and no
reference to any other file."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pandas as pd

from tenet.report.axes import new_axes
from tenet.report.html import MappingRecord, Report, column_header, render_report, write_report
from tests.report.page import read_page


def _report() -> Report:
    table = pd.DataFrame(
        {
            "name": ["os", "ws"],
            "latency_cycles": [47, 10**20],
            "energy": [12.5, float(Fraction(1, 3))],
            "utilisation": [1.0, 0.25],
        }
    )
    ax = new_axes((3, 2))
    ax.plot([0, 1], [2, 3])
    mapping = MappingRecord(
        "gemm on systolic-2d-8x8",
        "os",
        "{ S[i, j, k] -> PE[i, j] }",
        "{ S[i, j, k] -> T[i + j + k] }",
        {"glb": "{ S[i, j, k] -> T0[floor(k/4)] }"},
    )
    return Report(
        "gemm & co", {"objective": "latency"}, [("best", table)], [("plot", ax.figure)], [mapping]
    )


def test_column_header_takes_the_unit_from_the_vocabulary() -> None:
    assert column_header("bandwidth_pe_elements_per_cycle")[:2] == (
        "bandwidth_pe",
        "elements/cycle",
    )
    assert column_header("utilisation")[:2] == ("utilisation", "ratio")
    assert column_header("workload")[1] == ""


def test_render_report_headers_carry_units() -> None:
    page = read_page(render_report(_report()))
    header, rows = page.tables[1]
    assert header[:2] == ["name", "latency cycles"]
    # no energy_unit column: the energy's unit is not known
    assert header[2] == "energy see energy_unit" and header[3] == "utilisation ratio"
    assert [r[0] for r in rows] == ["os", "ws"]


def test_render_report_energy_header_names_the_table_unit() -> None:
    table = pd.DataFrame({"energy": [1.5], "edp": [3.0], "energy_unit": ["pJ"]})
    header, _ = read_page(render_report(Report("t", {}, [("best", table)]))).tables[1]
    assert header[:2] == ["energy pJ", "edp pJ x cycles"]
    mixed = pd.DataFrame({"energy": [1.5, 2.0], "energy_unit": ["pJ", "MAC"]})
    header, _ = read_page(render_report(Report("t", {}, [("best", mixed)]))).tables[1]
    assert header[0] == "energy see energy_unit"


def test_render_report_numbers_sort_by_their_exact_value() -> None:
    page = read_page(render_report(_report()))
    values = [[cell.get("data-value") for cell in row] for row in page.cell_values[1]]
    # the name is text; 10**20 is kept exactly; 1/3 as Python's shortest float text
    assert values[1] == [None, str(10**20), repr(1 / 3), "0.25"]
    assert page.tables[1][1][1][2] == "0.3333"  # shown with four significant digits


def test_render_report_inlines_figures_and_references_nothing_else() -> None:
    text = render_report(_report())
    page = read_page(text)
    assert page.svgs == 1 and page.links == 0 and page.scripts_from_files == 0
    assert all(ref.startswith("#") for ref in page.references)
    assert "http" not in text and "<?xml" not in text
    assert page.headings == [
        "gemm & co",
        "Inputs",
        "best",
        "plot",
        "Dataflows of the reported mappings",
    ]


def test_render_report_lists_each_mapping_with_its_stamps() -> None:
    header, rows = read_page(render_report(_report())).tables[-1]
    assert header == ["reported for", "mapping", "space-stamp", "time-stamp", "tile stamps"]
    assert rows == [
        [
            "gemm on systolic-2d-8x8",
            "os",
            "{ S[i, j, k] -> PE[i, j] }",
            "{ S[i, j, k] -> T[i + j + k] }",
            "glb: { S[i, j, k] -> T0[floor(k/4)] }",
        ]
    ]


def test_write_report_leaves_only_the_page(tmp_path: Path) -> None:
    written = write_report(_report(), tmp_path / "r.html")
    assert written == tmp_path / "r.html"
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]
    assert written.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
