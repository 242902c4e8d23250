"""Results as text: the printed report of an assessment (its headline, then the array's
metrics, legality, memory levels) and of a layout evaluation, and the JSON-ready data of the
latter; what ``tenet eval`` and ``tenet layout`` print."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from tenet.metrics.row import HEADLINE_FIELDS, headline_model
from tenet.vocab import column, unit_label

if TYPE_CHECKING:
    from tenet.layout.metrics import LayoutMetrics
    from tenet.layout.optimiser import LayoutSearch
    from tenet.metrics.assessment import Assessment
    from tenet.metrics.memory import MemoryMetrics

__all__ = [
    "assessment_text",
    "fits_line",
    "fits_notice",
    "headline_lines",
    "kept_lines",
    "layout_dict",
    "layout_text",
    "mapping_row_output",
    "records_csv",
    "records_text",
    "row_csv",
]


def kept_lines(words: Sequence[str]) -> list[str]:
    """Return the lines under a network's table that say, edge by edge (``words``), what
    stayed on chip between layers.

    Examples
    --------
    >>> kept_lines(["fc1.C -> fc2.A (24 elements): kept on chip in glb"])
    ['', 'between layers:', '  fc1.C -> fc2.A (24 elements): kept on chip in glb']
    """
    return ["", "between layers:", *(f"  {w}" for w in words)] if words else []


def fits_line(row: Mapping[str, Any]) -> str:
    """Return whether a mapping's row fits, as its headline says it first: ``fits: yes``, or
    ``fits: no — `` and what overflows.

    Examples
    --------
    >>> fits_line({"fits": False, "overflow": "rf needs 2,880 of 64 elements"})
    'fits: no — rf needs 2,880 of 64 elements'
    """
    return "fits: yes" if row["fits"] else f"fits: no — {row['overflow']}"


def fits_notice(rows: Sequence[Mapping[str, Any]]) -> str | None:
    """Return the line that heads a table of mapping rows when some do not fit (None when
    every row with a ``fits`` fits): how many, and what the first of them overflows.

    Examples
    --------
    >>> rows = [{"fits": True}, {"fits": False, "overflow": "rf needs 272 of 256 elements"}]
    >>> fits_notice(rows)
    'fits: no — 1 of 2 rows (the first: rf needs 272 of 256 elements)'
    >>> fits_notice(rows[1:])
    'fits: no — rf needs 272 of 256 elements'
    """
    known = [r for r in rows if r.get("fits") in (True, False)]
    over = [r for r in known if not r["fits"]]
    if not over:
        return None
    if len(known) == 1:
        return fits_line(over[0])
    return f"fits: no — {len(over)} of {len(known)} rows (the first: {over[0]['overflow']})"


def headline_lines(row: Mapping[str, Any]) -> list[str]:
    """Return the headline of a mapping's row (:data:`tenet.metrics.row.HEADLINE_FIELDS`) as
    text: whether it fits, its latency (with the bottleneck), energy and DRAM traffic with
    their units, which model gave them, and its figures at the clock when the row has them.

    Examples
    --------
    >>> for line in headline_lines({"latency_cycles": 31, "energy": 4224.0,
    ...     "energy_unit": "pJ", "traffic_dram_elements": 128, "fits": True,
    ...     "memory_model": "array", "bottleneck": None}):
    ...     print(line)
    fits: yes
    latency                  31 cycles
    energy                   4224.0 pJ
    traffic_dram             128 elements
    model                    array (no memory level inside the outermost)
    """
    bottleneck = row.get("bottleneck")
    lines = [
        fits_line(row),
        f"{'latency':24} {row[column('latency')]} cycles"
        + (f" (bottleneck: {bottleneck})" if bottleneck else ""),
        f"{'energy':24} {row['energy']} {unit_label('energy', row['energy_unit'])}",
        f"{'traffic_dram':24} {row[column('traffic_dram')]} elements",
        f"{'model':24} {headline_model(row['memory_model'])}",
    ]
    lines += [
        f"{metric:24} {row[column(metric)]:.6g} {unit_label(metric)}"
        for metric in ("runtime", "throughput", "power_avg")
        if row.get(column(metric)) is not None
    ]
    return lines


def _memory_lines(memory: MemoryMetrics, energy_unit: str) -> list[str]:
    if len(memory.levels) < 2:
        return []
    unit = unit_label("energy", energy_unit)
    lines = ["", "memory levels (the headline's model)", memory.table().to_string(), ""]
    lines += [
        f"{s.level:8} footprint {s.footprint} of {s.capacity if s.capacity else 'unbounded'}"
        f" elements, reads {s.accesses_read}, writes {s.accesses_write}, latency "
        f"{float(s.latency):g} cycles, energy {s.energy:g} {unit}"
        for s in memory.levels
    ]
    levels = sum(s.energy for s in memory.levels)
    lines.append(
        f"{'memory energy':24} levels {levels:g}, operands {memory.energy_operands:g}, links "
        f"{memory.energy_links:g} {unit} (the headline's energy: their sum)"
    )
    lines += [f"  capacity: {v.message}" for v in memory.violations]
    return lines


def assessment_text(
    assessment: Assessment, csv: bool = False, row: Mapping[str, Any] | None = None
) -> str:
    """Return the design's headline (:func:`headline_lines` of its mapping ``row``,
    :func:`tenet.metrics.row.mapping_row`, with its figures at the clock if any; default the
    assessment's :meth:`~tenet.metrics.assessment.Assessment.row`), then the per-tensor table
    of the array model, one line per figure of the array model (its latency and energy as
    ``latency_array`` and ``energy_array``), the legality checks (dependences and placement)
    and, with several memory levels, the figures per level and the tiles that do not fit;
    with ``csv``, only the per-tensor table, as CSV, with the figures of the ``row`` on every
    line."""
    metrics, legality, memory = assessment.metrics, assessment.legality, assessment.memory
    row = assessment.row() if row is None else row
    table = metrics.table()
    if csv:
        table = table.assign(
            **{k: json.dumps(v) if isinstance(v, dict) else v for k, v in row.items()}
        )
        return str(table.to_csv().rstrip("\n"))
    table = table[[c for c in table.columns if not c.startswith("accesses_")]]
    table.columns = [c.removeprefix("volume_") for c in table.columns]
    summary = {k: v for k, v in metrics.to_dict().items() if k not in ("tensors", "original")}
    unit = metrics.energy_unit
    lines = [*headline_lines(row), ""]
    lines += [f"{metrics.name}: the array model (volumes in elements)", table.to_string(), ""]
    lines += [
        f"{key:24} {value} {unit_label(key, unit)}".rstrip()
        for key, value in summary.items()
        if key not in ("name", "energy_unit")
    ]
    checks = "legal" if legality.legal else "see below"
    lines += [f"{'legality':24} {checks} (dependences and placement; capacity: fits)"]
    lines += [f"  {v.kind}: {v.message}" for v in legality.violations]
    lines += _memory_lines(memory, unit)
    return "\n".join(lines)


def mapping_row_output(
    row: Mapping[str, Any],
    memory: MemoryMetrics,
    fmt: str,
    units: Mapping[str, str] | None = None,
) -> str:
    """Return a mapping's row (:func:`tenet.metrics.row.mapping_row` and what the search adds)
    in ``fmt``: JSON, with the figures per level of ``memory``; CSV, the row (mappings as JSON
    text), a blank line, the figures per level and tensor; text, its headline
    (:func:`headline_lines`), then one line per other field with its unit (``units`` adds or
    overrides), the tile stamps, the figures per level and tensor."""
    if fmt == "json":
        return json.dumps({**row, **memory.to_dict()}, indent=2)
    table = memory.table()
    if fmt == "csv":
        return f"{row_csv(row)}\n\n{table.to_csv().rstrip()}"
    named = {"energy": unit_label("energy", row["energy_unit"]), **(units or {})}
    shown = {*HEADLINE_FIELDS, "bottleneck", "tiles"}
    lines = headline_lines(row) + [
        f"{key:24} {value} {named.get(key, '')}".rstrip()
        for key, value in row.items()
        if key not in shown
    ]
    lines += ["tiles:"] + [f'  {k}: "{v}"' for k, v in row["tiles"].items()]
    return "\n".join([*lines, "", table.to_string()])


def row_csv(row: Mapping[str, Any]) -> str:
    """Return a mapping's row as CSV: a header and one line (mappings as JSON text)."""
    import pandas as pd

    flat = {k: json.dumps(v) if isinstance(v, dict) else v for k, v in row.items()}
    return str(pd.DataFrame([flat]).to_csv(index=False).rstrip("\n"))


