"""nqcsp: N-Queens with mandatory queens, answered with a verified solution or a checked proof of none.

Importing nqcsp is cheap: OR-Tools, PySAT and numba are loaded only when a backend that needs them runs.
"""

from nqcsp.api import solve, solve_n_queens
from nqcsp.bitboard import count, count_unique, solutions
from nqcsp.blockades import blockades
from nqcsp.board import parse_board, render_board
from nqcsp.completion import random_completion
from nqcsp.problem import Problem
from nqcsp.result import Certificate, InternalSolverError, Result, Status
from nqcsp.solvers import SolverInfo, available_solvers
from nqcsp.solvers.base import Solver
from nqcsp.verifier import find_violation, verify

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
