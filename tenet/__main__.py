"""``python -m tenet`` runs the command-line interface."""

from __future__ import annotations

from tenet.cli import main

main()
