"""The peers' own mapping searches run from tenet: ZigZag's (LOMA temporal mappings over the
spatial mappings it generates) and AccelForge's (the FFM mapper), each in the peers' Python,
on the input files tenet's writers give for a workload and an architecture without a mapping.
The best mapping comes back as the peer's own mapping file(s), read by tenet's readers
(:func:`tenet.peers.zigzag.read_zigzag`, :func:`tenet.peers.accelforge.read_accelforge`), so
tenet evaluates exactly what the peer found (:func:`evaluate_best`)."""

from __future__ import annotations

import resource
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tenet.api import load_problem
from tenet.errors import TenetError
from tenet.metrics.assessment import assess_problem
from tenet.peers.accelforge import ACCELFORGE_UNITS, read_accelforge, write_accelforge
from tenet.peers.compare import PeerError, _run, need_python
from tenet.peers.files import dump
from tenet.peers.specs import Imported
from tenet.peers.zigzag import ZIGZAG_UNITS, read_zigzag, write_zigzag, zigzag_operands
from tenet.spec import Specs
from tenet.spec.architecture import ArchitectureSpec
from tenet.spec.dataflow import DataflowSpec
from tenet.spec.workload import WorkloadSpec

__all__ = [
    "PeerObjective",
    "PeerSearch",
    "PeerName",
    "search_peer",
    "zigzag_best",
    "accelforge_best",
    "evaluate_best",
]

PeerObjective = Literal["latency", "energy"]
PeerName = Literal["zigzag", "accelforge"]

ZIGZAG_FILES = ("workload.yaml", "accelerator.yaml", "mapping.yaml")
"""ZigZag's files of a search, in the order :func:`read_zigzag` takes them."""

ACCELFORGE_FILE = "accelforge.yaml"


@dataclass(frozen=True)
class PeerSearch:
    """What a peer's own search found.

    ``evaluations`` counts the mappings the peer's search evaluated, as the peer counts them:
    for ZigZag the cost-model evaluations (one per spatial mapping generated and temporal
    mapping LOMA enumerated for it); for AccelForge the partial mappings its FFM mapper
    evaluated (``n_evaluated_pmappings``, before joining them). ``cpu_seconds`` is the CPU
    time of the peer's process, its children included. ``latency`` (cycles) and ``energy``
    (pJ) are the peer's own figures of its best; ``files`` its mapping as the peer's own
    files (name -> text: ZigZag's workload, accelerator and mapping; AccelForge's spec with
    its ``mapping``), ``imported`` those files read by tenet's reader. With no result (time
    budget, error) these are empty and ``reason`` says why.
    """

    peer: str
    objective: PeerObjective
    cpu_seconds: float
    evaluations: int | None
    latency: float | None
    energy: float | None
    files: Mapping[str, str] = field(default_factory=dict)
    imported: Imported | None = None
    reason: str = ""
    tensors: Mapping[str, str] = field(default_factory=dict)
    """The workload's name of each tensor the peer's files name otherwise (ZigZag: O, I, W)."""

    def dataflow(self) -> dict[str, Any]:
        """Return the imported dataflow document (its places and kept tensors) with the
        workload's tensor names."""
        if self.imported is None:
            raise PeerError(f"{self.peer} gave no mapping: {self.reason}")
        flow = self.imported.specs.require_dataflow().document()
        if "places" in flow:
            flow["places"] = {
                level: {self.tensors.get(t, t): stamp for t, stamp in per.items()}
                for level, per in flow["places"].items()
            }
        if "keep" in flow:
            flow["keep"] = {
                level: [self.tensors.get(t, t) for t in kept]
                for level, kept in flow["keep"].items()
            }
        return flow

    def write(self, directory: str | Path) -> list[Path]:
        """Write :attr:`files` into ``directory``; return their paths."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        paths = []
        for name, text in self.files.items():
            path = out / name
            path.write_text(text)
            paths.append(path)
        return paths


_ZIGZAG_SEARCH = r"""
import json, logging, sys, tempfile
logging.disable(logging.CRITICAL)
from zigzag.api import get_hardware_performance_zigzag
from zigzag.stages.evaluation.cost_model_evaluation import CostModelStage
evaluations = 0
run = CostModelStage.run
def counted(self):
    global evaluations
    evaluations += 1
    yield from run(self)
