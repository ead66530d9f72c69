"""nqcsp: N-Queens with mandatory queens, answered with a verified solution or a checked proof of none.

Importing nqcsp is cheap: every public name is loaded on first use, and OR-Tools, PySAT and numba only
when a backend that needs them runs.
"""

from typing import TYPE_CHECKING

from nqcsp.runtime.lazy import load

# Where each public name lives. ``import nqcsp`` imports none of them (numpy alone is 40 ms of a cold
# start): a name's module is loaded on first use (PEP 562, as Scientific Python's SPEC 1 recommends).
_HOMES = {
    "Certificate": "nqcsp.board.result",
    "InternalSolverError": "nqcsp.board.result",
    "Problem": "nqcsp.board.problem",
    "Result": "nqcsp.board.result",
    "Solver": "nqcsp.solvers.base",
    "SolverInfo": "nqcsp.solvers",
    "Status": "nqcsp.board.result",
    "available_solvers": "nqcsp.solvers",
    "blockades": "nqcsp.studies.blockades",
    "check_threshold": "nqcsp.studies.threshold",
    "completion_threshold": "nqcsp.studies.threshold",
    "count": "nqcsp.bitboard",
    "count_unique": "nqcsp.bitboard",
    "find_violation": "nqcsp.proof.verifier",
    "parse_board": "nqcsp.board.text",
    "random_completion": "nqcsp.board.completion",
    "render_board": "nqcsp.board.text",
    "solutions": "nqcsp.bitboard",
    "solve": "nqcsp.api",
    "solve_n_queens": "nqcsp.api",
    "verify": "nqcsp.proof.verifier",
}

if TYPE_CHECKING:
    from nqcsp.api import solve, solve_n_queens
    from nqcsp.bitboard import count, count_unique, solutions
    from nqcsp.board.completion import random_completion
    from nqcsp.board.problem import Problem
    from nqcsp.board.result import Certificate, InternalSolverError, Result, Status
    from nqcsp.board.text import parse_board, render_board
    from nqcsp.proof.verifier import find_violation, verify
    from nqcsp.solvers import SolverInfo, available_solvers
    from nqcsp.solvers.base import Solver
    from nqcsp.studies.blockades import blockades
    from nqcsp.studies.threshold import check_threshold, completion_threshold


def __getattr__(name: str) -> object:
    """A public name, or a submodule (``nqcsp.solvers.portfolio``), imported on first use."""
    home = _HOMES.get(name)
    if home is not None:
        value = getattr(load(home), name)
        globals()[name] = value
        return value
    if not name.startswith("_"):
        try:
            return load(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


__all__ = [
    "Certificate",
    "InternalSolverError",
    "Problem",
    "Result",
    "Solver",
    "SolverInfo",
    "Status",
    "available_solvers",
    "blockades",
    "check_threshold",
    "completion_threshold",
    "count",
    "count_unique",
    "find_violation",
    "parse_board",
    "random_completion",
    "render_board",
    "solutions",
    "solve",
    "solve_n_queens",
    "verify",
]
# The one place the version is written: pyproject.toml reads it from here (dynamic = ["version"]).
__version__ = "0.2.0"
