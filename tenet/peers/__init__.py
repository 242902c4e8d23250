"""The peers' formats: per-level loop nests (Timeloop/AccelForge, ZigZag) as tenet relations,
their spec files in and out, and counts side by side with theirs."""

from __future__ import annotations

__all__: list[str] = []