def records_text(records: Sequence[Mapping[str, Any]], digits: int = 4) -> str:
    """Return ``records`` (one per row, the first's keys as columns) as aligned text: the first
    column to the left, the others to the right, floats with ``digits`` significant digits
    and a missing value as ``-``.

    Examples
    --------
    >>> print(records_text([{"layer": "fc", "macs": 8, "energy": 2 / 3},
    ...                     {"layer": "total", "macs": 16, "energy": None}]))
    layer  macs  energy
    fc        8  0.6667
    total    16       -
    """
    columns = list(records[0]) if records else []
    cells = [columns] + [[_cell(r.get(c), digits) for c in columns] for r in records]
    widths = [max(len(row[k]) for row in cells) for k in range(len(columns))]
    return "\n".join(
        "  ".join(
            cell.ljust(width) if k == 0 else cell.rjust(width)
            for k, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in cells
    )


def _cell(value: object, digits: int) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def records_csv(records: Sequence[Mapping[str, Any]]) -> str:
    """Return ``records`` as CSV: a header (the first record's keys) and one line each (a
    missing value empty).

    Examples
    --------
    >>> print(records_csv([{"layer": "fc", "dataflow": "os, tiled", "energy": 0.5}]))
    layer,dataflow,energy
    fc,"os, tiled",0.5
    """
    import csv
    import io

    columns = list(records[0]) if records else []
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([["" if r.get(c) is None else r.get(c) for c in columns] for r in records])
    return text.getvalue().rstrip("\n")


def _plain(value: object) -> object:
    """A figure as printed: a mean (a fraction) as a decimal of 3 places, the rest as is."""
    return f"{float(value):.3f}" if isinstance(value, Fraction) else value


def _json_value(value: object) -> object:
    return float(value) if isinstance(value, Fraction) else value


def layout_dict(metrics: LayoutMetrics, found: LayoutSearch | None = None) -> dict[str, Any]:
    """Return JSON-ready data of a layout evaluation (ratios as floats) and of the search
    that chose its layouts, if any."""
    out: dict[str, Any] = {
        "scratchpad": metrics.scratchpad.model_dump(),
        "tensors": [{k: _json_value(v) for k, v in r.items()} for r in metrics.rows()],
        "latency_ingress_layout": metrics.latency_ingress_layout,
        "latency_egress_layout": metrics.latency_egress_layout,
    }
    if found is not None:
        out["search"] = {
            "method": found.method,
            "latency_ingress_before": found.latency_ingress_before,
            "latency_ingress_after": found.latency_ingress_after,
            "evaluations": found.evaluations,
            "tensors": found.rows(),
        }
    return out


def layout_text(
    metrics: LayoutMetrics, found: LayoutSearch | None = None, csv: bool = False
) -> str:
    """Return the per-tensor table of a layout evaluation, the scratchpad and the
    layout-aware latencies (cycles), then the search's outcome, if any; with ``csv``, only
    the table, as CSV (ratios as ``p/q``)."""
    import pandas as pd

    table = pd.DataFrame([{k: _plain(v) for k, v in r.items()} for r in metrics.rows()])
    if csv:
        return str(table.to_csv(index=False).rstrip("\n"))
    sp = metrics.scratchpad
    lines = [
        table.to_string(index=False),
        "",
        f"{'scratchpad':24} {sp.banks} banks x {sp.bank_width} words, "
        f"{sp.transaction_width}-word transactions",
        f"{'latency_ingress_layout':24} {metrics.latency_ingress_layout} cycles",
        f"{'latency_egress_layout':24} {metrics.latency_egress_layout} cycles",
    ]
    if found is not None:
        lines += [
            "",
            f"{found.method} search ({found.evaluations} layouts counted): ingress "
            f"{found.latency_ingress_before} -> {found.latency_ingress_after} cycles",
            pd.DataFrame(found.rows()).to_string(index=False),
        ]
    return "\n".join(lines)
