"""SCALE-Sim's inputs (a config file and a topology CSV) as tenet specs, one problem per layer
(the way back: :mod:`tenet.peers.scalesim_export`).

Each layer becomes the zoo's ``scalesim-gemm`` or ``scalesim-conv`` workload, the ``scalesim``
architecture (an SRAM per operand between DRAM and the array, a register per PE) and the
``scalesim-os``, ``-ws`` or ``-is`` schedule, sized by the config (``docs/peers.md``)."""

from __future__ import annotations

import configparser
import math
import re
from dataclasses import dataclass
from typing import Any, Literal, cast

from tenet import zoo
from tenet.errors import SpecError
from tenet.spec import Specs
from tenet.spec.architecture import ArchitectureSpec
from tenet.spec.dataflow import DataflowSpec
from tenet.spec.io import read_text
from tenet.spec.workload import WorkloadSpec

__all__ = [
    "CONV_HEAD",
    "GEMM_HEAD",
    "InputKind",
    "ScaleSimDataflow",
    "SCHEDULES",
    "ScaleSimConfig",
    "ScaleSimLayer",
    "ScaleSimImport",
    "conv_layer",
    "read_config",
    "read_topology",
    "read_scalesim",
    "reuse_words",
    "sram_kb",
]

ScaleSimDataflow = Literal["os", "ws", "is"]
InputKind = Literal["gemm", "conv"]

SCHEDULES: tuple[ScaleSimDataflow, ...] = ("os", "ws", "is")
"""SCALE-Sim's dataflows: output, weight and input stationary."""

_SETS, _SHARE = 100, 50
"""SCALE-Sim's read buffer (CALC mode) holds 100 sets of words, 50 of them active."""


