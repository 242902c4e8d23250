"""The mapper: the best mapping of a layer, or of every layer entry of a network, over every
array mapping, the tensors each level keeps, the tile sizes and the loop orders together (the
joint search, :func:`tenet.dse.joint.tree.joint_search`), each with its certificate: the bound
below which no mapping of the space goes and the gap to it.

A network's layer entries are each listed under their own name with their count (as ``tenet
eval-network`` lists them); identical entries (same workload and sizes) are searched once. The
network's total weighs each entry by its count (:func:`tenet.dse.network.network_totals`).
The best mapping of each entry is written as a dataflow file (:func:`dataflow_text`) that
``tenet eval`` evaluates to the same figures. A network's entry whose input is the output of
the entry before keeps it on chip when both bests leave room for it
(:func:`tenet.metrics.residency.keep_outputs`): each entry is searched alone, then its figures
lose the DRAM traffic of what stayed on chip (the value and bound stay the search's).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

from tenet.api import load_problem
from tenet.dse.joint.tree import joint_search
from tenet.dse.network import layer_counts, network_totals
from tenet.dse.ranking.certificate import Certificate, unit_of
from tenet.dse.run.engines import Engine
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.run.runner import Interrupted
from tenet.dse.space.design import SpaceOptions
from tenet.dse.tiling.sizes import TilingSpace
from tenet.errors import SpecError
from tenet.files import write_atomically
from tenet.mapping import Stamps
from tenet.metrics.assessment import Assessment, assess_problem
from tenet.metrics.residency import Edge, LayerRun, keep_outputs
from tenet.report.designspace import plot_layers
from tenet.report.html import MappingRecord, Report
from tenet.report.tables import axis_label
from tenet.spec import (
    ArchitectureSpec,
    ConstraintsSpec,
    DataflowSpec,
    NetworkSpec,
    load_architecture,
    load_workload,
)
from tenet.vocab import MemoryObjective, column
from tenet.zoo import fits

__all__ = [
    "LayerEntry",
    "MappedLayer",
    "Mapped",
    "SHOWN_COLUMNS",
    "network_entries",
    "map_layers",
    "kept_between",
    "gap_words",
    "ties_words",
    "dataflow_text",
    "save_dataflows",
    "map_report",
]

SHOWN_COLUMNS = [
    "layer",
    "count",
    column("latency"),
    "energy",
    "energy_unit",
    column("traffic_dram"),
    column("dram_saved"),
    "resident",
    "value",
    "bound",
    "certificate",
    "evaluated",
    "cpu_seconds",
]
"""The columns of a mapped layer shown in a text table (every field in JSON and CSV)."""


@dataclass(frozen=True)
class LayerEntry:
    """One layer entry to map: its label, its workload (zoo name or file), its sizes and how
    many times it occurs."""

    label: str
    workload: str
    params: Mapping[str, int] = field(default_factory=dict)
    count: int = 1


def network_entries(network: NetworkSpec) -> list[LayerEntry]:
    """Return the layer entries of ``network``, labelled ``network/layer``
    (:func:`tenet.dse.network.layer_counts`), in its order.

    Examples
    --------
    >>> net = NetworkSpec.from_mapping({"name": "n", "layers": [
    ...     {"name": "a", "workload": "gemm", "params": {"M": 2}, "count": 3}]})
    >>> network_entries(net)
    [LayerEntry(label='n/a', workload='gemm', params={'M': 2}, count=3)]
    """
    labels = layer_counts(network)
    return [
        LayerEntry(label, layer.workload, dict(layer.params), count)
        for (label, count), layer in zip(labels, network.layers, strict=True)
    ]


def gap_words(value: Fraction, bound: Fraction | None) -> str:
    """Say what the bound proves of the best ``value``: optimal, or how far above the best
    possible it may be at most ((value - bound) / bound, rounded up to 0.1 %).

    Examples
    --------
    >>> gap_words(Fraction(10), Fraction(10))
    'proven optimal'
    >>> gap_words(Fraction(1033), Fraction(1000))
    'at most 3.3 % above the best possible'
    >>> gap_words(Fraction(5), None)
    'no bound proven'
    """
    if bound is None or bound <= 0:
        return "no bound proven"
    if value <= bound:
        return "proven optimal"
    above = math.ceil((value - bound) / bound * 1000) / 10
    return f"at most {above:.1f} % above the best possible"


def ties_words(ties_open: int, objective: MemoryObjective) -> str:
    """Say what the tie nodes a search left unsearched mean for its best (empty: none left,
    the best has the least other objective of the mappings of its value).

    Examples
    --------
    >>> ties_words(3, "latency")
    '3 tie nodes left: another mapping with the same value may use less energy'
    >>> ties_words(1, "energy")
    '1 tie node left: another mapping with the same value may take fewer cycles'
    >>> ties_words(0, "latency")
    ''
    """
    if not ties_open:
        return ""
    nodes = "tie node" if ties_open == 1 else "tie nodes"
    other = "use less energy" if objective == "latency" else "take fewer cycles"
    return f"{ties_open} {nodes} left: another mapping with the same value may {other}"


def _number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


@dataclass(frozen=True)
class MappedLayer:
    """A layer entry and the certificate of its search (shared by identical entries), with
    the CPU time of that search."""

    entry: LayerEntry
    found: Certificate
    cpu_seconds: float
    """CPU seconds of the search: this process's and its workers' (as they reported them
    with their results, :attr:`tenet.dse.run.engines.Engine.worker_seconds`)."""
    kept: Mapping[str, list[str]]
    """Every tensor each memory level of the best mapping keeps, outermost level first."""
    resident_assessment: Assessment | None = None
    """The best mapping with what it keeps on chip between layers: its memory figures, and
    its kept tensors with the one that stays on chip (None: the search's own)."""
    dram_saved: int = 0
    """DRAM elements saved by keeping the input or output on chip (per occurrence)."""
    resident: str = ""
    """What the entry keeps on chip between layers (``A from fc1; C to fc3``)."""

    @property
    def assessment(self) -> Assessment:
        """The best mapping's assessment, with what it keeps on chip between layers."""
        found = self.found.best.assessment
        return found if self.resident_assessment is None else self.resident_assessment

    def row(self) -> dict[str, Any]:
        """Return the layer's row: its figures under the best mapping (memory-aware latency,
        energy, DRAM traffic), the objective's value, the bound and the relative gap, the
        mapping (stamps, tiles, kept tensors, places) and what the search did; the figures
        with what it keeps on chip between layers (``dram_saved_elements``, ``resident``)."""
        found, best = self.found, self.found.best
        figures = self.assessment.row()
        stamps = self.assessment.mapping
        value = best.value
        return {
            "layer": self.entry.label,
            "workload": self.entry.workload,
            "params": dict(self.entry.params),
            "count": self.entry.count,
            **{k: figures[k] for k in (column("latency"), "energy", "energy_unit")},
            column("traffic_dram"): figures[column("traffic_dram")],
            column("dram_saved"): self.dram_saved,
            "resident": self.resident,
            column("latency_compute"): figures[column("latency_compute")],
            "bottleneck": figures["bottleneck"],
            "fits": figures["fits"],
            "objective": found.objective,
            "value": _number(value),
            "value_unit": unit_of(found.objective, found.energy_unit),
            "bound": None if found.bound is None else _number(found.bound),
            "gap": float(found.relative_gap) if found.bound is not None else None,
            "certificate": gap_words(value, found.bound),
            "ties_open": found.ties_open,
            "complete": found.complete,
            "space_stamp": stamps.space_stamp,
            "time_stamp": stamps.time_stamp,
            "tiles": dict(stamps.tiles),
            "kept": {level: list(tensors) for level, tensors in self.kept.items()},
            "places": {level: dict(per) for level, per in stamps.places.items()},
            "tiling": best.mapping.describe(),
            "space": found.space,
            "evaluated": found.evaluated,
            "pruned": found.pruned,
            "cpu_seconds": round(self.cpu_seconds, 3),
            "cpu_to_best": round(found.cpu_to_best, 3),
        }


@dataclass(frozen=True)
class Mapped:
    """The mapped layer entries of a layer or a network on one architecture."""

    architecture: str
    objective: MemoryObjective
    layers: tuple[MappedLayer, ...]
    network: NetworkSpec | None = None
    """The network whose entries these are (None: one layer)."""
    complete: bool = True
    """Every entry was searched (False: interrupted)."""
    edges: tuple[Edge, ...] = ()
    """Each entry's input that is the output of the entry before, and whether it stayed on
    chip."""

    def rows(self) -> list[dict[str, Any]]:
        """Return the row of every mapped entry (:meth:`MappedLayer.row`)."""
        return [m.row() for m in self.layers]

    def total(self) -> dict[str, Any] | None:
        """Return the network's total: its layers' count, and the latency (layers run one
        after the other), energy and DRAM traffic of every entry weighed by its count (None
        where an entry was not searched); None for one layer."""
        if self.network is None:
            return None
        import pandas as pd

        best = pd.DataFrame(
            [
                {**r, "workload": r["layer"], "architecture": self.architecture, "name": ""}
                for r in self.rows()
            ],
            columns=[
                "workload",
                "architecture",
                "name",
                column("latency"),
                "energy",
                column("traffic_dram"),
                "energy_unit",
            ],
        )
        totals = network_totals(best, layer_counts(self.network))
        if not len(totals):
            return {"layer": "total", "count": sum(c for _, c in layer_counts(self.network))}
        last = totals.iloc[-1].to_dict()
        keep = ("layer", "count", column("latency"), "energy", column("traffic_dram"))
        saved = sum(m.entry.count * m.dram_saved for m in self.layers)
        return {k: last[k] for k in keep} | {
            "energy_unit": last["energy_unit"],
            column("dram_saved"): saved,
        }


def _kept(
    arch: ArchitectureSpec, tensors: Sequence[str], keep: Mapping[str, Iterable[str]]
) -> dict[str, list[str]]:
    """Every tensor each level keeps: those of ``keep`` (a dataflow's), else every tensor
    it may hold."""
    return {
        lv.name: sorted(keep[lv.name])
        if lv.name in keep
        else [t for t in tensors if lv.tensors is None or t in lv.tensors]
        for lv in arch.levels
    }


def _dataflows(entry: LayerEntry, dataflows: Sequence[str], arch: str) -> list[str] | None:
    """The given array mappings made for the entry's workload (None: none given, every
    mapping of the design space)."""
    if not dataflows:
        return None
    made = [d for d in dataflows if fits(d, entry.workload, arch)]
    if not made:
        raise SpecError(
            f"none of the dataflows {', '.join(dataflows)} is made for workload "
            f"{entry.workload!r} on {arch!r}: give one that is, or none (every array mapping)",
            source=entry.label,
        )
    return made


def map_layers(
    entries: Sequence[LayerEntry],
    arch: str,
    *,
    dataflows: Sequence[str] = (),
    objective: MemoryObjective = "latency",
    execution: ExecutionOptions | None = None,
    network: NetworkSpec | None = None,
    told: Callable[[str], object] | None = None,
    constraints: ConstraintsSpec | None = None,
    residency: bool = True,
    design: SpaceOptions | None = None,
    aligned: int | None = None,
    gap: float = 0.0,
) -> Mapped:
    """Search the best mapping of each layer entry of ``entries`` on ``arch`` by
    ``objective`` (:func:`~tenet.dse.joint.tree.joint_search` over every array mapping of the
    design space, or over ``dataflows``: zoo templates, sized to the array, or files; of a
    network, those made for each entry's workload), identical entries once; ``execution``
    runs every search (its time budget is each search's; one engine serves them all, its
    workers' CPU time counted in each entry's);
    ``told`` hears a line when an entry is done; ``constraints`` narrow every entry's search;
    with ``aligned``, the multiples of it join every entry's tile sizes (the last tile
    partial, :class:`~tenet.dse.tiling.sizes.TilingSpace`);
    with ``residency``, an entry's input that is the output of the entry before stays on chip
    when both bests leave room for it (:func:`kept_between`); ``design``: what the design
    space holds when no ``dataflows`` are given (None: its defaults); ``gap``: each search's
    tolerance (a fraction; :func:`~tenet.dse.joint.tree.joint_search`).

    Raises
    ------
    Interrupted
        Ctrl-C, with the :class:`Mapped` entries done so far (and the one being searched,
        with its certificate so far).

    Examples
    --------
    >>> mapped = map_layers([LayerEntry("gemm", "gemm", {"M": 4, "N": 4, "K": 4})],
    ...                     "systolic-levels-8x8")
    >>> row = mapped.rows()[0]
    >>> row["certificate"], row["latency_cycles"] == row["value"] == row["bound"]
    ('proven optimal', True)
    """
    architecture = load_architecture(arch)
    with (execution or ExecutionOptions(None)).shared() as run:  # one engine for every search
        workers = run.engine if isinstance(run.engine, Engine) else None

        def cpu() -> float:  # this process's CPU seconds and those its workers reported
            return time.process_time() + (0.0 if workers is None else workers.worker_seconds)

        done: dict[tuple[str, tuple[tuple[str, int], ...]], tuple[Certificate, float]] = {}
        mapped: list[MappedLayer] = []
        keys = [(e.workload, tuple(sorted(e.params.items()))) for e in entries]
        distinct = len(set(keys))

        def result(complete: bool) -> Mapped:
            return Mapped(arch, objective, tuple(mapped), network, complete)

        try:
            for entry, key in zip(entries, keys, strict=True):
                if key not in done:
                    workload = load_workload(entry.workload)
                    start = cpu()
                    try:
                        found = joint_search(
                            workload,
                            architecture,
                            _dataflows(entry, dataflows, arch),
                            entry.params,
                            None if aligned is None else TilingSpace(aligned=aligned),
                            objective=objective,
                            execution=run,
                            constraints=constraints,
                            design=design,
                            gap=gap,
                        )
                    except Interrupted as stop:
                        if isinstance(stop.partial, Certificate):
                            seconds = cpu() - start
                            mapped.append(_mapped(entry, stop.partial, seconds, architecture))
                        raise Interrupted(result(False)) from None
                    done[key] = (found, cpu() - start)
                    if told is not None:
                        told(
                            f"layers: {len(done)}/{distinct} searched ({entry.label}: "
                            f"{found.status()}; {gap_words(found.best.value, found.bound)})"
                        )
                found, seconds = done[key]
                mapped.append(_mapped(entry, found, seconds, architecture))
        except Interrupted:
            raise
        except KeyboardInterrupt:
            raise Interrupted(result(False)) from None
    return kept_between(result(True), residency)


def kept_between(mapped: Mapped, on: bool = True) -> Mapped:
    """Return ``mapped`` (a network's entries, each with its best mapping) with each entry's
    input that is the output of the entry before kept on chip when both bests leave room
    for it (:func:`tenet.metrics.residency.keep_outputs`; ``on`` False: the edges checked,
    nothing kept); a best that bypasses the tensor at the level inside the outermost is
    tried with that level keeping it, and keeps it only when it stays on chip. Counted from
    each search's best: ``mapped`` may have kept some already. A network without such
    inputs, or one layer, comes back as it is."""
    network = mapped.network
    if network is None or all(layer.input is None for layer in network.layers):
        return mapped
    architecture = load_architecture(mapped.architecture)
    inputs = [layer.input for layer in network.layers]
    wanted: list[set[str]] = [set() for _ in inputs]
    for k, given in enumerate(inputs):
        if given is not None and on:
            wanted[k - 1] |= set(_written(mapped.layers[k - 1].entry.workload))
            wanted[k].add(given.tensor)
    tried = [
        _resident_run(m, layer.name, architecture, extra)
        for m, layer, extra in zip(mapped.layers, network.layers, wanted, strict=True)
    ]
    first = keep_outputs([run for run, _ in tried], inputs, on=on, source=network.source)
    stays: list[set[str]] = [set() for _ in inputs]
    for edge in first.edges:
        if edge.level is not None:
            consumer = [layer.name for layer in network.layers].index(edge.consumer)
            stays[consumer - 1].add(edge.output)
            stays[consumer].add(edge.input)
    if stays == wanted:
        final, kept = tried, first
    else:
        final = [
            _resident_run(m, layer.name, architecture, extra)
            for m, layer, extra in zip(mapped.layers, network.layers, stays, strict=True)
        ]
        kept = keep_outputs([run for run, _ in final], inputs, on=on, source=network.source)
    layers = tuple(
        replace(
            m,
            resident_assessment=replace(found, _memory=memory) if words else None,
            kept=_kept(architecture, list(load_workload(m.entry.workload).accesses), keep),
            dram_saved=saved,
            resident=words,
        )
        for m, (_, found), memory, saved, words, keep in zip(
            mapped.layers,
            final,
            kept.memory,
            kept.dram_saved,
            kept.resident,
            [found.mapping.keep for _, found in final],
            strict=True,
        )
    )
    return replace(mapped, layers=layers, edges=kept.edges)


def _written(workload: str) -> list[str]:
    """The tensors ``workload`` writes."""
    return [t for t, access in load_workload(workload).accesses.items() if access.write]


def _resident_run(
    m: MappedLayer, name: str, architecture: ArchitectureSpec, extra: set[str]
) -> tuple[LayerRun, Assessment]:
    """The entry's best mapping as a layer run, with the level inside the outermost keeping
    ``extra`` too when the mapping bypasses them there and the level may hold them (its
    memory figures counted again then), and its assessment."""
    best = m.found.best.assessment
    data = _dataflow_data(best.mapping, name)
    keep = {level: list(tensors) for level, tensors in data.get("keep", {}).items()}
    level = architecture.levels[1].name if len(architecture.levels) > 1 else None
    held = architecture.levels[1].tensors if level is not None else None
    added = {
        t for t in extra if level in keep and t not in keep[level] and (held is None or t in held)
    }
    if added:
        assert level is not None
        data["keep"] = {**keep, level: sorted({*keep[level], *added})}
    problem = load_problem(
        load_workload(m.entry.workload),
        architecture,
        DataflowSpec.from_mapping(data),
        params=m.entry.params,
    )
    if added:
        compute = best.memory.latency_compute
        best = assess_problem(problem, figures=["memory"], latency_compute=compute)
    return LayerRun(name, problem, None, best.memory), best


def _mapped(
    entry: LayerEntry, found: Certificate, seconds: float, arch: ArchitectureSpec
) -> MappedLayer:
    tensors = list(load_workload(entry.workload).accesses)
    keep = found.best.assessment.mapping.keep
    return MappedLayer(entry, found, seconds, _kept(arch, tensors, keep))


def _dataflow_data(stamps: Stamps, name: str) -> dict[str, Any]:
    """A mapping's ``stamps`` as a dataflow file's keys (stamps, tiles, places, kept
    tensors)."""
    data: dict[str, Any] = {
        "version": 1,
        "name": name,
        "space_stamp": stamps.space_stamp,
        "time_stamp": stamps.time_stamp,
        "tiles": dict(stamps.tiles),
    }
    if stamps.places:
        data["places"] = {level: dict(per) for level, per in stamps.places.items()}
    if stamps.keep:
        data["keep"] = {level: list(tensors) for level, tensors in stamps.keep.items()}
    return data


def dataflow_text(layer: MappedLayer, arch: str, path: str | Path) -> str:
    """Return the best mapping of ``layer`` as a dataflow file (YAML: stamps, tiles, places,
    kept tensors), headed by the ``tenet eval`` command that evaluates it on ``arch`` when
    written to ``path``.

    Examples
    --------
    >>> mapped = map_layers([LayerEntry("gemm", "gemm", {"M": 2, "N": 2, "K": 2})],
    ...                     "systolic-levels-8x8")
    >>> print(dataflow_text(mapped.layers[0], "systolic-levels-8x8", "best.yaml"))
    ... # doctest: +ELLIPSIS
    # The best mapping of gemm on systolic-levels-8x8 by latency: best 3 cycles, ...
    # tenet eval -w gemm -a systolic-levels-8x8 -d best.yaml -p M=2 -p N=2 -p K=2
    version: 1
    name: gemm
    space_stamp: ...
    """
    data = _dataflow_data(layer.assessment.mapping, layer.entry.label.replace("/", "-"))
    sizes = "".join(f" -p {k}={v}" for k, v in layer.entry.params.items())
    found = layer.found
    head = (
        f"# The best mapping of {layer.entry.label} on {arch} by {found.objective}: "
        f"{found.status()} ({gap_words(found.best.value, found.bound)}).\n"
        f"# tenet eval -w {layer.entry.workload} -a {arch} -d {path}{sizes}\n"
    )
    return head + str(yaml.safe_dump(data, sort_keys=False, width=1000))


def save_dataflows(mapped: Mapped, path: str | Path) -> list[Path]:
    """Write the best mapping of each entry of ``mapped`` (:func:`dataflow_text`): of one
    layer to the file ``path``, of a network into the folder ``path``, one
    ``<layer>.yaml`` per entry; return the files written."""
    target = Path(path)
    if mapped.network is None:
        files = [(target, mapped.layers[0])] if mapped.layers else []
    else:
        target.mkdir(parents=True, exist_ok=True)
        files = [(target / f"{m.entry.label.split('/')[-1]}.yaml", m) for m in mapped.layers]
    for file, layer in files:
        write_atomically(file, _writer(dataflow_text(layer, mapped.architecture, file)))
    return [file for file, _ in files]


def _writer(text: str) -> Callable[[Path], object]:
    return lambda tmp: tmp.write_text(text)


def map_report(mapped: Mapped, inputs: Mapping[str, str]) -> Report:
    """Return the HTML report of ``mapped``: each entry's figures, bound and gap (and the
    network's total), the per-entry plot, and each entry's best mapping."""
    import pandas as pd

    shown = [{k: r[k] for k in SHOWN_COLUMNS} for r in mapped.rows()]
    total = mapped.total()
    table = pd.DataFrame(shown + ([total] if total is not None else []), columns=SHOWN_COLUMNS)
    layers = table[table["layer"] != "total"]
    subject = (
        mapped.network.name
        if mapped.network is not None
        else (mapped.layers[0].entry.label if mapped.layers else "nothing")
    )
    title = f"{subject} on {mapped.architecture}: best mappings by {mapped.objective}"
    panels = [
        (column("latency"), axis_label(column("latency"))),
        ("energy", axis_label("energy", layers)),
        (column("traffic_dram"), axis_label(column("traffic_dram"))),
    ]
    figures = []
    if len(layers):
        axes = plot_layers(layers, panels=panels, title=title, by="layer")
        figures.append(("Per layer entry", axes[0].figure))
    records = [
        MappingRecord(
            f"{m.entry.label} (x{m.entry.count})",
            m.found.best.mapping.describe(),
            m.assessment.mapping.space_stamp,
            m.assessment.mapping.time_stamp,
            dict(m.assessment.mapping.tiles),
        )
        for m in mapped.layers
    ]
    heading = "Each layer entry's best mapping (figures of one occurrence), its bound and gap"
    if total is not None:
        heading += ", and the network's total (entries weighted by their count)"
    notes = [f"between layers: {edge.words}" for edge in mapped.edges]
    return Report(title, dict(inputs), [(heading, table)], figures, records, notes)  # type: ignore[arg-type]
