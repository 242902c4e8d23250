"""The ``tenet`` command line: thin commands over the public API, one module per command group.

Exit codes: 0 success, 2 bad input (one line on stderr naming the file, field and reason),
1 unexpected error.
"""

from __future__ import annotations

from tenet.cli import dse as _dse  # noqa: F401
from tenet.cli import evaluate as _evaluate  # noqa: F401  (registers its commands)
from tenet.cli import layout as _layout  # noqa: F401
from tenet.cli import maestro as _maestro  # noqa: F401
from tenet.cli import network as _network  # noqa: F401
from tenet.cli import peers as _peers  # noqa: F401
from tenet.cli import plot as _plot  # noqa: F401
from tenet.cli import report as _report  # noqa: F401
from tenet.cli import schedule as _schedule  # noqa: F401
from tenet.cli import schema as _schema  # noqa: F401
from tenet.cli import table as _table  # noqa: F401
from tenet.cli import tile as _tile  # noqa: F401
from tenet.cli import zoo as _zoo  # noqa: F401
from tenet.cli.app import cli, main

__all__ = ["cli", "main"]
