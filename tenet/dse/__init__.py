"""Design-space exploration: enumerate affine space-time mappings, prune them, evaluate them in
parallel and rank them."""

from __future__ import annotations
