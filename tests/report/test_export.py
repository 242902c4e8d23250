"""Table exports: CSV and JSON read back to the same DataFrame; Markdown and HTML carry every
header and value."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from tenet.errors import SpecError
from tenet.metrics import evaluate
from tenet.report import comparison_table, read_table, render_table, reuse_table, write_table
from tests.paper_example import SKEWED, UNSKEWED, problem


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    only_a = {**UNSKEWED, "name": "only-a", "tensors": ["A"]}
    return comparison_table([evaluate(problem(SKEWED)), evaluate(problem(only_a))])


@pytest.mark.parametrize("suffix", [".csv", ".json"])
def test_export_round_trips_exactly(table: pd.DataFrame, tmp_path: Path, suffix: str) -> None:
    back = read_table(write_table(table, tmp_path / f"t{suffix}"))
    pd.testing.assert_frame_equal(back, table, check_dtype=False)
    # 2/3 and 10/3 keep every digit
    assert back.loc[0, "utilisation"] == 2 / 3
    assert back.loc[0, "bandwidth_scratchpad_elements_per_cycle"] == 20 / 6


def test_export_reuse_table_csv_round_trips(tmp_path: Path) -> None:
    table = reuse_table(evaluate(problem(SKEWED)))
    pd.testing.assert_frame_equal(read_table(write_table(table, tmp_path / "r.csv")), table)


def test_export_json_is_a_list_of_records_with_null_for_missing(table: pd.DataFrame) -> None:
    records = json.loads(render_table(table, "json"))
    assert [r["design"] for r in records] == ["os-skewed", "only-a"]
    assert records[1]["B_reuse_factor"] is None
    assert records[0]["latency_array_cycles"] == 6


def _markdown_cells(text: str) -> list[list[str]]:
    rows = [line.strip().strip("|").split("|") for line in text.splitlines()]
    return [[cell.strip() for cell in row] for k, row in enumerate(rows) if k != 1]


def test_export_markdown_has_every_header_and_value(table: pd.DataFrame) -> None:
    header, *rows = _markdown_cells(render_table(table, "markdown"))
    assert header == list(table.columns)
    assert len(rows) == 2
    skewed = dict(zip(header, rows[0], strict=True))
    assert skewed["design"] == "os-skewed"
    assert skewed["latency_array_cycles"] == "6"
    assert float(skewed["utilisation"]) == pytest.approx(2 / 3, rel=1e-5)


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.inside = False

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag == "tr":
            self.rows.append([])
        self.inside = tag in ("td", "th")
        if self.inside:
            self.rows[-1].append("")

    def handle_endtag(self, tag: str) -> None:
        self.inside = False

    def handle_data(self, data: str) -> None:
        if self.inside:
            self.rows[-1][-1] += data.strip()


def test_export_html_has_every_header_and_value(table: pd.DataFrame, tmp_path: Path) -> None:
    parser = _Cells()
    parser.feed(write_table(table, tmp_path / "t.html").read_text())
    header, *rows = parser.rows
    assert header == list(table.columns)
    only_a = dict(zip(header, rows[1], strict=True))
    assert only_a["design"] == "only-a"
    assert only_a["B_reuse_factor"] == ""
    # only A analysed: 8 unique elements over max(4 steps, ceil(8·16/64)) = 4 cycles
    assert float(only_a["bandwidth_scratchpad_elements_per_cycle"]) == 2.0


def test_export_leaves_no_temporary_file(table: pd.DataFrame, tmp_path: Path) -> None:
    write_table(table, tmp_path / "t.md")
    assert [p.name for p in tmp_path.iterdir()] == ["t.md"]


def test_export_refuses_an_unknown_suffix(table: pd.DataFrame, tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="cannot tell the table format from '.xlsx'"):
        write_table(table, tmp_path / "t.xlsx")


def test_export_reads_back_only_csv_and_json(table: pd.DataFrame, tmp_path: Path) -> None:
    path = write_table(table, tmp_path / "t.md")
    with pytest.raises(SpecError, match="only CSV and JSON tables are read back"):
        read_table(path)
