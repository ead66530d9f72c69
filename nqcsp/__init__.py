"""nqcsp: N-Queens with mandatory queens, answered with a verified solution or a checked proof of none.

Importing nqcsp is cheap: every public name is loaded on first use, and OR-Tools, PySAT and numba only
when a backend that needs them runs.
"""

import sys
from types import ModuleType
from typing import TYPE_CHECKING

from nqcsp.lazy import load

# Where each public name lives. ``import nqcsp`` imports none of them (numpy alone is 40 ms of a cold
# start): a name's module is loaded on first use (PEP 562, as Scientific Python's SPEC 1 recommends).
_HOMES = {
    "Certificate": "nqcsp.result",
    "InternalSolverError": "nqcsp.result",
    "Problem": "nqcsp.problem",
    "Result": "nqcsp.result",
    "Solver": "nqcsp.solvers.base",
    "SolverInfo": "nqcsp.solvers",
    "Status": "nqcsp.result",
    "available_solvers": "nqcsp.solvers",
    "blockades": "nqcsp.blockades",
    "check_threshold": "nqcsp.threshold",
    "completion_threshold": "nqcsp.threshold",
    "count": "nqcsp.bitboard",
    "count_unique": "nqcsp.bitboard",
    "find_violation": "nqcsp.verifier",
    "parse_board": "nqcsp.board",
    "random_completion": "nqcsp.completion",
    "render_board": "nqcsp.board",
    "solutions": "nqcsp.bitboard",
    "solve": "nqcsp.api",
    "solve_n_queens": "nqcsp.api",
    "verify": "nqcsp.verifier",
}

if TYPE_CHECKING:
    from nqcsp.api import solve, solve_n_queens
    from nqcsp.bitboard import count, count_unique, solutions
    from nqcsp.blockades import blockades
    from nqcsp.board import parse_board, render_board
    from nqcsp.completion import random_completion
    from nqcsp.problem import Problem
    from nqcsp.result import Certificate, InternalSolverError, Result, Status
    from nqcsp.solvers import SolverInfo, available_solvers
    from nqcsp.solvers.base import Solver
    from nqcsp.threshold import check_threshold, completion_threshold
    from nqcsp.verifier import find_violation, verify


def __getattr__(name: str) -> object:
    """A public name, or a submodule (``nqcsp.portfolio``), imported on first use."""
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


class _Package(ModuleType):
    def __setattr__(self, name: str, value: object) -> None:
        # Importing the submodule nqcsp.blockades binds it on the package, where it would hide the
        # public function nqcsp.blockades.
        if name in _HOMES and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


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
