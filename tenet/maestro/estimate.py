"""MAESTRO-style data-centric estimates of one layer or a whole network.

``estimate(layer, hardware)`` walks the cluster levels of a data-centric dataflow: at each
level every iteration case (:mod:`tenet.maestro.levels`) is analysed once and weighted by its
occurrences; its ingress and egress volumes come from :mod:`tenet.maestro.reuse`, its compute
delay from the sub-cluster's own analysis (innermost level: the partial sums per PE), and its
step delay is max(ingress, compute, egress) (ingress + compute for the all-Init case), where a
transfer of V elements takes ``latency + ceil(V / bandwidth) - 1`` cycles. The figures carry
MAESTRO's names (``num_macs``, ``runtime``, ``input_l2_buffer_read``, ...). Where MAESTRO's
own arithmetic is defective (a MAC count that is not the loop-bound product, an output L2 read
count that ignores the stride, a division by a zero compute delay), the figure is computed right
and the case is listed in ``edge_cases``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from math import ceil, prod
from typing import Any

from tenet.errors import SpecError
from tenet.maestro.directives import Hardware, Layer, Network
from tenet.maestro.levels import (
    EDGE,
    INIT,
    OUTPUT_OF,
    OVERLAP,
    Level,
    build_levels,
    cdiv,
    full_dims,
    iteration_cases,
    iteration_states,
)
from tenet.maestro.reuse import (
    critical_partial_sums,
    egress,
    ingress,
    mapped_volume,
    mapping_size,
    sub_cluster_dims,
)
from tenet.vocab import ENERGY_L1, ENERGY_L2

__all__ = [
    "L2_ENERGY",
    "L1_ENERGY",
    "TENSORS",
    "MaestroEstimate",
    "estimate",
    "estimate_network",
    "loop_bound_macs",
]

L2_ENERGY = ENERGY_L2
"""Energy of one L2 access, in MACs (MAESTRO's ``l2_energy_multiplier``)."""
L1_ENERGY = ENERGY_L1
"""Energy of one L1 access, in MACs (MAESTRO's ``l1_energy_multiplier``)."""
TENSORS = ("input", "filter", "output")


@dataclass(frozen=True)
class MaestroEstimate:
    """MAESTRO's figures for one layer, under MAESTRO's names.

    Counts are in elements (accesses), delays and runtime in cycles, bandwidths in elements per
    cycle, energy in units of one MAC's energy. ``l2`` is the shared buffer above the top
    cluster level, ``l1`` the PEs' buffers; ``*_l1_buffer_read`` is one read per MAC.
    ``edge_cases`` lists where MAESTRO's own arithmetic is defective and what was done instead;
    ``warnings`` the hardware limits the estimate exceeds (MAESTRO only warns about them).
    """

    network: str
    layer: str
    num_macs: int
    runtime: int
    throughput: float
    average_number_of_utilized_pes: float
    total_energy_consumption: float
    input_l2_buffer_read: int
    input_l2_buffer_write: int
    input_l1_buffer_read: int
    input_l1_buffer_write: int
    input_data_reuse_factor: float
    filter_l2_buffer_read: int
    filter_l2_buffer_write: int
    filter_l1_buffer_read: int
    filter_l1_buffer_write: int
    filter_data_reuse_factor: float
    output_l2_buffer_read: int
    output_l2_buffer_write: int
    output_l1_buffer_read: int
    output_l1_buffer_write: int
    output_data_reuse_factor: float
    overall_reuse_factor: float
    peak_bandwidth_requirement: int
    avg_bandwidth_requirement: float
    offchip_bandwidth_requirement: int
    input_l2_size_requirement: int
    filter_l2_size_requirement: int
    output_l2_size_requirement: int
    input_l1_size_requirement: int
    filter_l1_size_requirement: int
    output_l1_size_requirement: int
    total_l2_buffer_requirement: int
    total_l1_buffer_requirement: int
    ingress_delay_min: int
    ingress_delay_max: int
    ingress_delay_avg: int
    egress_delay_min: int
    egress_delay_max: int
    egress_delay_avg: int
    computation_delay_min: int
    computation_delay_max: int
    computation_delay_avg: int
    arithmetic_intensity: float
    performance_per_mac_energy: float
    edge_cases: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Return the figures as a JSON-ready dict (``network``, ``layer``, then figures)."""
        out = asdict(self)
        out["edge_cases"] = list(self.edge_cases)
        out["warnings"] = list(self.warnings)
        return out


@dataclass
class _LevelResult:
    """What one analysis of a cluster level accumulates (MAESTRO's CostAnalysisResults)."""

    runtime: int = 0
    macs: int = 0
    active: float = 0.0
    l2_read: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TENSORS, 0))
    l2_write: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TENSORS, 0))
    l1_read: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TENSORS, 0))
    l1_write: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TENSORS, 0))
    l2_size: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TENSORS, 0))
    l1_size: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TENSORS, 0))
    peak_bw: int = 0
    avg_bw: float = 0.0
    offchip_bw: int = 0
    delays: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    intensity: float = 0.0