CostModelStage.run = counted
with tempfile.TemporaryDirectory() as out:
    _, _, cmes = get_hardware_performance_zigzag(
        sys.argv[1], sys.argv[2], sys.argv[3], opt=sys.argv[4],
        nb_spatial_mappings_generated=int(sys.argv[5]), dump_folder=out,
        loma_show_progress_bar=False)
cme = cmes[0][1][0][0]
links = {str(k): str(v) for k, v in cme.layer.memory_operand_links.data.items()}
spatial = {str(axis): [[str(d), int(s)] for d, s in unrolled.items()]
           for axis, unrolled in cme.layer.spatial_mapping.items()}
per_level = cme.temporal_mapping.mapping_dic_origin
first = next(iter(per_level))
temporal = [[str(d), int(s)] for level in per_level[first] for d, s in level]
print(json.dumps({"evaluations": evaluations, "spatial": spatial, "temporal": temporal,
                  "links": links,
                  "latency": float(cme.latency_total2), "energy": float(cme.energy_total)}))
"""

_ACCELFORGE_PRELUDE = r"""
import json, sys
import accelforge as af
from accelforge.frontend.mapper.metrics import Metrics
from accelforge.mapper.FFM.main import join_pmappings, make_pmappings
from accelforge.util.parallel import set_n_parallel_jobs
set_n_parallel_jobs(1)
spec = af.Spec.from_yaml(sys.argv[1])
objective = sys.argv[2]
metric = {"latency": Metrics.LATENCY, "energy": Metrics.ENERGY}[objective]
spec.mapper.metrics = metric
pmappings = make_pmappings(spec, print_progress=False)
evaluations = int(pmappings.n_evaluated_pmappings())
def entry(node):
    kind = type(node).__name__
    out = {"kind": kind}
    if kind == "Storage":
        out.update(tensors=[str(t) for t in node.tensors], component=str(node.component))
    elif kind in ("Temporal", "Spatial"):
        out.update(rank_variable=str(node.rank_variable), tile_shape=int(node.tile_shape))
        if node.initial_tile_shape is not None:
            out["initial_tile_shape"] = int(node.initial_tile_shape)
        if kind == "Spatial":
            out.update(name=str(node.name), component=str(node.component))
    elif kind == "Compute":
        out.update(einsum=str(node.einsum), component=str(node.component))
    elif hasattr(node, "nodes"):
        out["nodes"] = [entry(n) for n in node.nodes if type(n).__name__ != "Reservation"]
    return out
def best(require_all):
    mappings = join_pmappings(pmappings, metrics=metric, require_all_einsums=require_all,
                              print_progress=False)
    values = mappings.data["Total<SEP>" + objective].astype(float).to_numpy()
    at = int(values.argmin())
    mapping = mappings.data.iloc[at]["Total<SEP>mapping"]()
    nodes = [entry(n) for n in mapping.nodes if type(n).__name__ != "Reservation"]
    return nodes, float(values[at])
"""
"""What both AccelForge scripts run first: its mapper's partial mappings of the spec in
``argv[1]`` by the objective in ``argv[2]``; ``entry``, a mapping node as JSON (nested nodes
inside; reservations left out); ``best(require_all)``, the nodes of the best joined mapping
(every Einsum mapped, or not necessarily) and its value."""

_ACCELFORGE_SEARCH = (
    _ACCELFORGE_PRELUDE
    + r"""
nodes, _ = best(False)
text = open(sys.argv[1]).read() + "\nmapping:\n  nodes:\n" + "".join(
    "  - !" + n["kind"] + " " + json.dumps({k: v for k, v in n.items() if k != "kind"}) + "\n"
    for n in nodes)
with open(sys.argv[3], "w") as best:
    best.write(text)
figures = af.Spec.from_yaml(sys.argv[3]).evaluate_mapping().data.iloc[0]
energy = 0.0
for column in figures.index:
    parts = column.split("<SEP>")
    if len(parts) >= 4 and parts[1] == "energy":
        energy += float(figures[column])
