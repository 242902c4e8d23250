"""Model layer: isl objects in the paper's vocabulary, built from specs with parameters bound."""

from __future__ import annotations

from tenet.model.architecture import Architecture, Link
from tenet.model.chain import Chain
from tenet.model.dataflow import Dataflow
from tenet.model.problem import Problem
from tenet.model.workload import Workload

__all__ = ["Architecture", "Chain", "Dataflow", "Link", "Problem", "Workload"]
