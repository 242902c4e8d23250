"""Results as text: the printed report of an assessment (metrics, legality, memory levels) and
of a layout evaluation, and the JSON-ready data of the latter; what ``tenet eval`` and
``tenet layout`` print."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from tenet.metrics.clock import clock_figures
from tenet.vocab import unit_label

if TYPE_CHECKING:
    from tenet.layout.metrics import LayoutMetrics
    from tenet.layout.optimiser import LayoutSearch
    from tenet.metrics.assessment import Assessment
    from tenet.metrics.memory import MemoryMetrics

__all__ = [
    "assessment_text",
    "layout_dict",
    "layout_text",
    "mapping_row_output",
    "records_csv",
    "records_text",
    "row_csv",
]


def _clock_lines(
    latency: int | Fraction, macs: int, energy: float, energy_unit: str, clock_mhz: float | None
) -> list[str]:
    """A line per figure at the clock (none without one), named as in JSON, with units."""
    figures = clock_figures(latency, macs, energy, energy_unit, clock_mhz)
    return [f"{key:24} {value:.6g} {unit_label(key)}" for key, value in figures.items()]


def _memory_lines(memory: MemoryMetrics, energy_unit: str, clock: list[str]) -> list[str]:
    if len(memory.levels) < 2:
        return []
    unit = unit_label("energy", energy_unit)
    lines = ["", memory.table().to_string(), ""]
    lines += [
        f"{s.level:8} footprint {s.footprint} of {s.capacity if s.capacity else 'unbounded'}"
        f" elements, reads {s.accesses_read}, writes {s.accesses_write}, latency "
        f"{float(s.latency):g} cycles, energy {s.energy:g} {unit}"
        for s in memory.levels
    ]
    lines.append(
        f"{'memory latency':24} {float(memory.latency):g} cycles (bottleneck: {memory.bottleneck})"
    )
    lines.append(
        f"{'memory energy':24} {memory.energy:g} {unit} (the levels above, operands "
        f"{memory.energy_operands:g}, links {memory.energy_links:g})"
    )
    lines += [f"memory {line}" for line in clock]
    lines += [f"  capacity: {v.message}" for v in memory.violations]
    return lines


def assessment_text(
    assessment: Assessment,
    csv: bool = False,
    row: Mapping[str, Any] | None = None,
    clock_mhz: float | None = None,
) -> str:
    """Return the per-tensor table of ``assessment``, then one line per figure of the
    dataflow, the legality checks and (with several memory levels) the figures per level;
    with ``csv``, only the per-tensor table, as CSV, with the figures of the mapping's
    ``row`` (:func:`tenet.metrics.row.mapping_row`, if given) on every line. With the
    architecture's ``clock_mhz``, the runtime, throughput and average power of the array's
    figures follow them, and those of the memory levels' figures follow theirs."""
    metrics, legality, memory = assessment.metrics, assessment.legality, assessment.memory
    table = metrics.table()
    if csv:
        if row is not None:
            table = table.assign(
                **{k: json.dumps(v) if isinstance(v, dict) else v for k, v in row.items()}
            )
        return str(table.to_csv().rstrip("\n"))
    table = table[[c for c in table.columns if not c.startswith("accesses_")]]
    table.columns = [c.removeprefix("volume_") for c in table.columns]
    summary = {k: v for k, v in metrics.to_dict().items() if k not in ("tensors", "original")}
    unit = metrics.energy_unit
    lines = [f"{metrics.name} (volumes in elements)", table.to_string(), ""]
    lines += [
        f"{key:24} {value} {unit_label(key, unit)}".rstrip()
        for key, value in summary.items()
        if key not in ("name", "energy_unit")
    ]
    lines += _clock_lines(metrics.latency, metrics.macs, metrics.energy, unit, clock_mhz)
    lines += [f"{'legality':24} {'legal' if legality.legal else 'see below'}"]
    lines += [f"  {v.kind}: {v.message}" for v in legality.violations]
    clock = _clock_lines(memory.latency, metrics.macs, memory.energy, unit, clock_mhz)
    lines += _memory_lines(memory, unit, clock)
    return "\n".join(lines)


def mapping_row_output(
    row: Mapping[str, Any],
    memory: MemoryMetrics,
    fmt: str,
    units: Mapping[str, str] | None = None,
) -> str:
    """Return a mapping's row (:func:`tenet.metrics.row.mapping_row` and what the search adds)
    in ``fmt``: JSON, with the figures per level of ``memory``; CSV, the row (mappings as JSON
    text), a blank line, the figures per level and tensor; text, one line per field with its
    unit (``units`` adds or overrides), the tile stamps, the figures per level and tensor."""
    if fmt == "json":
        return json.dumps({**row, **memory.to_dict()}, indent=2)
    table = memory.table()
    if fmt == "csv":
        return f"{row_csv(row)}\n\n{table.to_csv().rstrip()}"
    named = {"energy": unit_label("energy", row["energy_unit"]), **(units or {})}
    lines = [
        f"{key:24} {value} {named.get(key, '')}".rstrip()
        for key, value in row.items()
        if key not in ("tiles", "energy_unit")
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
