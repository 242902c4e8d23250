"""Memory levels and tiling: the small architectures and dataflows these tests share."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent
LINE4 = str(HERE / "line4.yaml")
GEMM_TILED = str(HERE / "gemm-tiled.yaml")
SIZES_4 = ("-p", "M=4", "-p", "N=4", "-p", "K=4")


def gemm_tiled_on(architecture: str) -> tuple[str, ...]:
    """The ``-w/-a/-d/-p`` options of the hand-derived tiled GEMM 4³ on ``architecture``."""
    return ("-w", "gemm", "-a", architecture, "-d", GEMM_TILED, *SIZES_4)
