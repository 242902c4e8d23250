"""The ``tenet`` command line: thin commands over the public API, one module per command group,
each imported when its command runs (:class:`tenet.cli.app.LazyGroup`).

Exit codes: 0 success, 2 bad input (one line on stderr naming the file, field and reason),
1 unexpected error.
"""

from __future__ import annotations

from tenet.cli.app import cli, main

__all__ = ["cli", "main"]
