"""Side by side without the peers: a clear error when no peer is installed; the AccelForge
fills and writebacks derived from per-action counts, on counts written by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

import tenet.peers.compare as side
from tenet.peers.compare import PeerError, compare_accelforge, peer_python

SPEC = Path(__file__).parents[2] / "examples" / "peers" / "accelforge-gemm.yaml"


def test_compare_without_peer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TENET_PEERS_PYTHON", raising=False)
    assert peer_python(None) is None
    with pytest.raises(PeerError, match="accelforge is not installed here"):
        compare_accelforge(None, str(SPEC))


def test_compare_peer_python_missing() -> None:
    with pytest.raises(PeerError, match="cannot run"):
        side.run_accelforge("/nonexistent/python", str(SPEC))


def test_compare_accelforge_counts_by_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    # Counts as AccelForge reports them for this spec, in actions of each level's width
    # (main memory 16 bits, the buffer 64 bits = 4 elements, the register 1 bit): the buffer
    # is filled with A once (192 elements = 192 main-memory reads), B twice (it refetches B
    # for each of the 2 m tiles: 192), writes 128 partial sums back (128 main-memory
    # writes, 32 buffer reads of 4); the registers write 128 sums into the buffer (32 writes).
    counts = {
        "MainMemory": {
            "A": {"read": 192, "write": 0},
            "B": {"read": 192, "write": 0},
            "Z": {"read": 0, "write": 128},
        },
        "GlobalBuffer": {
            "A": {"read": 384, "write": 48},
            "B": {"read": 96, "write": 48},
            "Z": {"read": 32, "write": 32},
        },
        "Register": {"Z": {"read": 24576, "write": 24576}},
    }
    peer = {"actions": counts, "energy": 0.0}
    monkeypatch.setattr(side, "run_accelforge", lambda python, spec: peer)
    rows = {(r.level, r.tensor): r for r in compare_accelforge("python", str(SPEC))}
    b = rows[("GlobalBuffer", "B")]
    assert (b.fills, b.fills_peer) == (96, 192)
    assert "refetch" in b.reason
    z = rows[("Register", "Z")]
    assert (z.fills_peer, z.writebacks_peer, z.reason) == (0, 128, "")