def reuse_words(kb: int) -> int:
    """Return the words an SRAM of ``kb`` kB keeps for reuse in SCALE-Sim's CALC mode: its
    active half, 50 sets of ``floor(1024 kb / 100)`` one-byte words, less one (the buffer drops
    every set when the fiftieth fills).

    Examples
    --------
    >>> reuse_words(64), reuse_words(1)
    (32749, 499)
    """
    return _SHARE * (1024 * kb // _SETS) - 1


def sram_kb(words: int) -> int:
    """Return the least SRAM size (kB) that keeps ``words`` for reuse (:func:`reuse_words`).

    Examples
    --------
    >>> sram_kb(32749), sram_kb(32750)
    (64, 65)
    """
    kb = max(1, math.ceil((words + 1) * _SETS / (_SHARE * 1024)))
    while reuse_words(kb) < words:
        kb += 1
    while kb > 1 and reuse_words(kb - 1) >= words:
        kb -= 1
    return kb


@dataclass(frozen=True)
class ScaleSimConfig:
    """The figures of a SCALE-Sim config file that tenet reads: the array, the SRAM sizes
    (kB of one-byte words), the dataflow, the bandwidth mode and, in USER mode, the DRAM
    bandwidths (words per cycle: ifmap, filter, ofmap)."""

    rows: int
    cols: int
    ifmap_kb: int
    filter_kb: int
    ofmap_kb: int
    dataflow: ScaleSimDataflow
    mode: Literal["CALC", "USER"] = "CALC"
    bandwidths: tuple[int, int, int] | None = None


def _value(parser: configparser.ConfigParser, section: str, key: str, source: str) -> str:
    if not parser.has_section(section):
        raise SpecError(f"no [{section}] section", source=source, location=section)
    if not parser.has_option(section, key):
        raise SpecError("missing", source=source, location=f"{section}.{key}")
    return parser.get(section, key).strip()


def _positive(parser: configparser.ConfigParser, section: str, key: str, source: str) -> int:
    text = _value(parser, section, key, source)
    try:
        value = int(text)
    except ValueError as exc:
        raise SpecError(
            f"expected a whole number, not {text!r}", source=source, location=f"{section}.{key}"
        ) from exc
    if value < 1:
        raise SpecError(f"must be >= 1, not {value}", source=source, location=f"{section}.{key}")
    return value


def read_config(path: str) -> ScaleSimConfig:
    """Read a SCALE-Sim config file (sections ``architecture_presets`` and ``run_presets``,
    ``layout`` in USER mode; keys as SCALE-Sim spells them, in any case).

    Raises
    ------
    SpecError
        A missing section or key, a value that is not a whole number >= 1, a dataflow other
        than ``os``, ``ws``, ``is``, a bandwidth mode other than ``CALC`` and ``USER``, or
        sparsity (tenet counts dense layers).
    """
    parser = configparser.ConfigParser()
    try:
        parser.read_string(read_text(path))
    except configparser.Error as exc:
        raise SpecError(f"not a config file: {exc}".splitlines()[0], source=path) from exc
    arch = "architecture_presets"
    dataflow = _value(parser, arch, "Dataflow", path)
    if dataflow not in SCHEDULES:
        raise SpecError(
            f"unknown dataflow {dataflow!r} (SCALE-Sim's: os, ws, is)",
            source=path,
            location=f"{arch}.Dataflow",
        )
    mode = _value(parser, "run_presets", "InterfaceBandwidth", path)
    if mode not in ("CALC", "USER"):
        raise SpecError(
            f"unknown bandwidth mode {mode!r} (CALC or USER)",
            source=path,
            location="run_presets.InterfaceBandwidth",
        )
    sparse = parser.get("sparsity", "SparsitySupport", fallback="false")
    if sparse.strip().lower() == "true":  # SCALE-Sim's own test
        raise SpecError(
            "sparse layers are not read: tenet counts every MAC of a dense layer",
            source=path,
            location="sparsity.SparsitySupport",
        )
    bandwidths = None
    if mode == "USER":
        # SCALE-Sim's USER mode: the ifmap and filter SRAMs fill at their banks' bandwidth,
        # the ofmap SRAM drains at the first of the Bandwidth values.
        text = _value(parser, arch, "Bandwidth", path)
        try:
            drain = int(text.split(",")[0])
        except ValueError as exc:
            raise SpecError(
                f"expected whole numbers, not {text!r}", source=path, location=f"{arch}.Bandwidth"
            ) from exc
        fills = [
            _positive(parser, "layout", key, path) if parser.has_section("layout") else 10
            for key in ("IfmapSRAMBankBandwidth", "FilterSRAMBankBandwidth")
        ]
        bandwidths = (fills[0], fills[1], drain)
    return ScaleSimConfig(
        _positive(parser, arch, "ArrayHeight", path),
        _positive(parser, arch, "ArrayWidth", path),
        _positive(parser, arch, "IfmapSramSzkB", path),
        _positive(parser, arch, "FilterSramSzkB", path),
        _positive(parser, arch, "OfmapSramSzkB", path),
        dataflow,
        cast(Literal["CALC", "USER"], mode),
        bandwidths,
    )


@dataclass(frozen=True)
class ScaleSimLayer:
    """One layer of a topology: a GEMM or a convolution (no padding), with SCALE-Sim's im2col
    sizes."""

    name: str
    kind: InputKind
    M: int
    """Output pixels of a convolution, rows of a GEMM's output."""
    N: int
    """Filters of a convolution, columns of a GEMM's output."""
    K: int
    """The reduction: a convolution's window (``fh * fw * channels``), a GEMM's inner size."""
    height: int = 0
    """Ifmap rows of a convolution (0 for a GEMM)."""
    width: int = 0
    """Ifmap columns of a convolution (0 for a GEMM)."""
    fh: int = 1
    """Filter rows."""
    fw: int = 1
    """Filter columns."""
    channels: int = 1
    """Ifmap channels."""
    stride: int = 1
    """The convolution's stride, on both axes."""

    @property
    def out_width(self) -> int:
        """Output pixels per row, as SCALE-Sim counts them (1 for a GEMM)."""
        return _windows(self.width, self.fw, self.stride) if self.kind == "conv" else 1

    def workload(self) -> WorkloadSpec:
        """Return the layer's workload: the zoo's ``scalesim-gemm`` or ``scalesim-conv``."""
        if self.kind == "gemm":
            spec = zoo.workload("scalesim-gemm")
        else:
            spec = zoo.workload(
                "scalesim-conv",
                height=self.height,
                width=self.width,
                ow=self.out_width,
                fw=self.fw,
                channels=self.channels,
                stride=self.stride,
            )
        return spec.model_copy(update={"name": self.name, "params": self.params()})

    def params(self) -> dict[str, int]:
        """Return the size parameters M, N, K."""
        return {"M": self.M, "N": self.N, "K": self.K}

    def row(self) -> str:
        """Return the layer as a row of SCALE-Sim's topology CSV."""
        if self.kind == "gemm":
            values = [self.M, self.N, self.K]
        else:
            values = [
                self.height,
                self.width,
                self.fh,
                self.fw,
                self.channels,
                self.N,
                self.stride,
            ]
        return ", ".join([self.name, *map(str, values)]) + ","


def _windows(extent: int, window: int, stride: int) -> int:
    """SCALE-Sim's output extent: ceil((extent - window + stride) / stride); the last window
    may run past the ifmap's edge."""
    return -(-(extent - window + stride) // stride)


def conv_layer(
    name: str,
    height: int,
    width: int,
    fh: int,
    fw: int,
    channels: int,
    filters: int,
    stride: int,
) -> ScaleSimLayer:
    """Return a convolution layer with its im2col sizes as SCALE-Sim computes them.

    Examples
    --------
    >>> conv_layer("c", 8, 8, 3, 3, 2, 4, 1).M  # 6 x 6 output pixels
    36
    >>> conv_layer("c", 8, 8, 3, 3, 2, 4, 2).M  # 4 x 4: the last window reads 2 of its 3 rows
    16
    """
    rows, cols = _windows(height, fh, stride), _windows(width, fw, stride)
    return ScaleSimLayer(
        name,
        "conv",
        rows * cols,
        filters,
        fh * fw * channels,
        height,
        width,
        fh,
        fw,
        channels,
        stride,
    )


_NAME = re.compile(r"^[A-Za-z0-9_.+-]+$")
GEMM_HEAD = "Layer, M, N, K,"
CONV_HEAD = (
    "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, "
    "Num Filter, Strides,"
)
"""The header lines of SCALE-Sim's topology CSVs (GEMM, convolution), which it skips."""


def read_topology(path: str, kind: InputKind = "conv") -> tuple[ScaleSimLayer, ...]:
    """Read a SCALE-Sim topology CSV as SCALE-Sim does: the first line is a header, each row
    ends with a comma (SCALE-Sim drops what follows the last one); a GEMM row is ``name, M, N,
    K,``, a convolution row ``name, ifmap height, width, filter height, width, channels,
    filters, stride,``, either with an optional sparsity ratio ``N:M`` (only ``1:1``, dense).
    A layer whose name holds ``DP`` (depth-wise) runs as one single-channel layer per channel,
    as SCALE-Sim runs it.

    Raises
    ------
    SpecError
        A row without its final comma, too few values, a value that is not a whole number
        >= 1, a filter larger than the ifmap, a sparse layer, a layer name that is not a file
        name or that two layers share.
    """
    lines = read_text(path).splitlines()
    layers: list[ScaleSimLayer] = []
    for number, line in enumerate(lines[1:], start=2):
        text = line.strip()
        if not text:
            continue
        where = f"line {number}"
        if not text.endswith(","):
            raise SpecError(
                "the row does not end with ',' (SCALE-Sim drops what follows the last comma)",
                source=path,
                location=where,
            )
        fields = [f.strip() for f in text.split(",")[:-1]]
        wanted = 4 if kind == "gemm" else 8
        if len(fields) < wanted:
            raise SpecError(
                f"{len(fields)} values; a {kind} row has {wanted} (see the header "
                f"{GEMM_HEAD if kind == 'gemm' else CONV_HEAD!r})",
                source=path,
                location=where,
            )
        name = fields[0]
        if len(fields) > wanted and fields[wanted].replace(" ", "") not in ("1:1", ""):
            raise SpecError(
                f"sparsity {fields[wanted]!r} is not read: tenet counts a dense layer (1:1)",
                source=path,
                location=where,
            )
        values = []
        for text_value in fields[1:wanted]:
            try:
                value = int(text_value)
            except ValueError as exc:
                raise SpecError(
                    f"{text_value!r} is not a whole number", source=path, location=where
                ) from exc
            if value < 1:
                raise SpecError(f"{value} must be >= 1", source=path, location=where)
            values.append(value)
        if kind == "gemm":
            layers.append(ScaleSimLayer(name, "gemm", values[0], values[1], values[2]))
            continue
        height, width, fh, fw, channels, filters, stride = values
        if fh > height or fw > width:
            raise SpecError(
                f"filter {fh} x {fw} larger than the ifmap {height} x {width}",
                source=path,
                location=where,
            )
        if "DP" in name:
            layers.extend(
                conv_layer(f"{name}Channel_{c}", height, width, fh, fw, 1, filters, stride)
                for c in range(channels)
            )
        else:
            layers.append(conv_layer(name, height, width, fh, fw, channels, filters, stride))
    seen: set[str] = set()
    for layer in layers:
        if not _NAME.match(layer.name) or layer.name in (".", ".."):
            raise SpecError(
                f"layer name {layer.name!r} is not a file name (letters, digits, _ . + -)",
                source=path,
            )
        if layer.name in seen:
            raise SpecError(f"two layers are named {layer.name!r}", source=path)
        seen.add(layer.name)
    if not layers:
        raise SpecError("no layer (the first line is the header)", source=path)
    return tuple(layers)


def _architecture(config: ScaleSimConfig) -> ArchitectureSpec:
    spec = zoo.architecture(
        "scalesim",
        rows=config.rows,
        cols=config.cols,
        ifmap=reuse_words(config.ifmap_kb),
        filter=reuse_words(config.filter_kb),
        ofmap=reuse_words(config.ofmap_kb),
        edge=8 * (config.rows + config.cols),
    )
    if config.bandwidths is None:
        return spec
    ifmap, filter_, drain = config.bandwidths
    dram = spec.levels[0].model_copy(
        update={"read_bandwidth": float(ifmap + filter_), "write_bandwidth": float(drain)}
    )
    return spec.model_copy(update={"levels": (dram, *spec.levels[1:])})


@dataclass(frozen=True)
class ScaleSimImport:
    """One layer of SCALE-Sim's inputs as tenet specs, and what it was read from."""

    config: ScaleSimConfig
    layer: ScaleSimLayer
    workload: WorkloadSpec
    architecture: ArchitectureSpec
    dataflow: DataflowSpec

    def documents(self) -> dict[str, dict[str, Any]]:
        """Return the three specs as documents by file stem, as ``tenet eval`` reads them."""
        return {
            "workload": _document(self.workload),
            "architecture": _document(self.architecture),
            "dataflow": _document(self.dataflow),
        }

    def specs(self) -> Specs:
        """Return the layer as a tenet problem: its three specs and sizes."""
        return Specs(self.workload, self.architecture, self.dataflow, self.layer.params()).checked()

    @property
    def folds(self) -> int:
        """The folds of the layer over the array (SCALE-Sim's row folds x column folds)."""
        rows, cols = self.config.rows, self.config.cols
        spatial = {"os": ("M", "N"), "ws": ("K", "N"), "is": ("K", "M")}[self.config.dataflow]
        sizes = self.layer.params()
        return math.ceil(sizes[spatial[0]] / rows) * math.ceil(sizes[spatial[1]] / cols)


def _document(spec: WorkloadSpec | ArchitectureSpec | DataflowSpec) -> dict[str, Any]:
    return {"version": 1, **spec.model_dump(mode="json", exclude_defaults=True)}


def read_scalesim(config: str, topology: str, kind: InputKind = "conv") -> list[ScaleSimImport]:
    """Read a SCALE-Sim config and topology: one problem per layer (its workload, the
    config's array and SRAMs, the config's schedule).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     cfg, csv = Path(folder, "a.cfg"), Path(folder, "t.csv")
    ...     _ = cfg.write_text(
    ...         "[architecture_presets]\\nArrayHeight: 8\\nArrayWidth: 8\\nIfmapSramSzkB: 64\\n"
    ...         "FilterSramSzkB: 64\\nOfmapSramSzkB: 64\\nDataflow: ws\\n"
    ...         "[run_presets]\\nInterfaceBandwidth: CALC\\n")
    ...     _ = csv.write_text("Layer, M, N, K,\\ng, 64, 64, 64,\\n")
    ...     layer = read_scalesim(str(cfg), str(csv), "gemm")[0]
    >>> layer.dataflow.name, layer.folds  # 8 x 8 folds of the 64 x 64 filter
    ('scalesim-ws', 64)
    """
    settings = read_config(config)
    architecture = _architecture(settings)
    dataflow = zoo.dataflow(f"scalesim-{settings.dataflow}", rows=settings.rows, cols=settings.cols)
    return [
        ScaleSimImport(settings, layer, layer.workload(), architecture, dataflow)
        for layer in read_topology(topology, kind)
    ]