def _transfer(volume: int, hardware: Hardware) -> int:
    """Cycles to move ``volume`` elements over the NoC (one hop of ``noc_latency``)."""
    return (
        hardware.noc_latency + cdiv(volume + hardware.noc_bandwidth - 1, hardware.noc_bandwidth) - 1
    )


def _ratio(a: float, b: float) -> float:
    if b:
        return a / b
    return float("nan") if a == 0 else float("inf")


class _Analysis:
    """One layer's recursive cost analysis over its cluster levels."""

    def __init__(self, layer: Layer, hardware: Hardware):
        self.layer = layer
        self.hardware = hardware
        self.levels = build_levels(layer, hardware)
        self.tensors = layer.tensors
        self.memo: dict[tuple[int, tuple[int, ...]], _LevelResult] = {}
        self.innermost: _LevelResult | None = None
        self.notes: dict[str, None] = {}
        self.partial: dict[str, None] = {}

    def note(self, text: str) -> None:
        self.notes.setdefault(text)

    def _first_case_buffers(
        self, res: _LevelResult, lv: Level, dims: Mapping[str, int], st: Mapping[str, Any]
    ) -> None:
        for name in ("input", "filter"):
            vars_ = self.tensors[name]
            res.l2_size[name] += 2 * ingress(lv, vars_, st)
            res.l2_write[name] = prod(dims[d] for d in vars_)
            res.l1_size[name] += 2 * mapped_volume(lv, vars_)
        out = self.tensors["output"]
        res.l2_size["output"] = 2 * egress(lv, out, st)
        res.l2_read["output"] = prod(
            dims[d] - dims[OVERLAP[d]] + 1 if lv.overlapped and d in OVERLAP else dims[d]
            for d in out
        )
        res.l1_size["output"] = 2 * mapped_volume(lv, out)

    def _sub_clusters(
        self, li: int, lv: Level, st: Mapping[str, Any]
    ) -> list[tuple[_LevelResult, int]]:
        state = st[lv.spatial.dim]
        if not state.is_edge:
            return [(self.analyze(li + 1, sub_cluster_dims(lv, st, False)), lv.units)]
        if not state.edge_edge:
            return [(self.analyze(li + 1, sub_cluster_dims(lv, st, False)), lv.edge_units)]
        subs = [(self.analyze(li + 1, sub_cluster_dims(lv, st, True)), 1)]
        if lv.edge_units > 1:
            subs.append((self.analyze(li + 1, sub_cluster_dims(lv, st, False)), lv.edge_units - 1))
        return subs

    def analyze(self, li: int, dims: Mapping[str, int]) -> _LevelResult:
        """Analyse cluster level ``li`` on a tile of sizes ``dims`` (memoised)."""
        lv = self.levels[li]
        key = (li, tuple(dims[w.dim] for w in lv.windows))
        if key in self.memo:
            return self.memo[key]
        hw = self.hardware
        innermost = li == len(self.levels) - 1
        out_vars = self.tensors["output"]
        res = _LevelResult()
        states = iteration_states(lv, dims)
        for w, options in zip(lv.windows, states, strict=True):
            if any(s.pos == EDGE or s.init_edge for s in options):
                kind = "spread over" if w.spatial else "walked by"
                self.partial.setdefault(
                    f"{w.dim} = {dims[w.dim]} {kind} windows of {w.size} (step {w.offset}) "
                    f"at level {li}"
                )
        first_case = True
        total = avg_bw = 0
        active_sum = 0.0
        sums = {"ingress": 0, "egress": 0, "compute": 0}
        lows: dict[str, int] = {}
        highs = dict.fromkeys(sums, 0)
        for picked, occ in iteration_cases(states):
            st = {w.dim: s for w, s in zip(lv.windows, picked, strict=True)}
            if first_case:
                self._first_case_buffers(res, lv, dims, st)
            out_volume = egress(lv, out_vars, st)
            macs = mapping_size(lv, out_vars, st)
            res.l2_write["output"] += occ * out_volume
            res.l1_write["output"] += occ * macs
            res.l1_read["output"] += occ * macs
            partial = critical_partial_sums(lv, out_vars, st)
            if partial <= 0:
                self.note(
                    f"cluster level {li}: a case has {partial} partial sums per unit (an "
                    "output window is empty); MAESTRO skips it"
                )
                continue
            first_case = False
            in_volume = 0
            for name in ("input", "filter"):
                volume = ingress(lv, self.tensors[name], st)
                in_volume += volume
                res.l2_read[name] += occ * volume
                res.l1_write[name] = res.l2_read[name]
                res.l1_read[name] += occ * macs
            res.intensity = _ratio(macs, in_volume)
            sp_state = st[lv.spatial.dim]
            active = lv.edge_units if sp_state.is_edge else lv.units
            if innermost:
                compute = ceil(partial / hw.simd_lanes)
                unit_active = float(active)
            else:
                subs = self._sub_clusters(li, lv, st)
                compute = max(r.runtime for r, _ in subs)
                unit_active = sum(r.active * n for r, n in subs) or float(active)
            delay_in, delay_out = _transfer(in_volume, hw), _transfer(out_volume, hw)
            if all(s.pos == INIT for s in st.values()):
                step = compute + delay_in
            else:
                step = max(delay_out, compute, delay_in)
            divisor = max(compute, 1)
            if li == 0:
                if compute == 0:
                    self.note(
                        "a top-level step has compute delay 0 (its sub-clusters skipped every "
                        "case); MAESTRO divides by it and crashes (SIGFPE), the estimate uses 1"
                    )
                need_in = res.l2_size["input"] + res.l2_size["filter"]
                need_out = res.l2_size["output"]
                bw = hw.offchip_bandwidth
                step = max(cdiv(need_in, bw) // 2, step, cdiv(need_out, bw) // 2)
                res.offchip_bw = max(res.offchip_bw, cdiv(need_out, divisor))
                res.offchip_bw = max(res.offchip_bw, cdiv(need_in, divisor)) // 2
            res.runtime += occ * step
            res.macs += occ * macs
            active_sum += unit_active * occ
            busiest = max(in_volume, out_volume)
            res.peak_bw = max(res.peak_bw, cdiv(busiest, divisor))
            avg_bw += cdiv(occ * busiest, divisor)
            for kind, value in (("ingress", delay_in), ("egress", delay_out), ("compute", divisor)):
                sums[kind] += occ * value
                lows[kind] = min(lows.get(kind, value), value)
                highs[kind] = max(highs[kind], value)
            total += occ
        res.active = active_sum / total if total else 0.0
        res.avg_bw = avg_bw / total if total else float("nan")
        res.delays = {
            k: (lows.get(k, 0), highs[k], cdiv(sums[k], total) if total else 0) for k in sums
        }
        if innermost and self.innermost is None:
            self.innermost = res
        self.memo[key] = res
        return res


def loop_bound_macs(layer: Layer) -> int:
    """Return the layer's MACs from its loop bounds (output rows/columns after the stride).

    Examples
    --------
    >>> from tenet.maestro.directives import Layer
    >>> loop_bound_macs(Layer(name="c", type="CONV", directives=(), strides={"Y": 2, "X": 2},
    ...     dims={"K": 2, "C": 1, "R": 3, "S": 3, "Y": 7, "X": 7}))
    162
    """
    dims = full_dims(layer)
    if layer.type == "GEMM":
        return prod(dims.values())
    for row, out in OUTPUT_OF.items():
        dims[out] = (dims[row] - dims[OVERLAP[row]]) // layer.strides.get(row, 1) + 1
    return prod(v for d, v in dims.items() if d not in OUTPUT_OF)


def _output_size(layer: Layer) -> int:
    dims = full_dims(layer)
    for row in OUTPUT_OF:
        if row in dims:
            dims[row] = (dims[row] - dims[OVERLAP[row]]) // layer.strides.get(row, 1) + 1
    return prod(dims[d] for d in layer.tensors["output"])


def estimate(layer: Layer, hardware: Hardware, network: str = "") -> MaestroEstimate:
    """Estimate ``layer`` on ``hardware`` with MAESTRO's data-centric model.

    Raises
    ------
    SpecError
        When MAESTRO's model cannot express the layer (a level without a SpatialMap, a partial
        TemporalMap on R or S, more PEs needed than the hardware has, ...).

    Examples
    --------
    >>> from tenet.maestro.reader import parse_mapping
    >>> net = parse_mapping("Network n { Layer g { Type: GEMM Dimensions { M 8 N 8 K 8 }"
    ...     " Dataflow { SpatialMap(1,1) M; TemporalMap(1,1) N; TemporalMap(8,8) K; } } }")
    >>> e = estimate(net.layers[0], Hardware(num_pes=8, noc_latency=0), "n")
    >>> e.num_macs, e.runtime, e.filter_l2_buffer_read
    (512, 64, 64)
    """
    analysis = _Analysis(layer, hardware)
    top = analysis.analyze(0, full_dims(layer))
    inner = analysis.innermost or top
    notes = list(analysis.notes)
    if analysis.partial:
        notes.insert(
            0,
            "partial tiles at edges (MAESTRO's edge-case arithmetic is approximate): "
            + "; ".join(analysis.partial),
        )
    counts = {
        name: {
            "l2_read": top.l2_read[name],
            "l2_write": top.l2_write[name],
            "l1_read": top.l1_read[name],
            "l1_write": top.l1_write[name],
        }
        for name in TENSORS
    }
    macs = loop_bound_macs(layer)
    if top.macs != macs:
        notes.append(
            f"num_macs: MAESTRO's case analysis counts {top.macs} MACs, the loop bounds give "
            f"{macs}; num_macs, the per-MAC L1 reads, throughput and energy use {macs}"
        )
        for name in TENSORS:
            counts[name]["l1_read"] = macs
        counts["output"]["l1_write"] = macs
    if any(s != 1 for s in layer.strides.values()):
        size = _output_size(layer)
        if size != counts["output"]["l2_read"]:
            notes.append(
                f"output_l2_buffer_read: MAESTRO counts {counts['output']['l2_read']} output "
                f"elements ignoring the stride; the strided output has {size}"
            )
            counts["output"]["l2_read"] = size
    l2 = sum(c["l2_read"] + c["l2_write"] for c in counts.values())
    l1 = sum(c["l1_read"] + c["l1_write"] for c in counts.values())
    energy = L2_ENERGY * l2 + L1_ENERGY * l1 + macs
    throughput = _ratio(macs, top.runtime)
    l2_total = sum(top.l2_size.values())
    l1_total = sum(inner.l1_size.values())
    warnings = [
        f"{what} {need} exceeds the hardware's {have}"
        for what, need, have in (
            ("L2 requirement", l2_total, hardware.l2_size),
            ("L1 requirement", l1_total, hardware.l1_size),
            ("peak NoC bandwidth requirement", top.peak_bw, hardware.noc_bandwidth),
            ("off-chip bandwidth requirement", top.offchip_bw, hardware.offchip_bandwidth),
        )
        if need > have
    ]
    figures: dict[str, Any] = {}
    for name in TENSORS:
        c = counts[name]
        figures.update(
            {
                f"{name}_l2_buffer_read": c["l2_read"],
                f"{name}_l2_buffer_write": c["l2_write"],
                f"{name}_l1_buffer_read": c["l1_read"],
                f"{name}_l1_buffer_write": c["l1_write"],
                f"{name}_data_reuse_factor": _ratio(c["l1_read"], c["l1_write"]),
                f"{name}_l2_size_requirement": top.l2_size[name],
                f"{name}_l1_size_requirement": inner.l1_size[name],
            }
        )
    for kind, prefix in (("ingress", "ingress"), ("egress", "egress"), ("compute", "computation")):
        low, high, avg = top.delays[kind]
        figures.update(
            {f"{prefix}_delay_min": low, f"{prefix}_delay_max": high, f"{prefix}_delay_avg": avg}
        )
    return MaestroEstimate(
        network=network,
        layer=layer.name,
        num_macs=macs,
        runtime=top.runtime,
        throughput=throughput,
        average_number_of_utilized_pes=top.active,
        total_energy_consumption=energy,
        overall_reuse_factor=_ratio(
            sum(c["l1_read"] for c in counts.values()), sum(c["l1_write"] for c in counts.values())
        ),
        peak_bandwidth_requirement=top.peak_bw,
        avg_bandwidth_requirement=top.avg_bw,
        offchip_bandwidth_requirement=top.offchip_bw,
        total_l2_buffer_requirement=l2_total,
        total_l1_buffer_requirement=l1_total,
        arithmetic_intensity=top.intensity,
        performance_per_mac_energy=_ratio(throughput, energy),
        edge_cases=tuple(notes),
        warnings=tuple(warnings),
        **figures,
    )


def estimate_network(
    network: Network, hardware: Hardware, layers: Iterable[str] | None = None
) -> list[MaestroEstimate | SpecError]:
    """Estimate every layer of ``network`` (or those named in ``layers``), in file order.

    A layer MAESTRO's model cannot express gives its :class:`~tenet.errors.SpecError` in place
    of an estimate, so one bad layer does not hide the others.
    """
    wanted = set(layers) if layers is not None else None
    out: list[MaestroEstimate | SpecError] = []
    for layer in network.layers:
        if wanted is not None and layer.name not in wanted:
            continue
        try:
            out.append(estimate(layer, hardware, network.name))
        except SpecError as exc:
            out.append(exc)
    return out