print(json.dumps({"evaluations": evaluations, "nodes": nodes,
                  "latency": float(figures["Total<SEP>latency"]), "energy": energy}))
"""
)


def _cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _search(
    python: str | None,
    peer: str,
    objective: PeerObjective,
    script: str,
    args: list[str],
    budget: float | None,
) -> tuple[float, Any, str]:
    """Run a search script; return the CPU seconds of its process (children included), its
    JSON answer (None with no result) and the reason."""
    if objective not in ("latency", "energy"):
        raise ValueError(f"objective: expected 'latency' or 'energy', not {objective!r}")
    python = need_python(python, peer)
    before = _cpu_children()
    try:
        answer, reason = _run(python, script, args, peer, budget), ""
    except PeerError as exc:
        answer, reason = None, str(exc)
    return _cpu_children() - before, answer, reason


def zigzag_best(answer: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Return ZigZag's mapping document of the best of a search answer: its spatial mapping,
    its temporal ordering (innermost loop first, every trip given) and the operand links."""
    return [
        {
            "name": "default",
            "spatial_mapping": {
                axis: [f"{d}, {s}" for d, s in unrolled]
                for axis, unrolled in answer["spatial"].items()
            },
            "temporal_ordering": [[d, s] for d, s in answer["temporal"]],
            "memory_operand_links": dict(answer["links"]),
        }
    ]


def _answered(
    peer: str,
    objective: PeerObjective,
    cpu: float,
    answer: Mapping[str, Any],
    files: Mapping[str, str],
    read: Callable[..., Imported],
    paths: Sequence[Path],
    tensors: Mapping[str, str] | None = None,
) -> PeerSearch:
    """The search of ``peer`` that gave ``answer`` (its JSON) in ``cpu`` seconds: the peer's
    figures of its best, and the best's ``files`` (written at ``paths``) read back by
    ``read``."""
    try:
        imported, refused = read(*paths), ""
    except TenetError as exc:
        imported, refused = None, f"tenet's reader refuses the best: {exc}"
    return PeerSearch(
        peer,
        objective,
        cpu,
        int(answer["evaluations"]),
        float(answer["latency"]),
        float(answer["energy"]),
        files,
        imported,
        refused,
        tensors or {},
    )


def accelforge_best(spec: Mapping[str, Any], nodes: list[dict[str, Any]]) -> dict[str, Any]:
    """Return AccelForge's spec document ``spec`` with the mapping ``nodes`` of a search's
    best (storage, loop and compute nodes, outermost first)."""
    return {**spec, "mapping": {"nodes": nodes}}


@dataclass(frozen=True)
class _PeerRun:
    """One peer search: the peers' ``python``, the ``problem`` (no dataflow), the
    ``objective``, the peer's CPU ``time_budget`` (seconds) and the ``folder`` its files go in."""

    python: str | None
    problem: Specs
    objective: PeerObjective
    time_budget: float | None
    folder: Path

    def search(self, peer: str, script: str, args: list[str]) -> tuple[float, Any, str]:
        """Run ``peer``'s search ``script``: its CPU seconds, JSON answer and reason."""
        return _search(self.python, peer, self.objective, script, args, self.time_budget)

    def failed(self, peer: str, cpu: float, reason: str) -> PeerSearch:
        """The search of ``peer`` that gave no result after ``cpu`` seconds, and why."""
        return PeerSearch(peer, self.objective, cpu, None, None, None, reason=reason)


def _search_zigzag(run: _PeerRun, spatial_mappings: int) -> PeerSearch:
    """ZigZag's search (``spatial_mappings`` spatial mappings generated, LOMA's temporal
    mappings for each) on the files :func:`write_zigzag` gives for the run's problem."""
    documents = write_zigzag(run.problem)
    paths = [run.folder / name for name in ZIGZAG_FILES]
    texts = {name: ZIGZAG_UNITS + dump(documents[Path(name).stem]) for name in ZIGZAG_FILES}
    for path in paths:
        path.write_text(texts[path.name])
    args = [*map(str, paths), run.objective, str(spatial_mappings)]
    cpu, answer, reason = run.search("zigzag", _ZIGZAG_SEARCH, args)
    if answer is None:
        return run.failed("zigzag", cpu, reason)
    texts["mapping.yaml"] = ZIGZAG_UNITS + dump(zigzag_best(answer))
    paths[2].write_text(texts["mapping.yaml"])
    tensors = {operand: t for t, operand in zigzag_operands(run.problem.workload).items()}
    return _answered("zigzag", run.objective, cpu, answer, texts, read_zigzag, paths, tensors)


