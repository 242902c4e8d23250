"""Readers of the original TENET text formats (``.s``, ``.m``, ``.p``, ``experiment_N``).

They produce the same spec objects as the YAML forms. A ``.p`` link reads "receiver -> sender";
it is reversed here, since our specs read links sender -> receiver.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import islpy as isl

from tenet.errors import SpecError
from tenet.isl_utils import parse_map
from tenet.spec.architecture import ArchitectureSpec
from tenet.spec.dataflow import DataflowSpec
from tenet.spec.io import read_text
from tenet.spec.specs import Specs
from tenet.spec.workload import WorkloadSpec

__all__ = [
    "read_statement",
    "read_mapping",
    "read_pe_array",
    "Experiment",
    "read_experiment",
]


def _numbered_lines(path: str | Path) -> list[tuple[int, str]]:
    text = read_text(path)
    return [(k + 1, line.strip()) for k, line in enumerate(text.splitlines()) if line.strip()]


def read_statement(path: str | Path) -> WorkloadSpec:
    """Read a ``.s`` statement file: ``R W``, the domain, R read maps, W write maps.

    TENET's statements are multiply-accumulate updates, so the written tensors are marked as
    reductions (their updates may be reordered)."""
    source = str(path)
    lines = _numbered_lines(path)
    if len(lines) < 2:
        raise SpecError("expected 'R W', then the domain and the access maps", source=source)
    head_line, head = lines[0]
    try:
        n_read, n_write = (int(x) for x in head.split())
    except ValueError as exc:
        raise SpecError(
            f"line {head_line}: expected two integers 'R W', got {head!r}", source=source
        ) from exc
    body = lines[2:]
    if len(body) != n_read + n_write:
        raise SpecError(
            f"line {head_line} announces {n_read} read and {n_write} write maps, "
            f"found {len(body)} map lines",
            source=source,
        )
    accesses: dict[str, dict[str, list[str]]] = {}
    where = {"domain": lines[1][0]}
    for k, (number, text) in enumerate(body):
        access = "read" if k < n_read else "write"
        tensor = parse_map(text, source=source, location=f"line {number}").get_tuple_name(
            isl.dim_type.out
        )
        if not tensor:
            raise SpecError(f"line {number}: access map has no tensor name", source=source)
        accesses.setdefault(tensor, {}).setdefault(access, []).append(text)
        where.setdefault(f"accesses.{tensor}.{access}", number)
    return WorkloadSpec.from_mapping(
        {
            "name": Path(path).stem,
            "domain": lines[1][1],
            "accesses": accesses,
            "reductions": [t for t, a in accesses.items() if "write" in a],
        },
        source=source,
        lines=where,
    )


def read_mapping(path: str | Path) -> DataflowSpec:
    """Read a ``.m`` mapping file: the space-stamp map, then the time-stamp map."""
    lines = _numbered_lines(path)
    if len(lines) != 2:
        raise SpecError(
            f"expected 2 lines (space-stamp, time-stamp), found {len(lines)}", source=str(path)
        )
    return DataflowSpec.from_mapping(
        {"name": Path(path).stem, "space_stamp": lines[0][1], "time_stamp": lines[1][1]},
        source=str(path),
        lines={"space_stamp": lines[0][0], "time_stamp": lines[1][0]},
    )


def read_pe_array(path: str | Path) -> ArchitectureSpec:
    """Read a ``.p`` PE-array file: PE set, links (receiver -> sender), then
    ``l1size l2size bandwidth avg_latency``."""
    source = str(path)
    lines = _numbered_lines(path)
    if len(lines) != 3:
        raise SpecError(
            f"expected 3 non-empty lines (PE set, interconnect, 4 numbers), found {len(lines)}",
            source=source,
        )
    (pe_line, pe), (link_line, links), (num_line, numbers) = lines
    try:
        l1_size, l2_size, bandwidth, latency = (int(x) for x in numbers.split())
    except ValueError as exc:
        raise SpecError(
            f"line {num_line}: expected 4 integers 'l1size l2size bandwidth avg_latency', "
            f"got {numbers!r}",
            source=source,
        ) from exc
    sender_to_receiver = parse_map(links, source=source, location=f"line {link_line}").reverse()
    return ArchitectureSpec.from_mapping(
        {
            "name": Path(path).stem,
            "pe": pe,
            "interconnect": [{"link": str(sender_to_receiver), "delay": 1}],
            "l1_size": l1_size,
            "l2_size": l2_size,
            "bandwidth": bandwidth,
            "latency": latency,
            "bits_per_element": 16,
        },
        source=source,
        lines={"pe": pe_line, "interconnect": link_line, "interconnect.0": link_line},
    )


@dataclass(frozen=True)
class Experiment:
    """The specs an ``experiment_N`` file names (no size parameters given), and where it was
    read from."""

    source: str
    specs: Specs


def _data_root(experiment: Path, first: str) -> Path:
    for folder in experiment.resolve().parents:
        if (folder / first).exists():
            return folder
    raise SpecError(
        f"cannot find the data root: no folder above the experiment holds {first!r}",
        source=str(experiment),
    )


def read_experiment(path: str | Path) -> Experiment:
    """Read an ``experiment_N`` file: paths of a mapping, a PE array and a statement, relative
    to the data root (the nearest folder above the file that holds them)."""
    lines = _numbered_lines(path)
    if len(lines) != 3:
        raise SpecError(
            f"expected 3 paths (mapping, pe_array, statement), found {len(lines)} lines",
            source=str(path),
        )
    root = _data_root(Path(path), lines[0][1])
    mapping, pe_array, statement = (root / text for _, text in lines)
    workload = read_statement(statement)
    architecture = read_pe_array(pe_array)
    return Experiment(str(path), Specs(workload, architecture, read_mapping(mapping)))
