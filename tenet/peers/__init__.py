"""The peers' formats: per-level loop nests (Timeloop/AccelForge, ZigZag) as tenet relations,
SCALE-Sim's layers on its systolic schedules, their spec files in and out, and counts side by
side with theirs.

What the command line uses is re-exported here, each name imported on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tenet.lazy import lazy_exports

if TYPE_CHECKING:
    from tenet.peers.accelforge import ACCELFORGE_UNITS, read_accelforge, write_accelforge
    from tenet.peers.accelforge_chain import (
        accelforge_chain_document,
        einsum_count,
        read_accelforge_chain,
    )
    from tenet.peers.chain_mapper import ChainSearch, search_accelforge_chain
    from tenet.peers.compare import compare_accelforge, compare_zigzag, peer_python, render
    from tenet.peers.files import dump, write_specs
    from tenet.peers.mappers import PeerSearch, evaluate_best, search_peer
    from tenet.peers.scalesim import read_scalesim
    from tenet.peers.scalesim_compare import compare_scalesim, render_scalesim, scalesim_python
    from tenet.peers.scalesim_export import write_scalesim
    from tenet.peers.zigzag import ZIGZAG_UNITS, read_zigzag, write_zigzag

__all__ = [
    "ACCELFORGE_UNITS",
    "ZIGZAG_UNITS",
    "ChainSearch",
    "PeerSearch",
    "accelforge_chain_document",
    "compare_accelforge",
    "compare_scalesim",
    "compare_zigzag",
    "dump",
    "einsum_count",
    "evaluate_best",
    "peer_python",
    "read_accelforge",
    "read_accelforge_chain",
    "read_scalesim",
    "read_zigzag",
    "render",
    "render_scalesim",
    "scalesim_python",
    "search_accelforge_chain",
    "search_peer",
    "write_accelforge",
    "write_scalesim",
    "write_specs",
    "write_zigzag",
]

_HOME = {
    "ACCELFORGE_UNITS": "accelforge",
    "ZIGZAG_UNITS": "zigzag",
    "read_accelforge": "accelforge",
    "write_accelforge": "accelforge",
    "accelforge_chain_document": "accelforge_chain",
    "einsum_count": "accelforge_chain",
    "read_accelforge_chain": "accelforge_chain",
    "ChainSearch": "chain_mapper",
    "search_accelforge_chain": "chain_mapper",
    "compare_accelforge": "compare",
    "compare_zigzag": "compare",
    "peer_python": "compare",
    "render": "compare",
    "dump": "files",
    "write_specs": "files",
    "read_scalesim": "scalesim",
    "write_scalesim": "scalesim_export",
    "compare_scalesim": "scalesim_compare",
    "render_scalesim": "scalesim_compare",
    "scalesim_python": "scalesim_compare",
    "PeerSearch": "mappers",
    "evaluate_best": "mappers",
    "search_peer": "mappers",
    "read_zigzag": "zigzag",
    "write_zigzag": "zigzag",
}
"""The module of each re-export, under ``tenet.peers``."""

__getattr__ = lazy_exports("tenet.peers", _HOME)
