"""Where the logs of native solvers go: standard error, line by line, never standard output.

Standard output carries the answers (a board, columns, one JSON record per line of a batch) and must stay
exactly that; a solver that logs to it (CP-SAT with ``log_search_progress``, by default) breaks every
script that reads it. A backend that can log hands its solver ``write_line`` as the log's sink, with the
solver's own output to the terminal switched off, so that every native log takes this one way.
"""

from __future__ import annotations

import sys


def write_line(line: str) -> None:
    """One line of a native solver's log, on stderr (flushed: a log is read while the search runs)."""
    stream = sys.stderr
    stream.write(line + "\n")
    stream.flush()
