"""Brute-force references: each lists points and recomputes figures in plain Python, sharing no
code with what it checks (import-linter contracts)."""