def _search_accelforge(run: _PeerRun) -> PeerSearch:
    """AccelForge's FFM mapper (``Spec.map_workload_to_arch``'s steps, in one process) on the
    spec :func:`write_accelforge` gives for the run's problem."""
    document = write_accelforge(run.problem)
    spec = run.folder / ACCELFORGE_FILE
    spec.write_text(ACCELFORGE_UNITS + dump(document))
    args = [str(spec), run.objective, str(run.folder / "best.yaml")]
    cpu, answer, reason = run.search("accelforge", _ACCELFORGE_SEARCH, args)
    if answer is None:
        return run.failed("accelforge", cpu, reason)
    text = ACCELFORGE_UNITS + dump(accelforge_best(document, answer["nodes"]))
    spec.write_text(text)
    files = {ACCELFORGE_FILE: text}
    return _answered("accelforge", run.objective, cpu, answer, files, read_accelforge, [spec])


def search_peer(
    peer: PeerName,
    python: str | None,
    workload: WorkloadSpec,
    architecture: ArchitectureSpec,
    params: Mapping[str, int] | None = None,
    *,
    objective: PeerObjective = "latency",
    time_budget: float | None = None,
    spatial_mappings: int = 3,
) -> PeerSearch:
    """Run ``peer``'s own search on the files tenet's writer gives for ``workload`` on
    ``architecture`` without a dataflow, in ``python`` (the peers' environment), stopped after
    ``time_budget`` CPU seconds; return its best by ``objective`` read back by tenet's reader.
    ZigZag generates ``spatial_mappings`` spatial mappings and LOMA's temporal mappings for
    each; AccelForge runs its FFM mapper.

    Raises
    ------
    PeerError
        ``python`` is None (the peer is not installed).
    ValueError
        ``peer`` is not ``"zigzag"`` or ``"accelforge"``, or ``objective`` is not
        ``"latency"`` or ``"energy"``.
    """
    if peer not in ("zigzag", "accelforge"):
        raise ValueError(f"peer: expected 'zigzag' or 'accelforge', not {peer!r}")
    problem = Specs(workload, architecture, None, dict(params or {})).checked()
    with tempfile.TemporaryDirectory() as tmp:
        run = _PeerRun(python, problem, objective, time_budget, Path(tmp))
        if peer == "zigzag":
            return _search_zigzag(run, spatial_mappings)
        return _search_accelforge(run)


def evaluate_best(
    search: PeerSearch,
    workload: WorkloadSpec,
    architecture: ArchitectureSpec,
    params: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """Return tenet's exact figures of a search's imported best on ``workload`` and
    ``architecture`` (the specs the peer's files were written from): ``latency_cycles``,
    ``energy`` (in ``energy_unit``), ``traffic_dram_elements`` (elements moved between the
    outermost level and the levels it feeds) and ``fits``. The imported dataflow's level
    names are the architecture's; the tensors it keeps per level are its dataflow's
    ``keep``.

    Raises
    ------
    PeerError
        The search gave no mapping, or its levels are not the architecture's.
    """
    flow = search.dataflow()
    names = {level.name for level in architecture.levels}
    unknown = sorted((set(flow.get("tiles", {})) | set(flow.get("keep", {}))) - names)
    if unknown:
        raise PeerError(
            f"the imported mapping's levels {', '.join(unknown)} are not "
            f"{architecture.name}'s ({', '.join(sorted(names))})"
        )
    problem = load_problem(
        workload, architecture, DataflowSpec.from_mapping(flow), params=dict(params or {})
    )
    metrics = assess_problem(problem, figures=["memory"]).memory
    return {
        "latency_cycles": metrics.latency,
        "energy": metrics.energy,
        "energy_unit": architecture.energy.unit,
        "traffic_dram_elements": metrics.traffic_dram,
        "fits": metrics.fits,
    }
