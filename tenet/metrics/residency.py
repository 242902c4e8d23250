"""Outputs kept on chip between layers: a layer's output that the next layer reads stays in the
level inside the outermost (the global buffer below DRAM) when both layers' tiles there leave
room for the whole tensor (``docs/fusion.md``, "Outputs kept on chip between layers").

The rule, exact on each layer's mapping: the producer's need at that level with its output
counted whole, and the consumer's with its input counted whole (and each layer's other tensors
kept on chip whole too), are at most the level's capacity
(:func:`tenet.metrics.memory.level_needs`, ``whole``). Then the tensor's fills and writebacks
at that level leave both layers' figures, with what DRAM serves for them, and every level's
accesses, time and energy are counted again (:func:`tenet.metrics.memory.kept_on_chip`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from tenet.errors import SpecError
from tenet.mapping import LoopNest, to_stamps
from tenet.metrics.assessment import assess_problem
from tenet.metrics.memory import MemoryMetrics, kept_on_chip
from tenet.model.problem import Problem
from tenet.spec import LayerInput
from tenet.vocab import TensorName

__all__ = ["LayerRun", "Edge", "Residency", "keep_outputs"]


@dataclass(frozen=True)
class LayerRun:
    """One layer entry as it runs: its name, problem, mapping (None: its dataflow's own) and
    memory figures under that mapping."""

    name: str
    problem: Problem
    mapping: LoopNest | None
    memory: MemoryMetrics


@dataclass(frozen=True)
class Edge:
    """A producer's output read by the next layer as one of its inputs, and whether it stays
    on chip: in ``level`` (None: it goes through DRAM, ``reason`` says why)."""

    producer: str
    consumer: str
    output: TensorName
    input: TensorName
    elements: int
    """The producer's output, in elements."""
    level: str | None
    reason: str

    @property
    def words(self) -> str:
        """The edge and what became of it, in words.

        Examples
        --------
        >>> Edge("fc1", "fc2", "C", "A", 24, "glb", "").words
        'fc1.C -> fc2.A (24 elements): kept on chip in glb'
        """
        head = f"{self.producer}.{self.output} -> {self.consumer}.{self.input}"
        head += f" ({self.elements:,} elements)"
        if self.level is not None:
            return f"{head}: kept on chip in {self.level}"
        return f"{head}: through DRAM ({self.reason})"


@dataclass(frozen=True)
class Residency:
    """Each layer entry's memory figures with the outputs kept on chip, the DRAM elements that
    saved (per occurrence), what it kept (``resident``: ``"A from fc1; C to fc3"``, empty when
    nothing) and the network's edges."""

    memory: tuple[MemoryMetrics, ...]
    dram_saved: tuple[int, ...]
    resident: tuple[str, ...]
    edges: tuple[Edge, ...]


def _written(run: LayerRun, source: str | None) -> TensorName:
    """The one tensor the producer's workload writes."""
    written = sorted({a.tensor for a in run.problem.accesses if a.access == "write"})
    if len(written) != 1:
        raise SpecError(
            f"layer {run.name!r} writes {', '.join(written) or 'nothing'}: a layer whose output "
            "another reads writes one tensor",
            source=source,
        )
    return written[0]


def _check_input(consumer: LayerRun, given: LayerInput, source: str | None) -> None:
    read = sorted({a.tensor for a in consumer.problem.accesses if a.access == "read"})
    if given.tensor not in read:
        raise SpecError(
            f"layer {consumer.name!r}: input.tensor {given.tensor!r} is not read by its "
            f"workload (it reads {', '.join(read)})",
            source=source,
        )


def _elements(run: LayerRun, tensor: TensorName) -> int:
    """The elements of ``tensor`` the layer touches (its footprint in the outermost level)."""
    return run.memory.record(run.memory.levels[0].level, tensor).footprint


def _need(run: LayerRun, level: str, whole: Mapping[TensorName, int]) -> tuple[int, bool]:
    """The layer's need at ``level`` with ``whole`` counted whole, and whether its tensors
    fit their shares of a split level."""
    found = assess_problem(run.problem, run.mapping, figures=["needs"], levels=[level], whole=whole)
    return found.needs.needs[level], found.needs.fits


def _keep(run: LayerRun) -> dict[str, frozenset[str]] | None:
    if run.mapping is None:
        return None
    return {level: frozenset(t) for level, t in to_stamps(run.mapping).keep.items()}


def _refusal(run: LayerRun, tensor: TensorName) -> str | None:
    """Why the level inside the outermost cannot keep ``tensor`` of ``run`` (None: it may)."""
    levels = run.memory.levels
    if len(levels) < 2:
        return "no level inside the outermost"
    level = run.problem.architecture.levels[1]
    if level.per_pe:
        return f"{level.name} is per PE"
    if not any(r.level == level.name and r.tensor == tensor for r in run.memory.records):
        return f"{run.name}'s mapping keeps no {tensor} in {level.name}"
    return None


def _fits(run: LayerRun, whole: Mapping[TensorName, int]) -> tuple[int, str | None]:
    """The layer's need at the level inside the outermost with ``whole`` whole, and why it
    does not fit (None: it fits)."""
    level = run.problem.architecture.levels[1]
    need, fits = _need(run, level.name, whole)
    if level.capacity is not None and need > level.capacity and not level.split:
        return need, f"{run.name} needs {need:,} of {level.capacity:,} elements of {level.name}"
    if not fits:
        return need, f"{run.name}: a tensor overflows its share of {level.name}"
    return need, None


def _edge(
    runs: Sequence[LayerRun],
    k: int,
    given: LayerInput,
    whole: list[dict[TensorName, int]],
    needs: dict[int, int],
    on: bool,
    source: str | None,
) -> Edge:
    """Decide the edge into layer ``k``; when kept, record both layers' whole tensors and
    needs."""
    producer, consumer = runs[k - 1], runs[k]
    output = _written(producer, source)
    _check_input(consumer, given, source)
    size, room = _elements(producer, output), _elements(consumer, given.tensor)
    if size > room:
        raise SpecError(
            f"layer {consumer.name!r}: input {given.tensor} holds {room:,} elements, fewer than "
            f"the {size:,} of {producer.name}'s output {output}",
            source=source,
        )
    edge = Edge(producer.name, consumer.name, output, given.tensor, size, None, "")
    if not on:
        return replace(edge, reason="residency off")
    reason = _refusal(producer, output) or _refusal(consumer, given.tensor)
    if reason is not None:
        return replace(edge, reason=reason)
    before = {**whole[k - 1], output: size}
    after = {**whole[k], given.tensor: room}
    need_before, reason = _fits(producer, before)
    need_after, refused = _fits(consumer, after)
    if reason or refused:
        return replace(edge, reason=reason or refused or "")
    whole[k - 1], whole[k] = before, after
    needs[k - 1], needs[k] = need_before, need_after
    level = producer.problem.architecture.levels[1].name
    return replace(edge, level=level)


def keep_outputs(
    runs: Sequence[LayerRun],
    inputs: Sequence[LayerInput | None],
    *,
    on: bool = True,
    source: str | None = None,
) -> Residency:
    """Keep on chip each output that the next layer entry reads (``inputs[k]``: where entry
    ``k``'s input comes from, the entry before it; None: from DRAM) when both layers leave
    room for it, in network order (a layer whose input stays keeps it whole while it decides
    its output); ``on`` False checks the edges and keeps nothing (``--no-residency``).

    Raises
    ------
    SpecError
        The producer writes several tensors, the consumer does not read the tensor named, or
        the producer's output has more elements than the consumer's input (``source``: the
        network's file).

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> from tenet.metrics.memory import evaluate_memory
    >>> def run(name, sizes):
    ...     p = load_problem("gemm", "systolic-levels-8x8", "gemm-os-systolic", params=sizes)
    ...     return LayerRun(name, p, None, evaluate_memory(p))
    >>> runs = [run("fc1", {"M": 4, "N": 6, "K": 8}), run("fc2", {"M": 4, "N": 5, "K": 6})]
    >>> kept = keep_outputs(runs, [None, LayerInput(**{"from": "fc1", "tensor": "A"})])
    >>> kept.dram_saved, kept.resident  # C of fc1 (4 x 6) is A of fc2
    ((24, 24), ('C to fc2', 'A from fc1'))
    """
    whole: list[dict[TensorName, int]] = [{} for _ in runs]
    needs: dict[int, int] = {}
    edges = []
    words: list[list[str]] = [[] for _ in runs]
    for k, given in enumerate(inputs):
        if given is None:
            continue
        edge = _edge(runs, k, given, whole, needs, on, source)
        edges.append(edge)
        if edge.level is not None:
            words[k].append(f"{edge.input} from {edge.producer}")
            words[k - 1].append(f"{edge.output} to {edge.consumer}")
    memory = tuple(
        kept_on_chip(run.problem, run.memory, list(whole[k]), needs[k], _keep(run))
        if whole[k]
        else run.memory
        for k, run in enumerate(runs)
    )
    saved = tuple(
        run.memory.traffic_dram - after.traffic_dram
        for run, after in zip(runs, memory, strict=True)
    )
    return Residency(memory, saved, tuple("; ".join(w) for w in words), tuple(edges))
