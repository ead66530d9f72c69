"""The one registry of backends. Modules are imported only when a backend is used."""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass

from nqcsp.solvers.base import Solver


@dataclass(frozen=True)
class SolverInfo:
    name: str
    complete: bool
    installed: bool
    description: str


@dataclass(frozen=True)
class _Spec:
    name: str
    module: str
    cls: str
    complete: bool
    requires: tuple[str, ...]
    description: str


# One line per backend. ``requires`` are the import names of its optional dependencies.
_SPECS: tuple[_Spec, ...] = (
    _Spec("construct", "nqcsp.solvers.construct", "ConstructSolver", False, ("numpy",),
          "explicit O(n) construction, its 8 symmetries and (gcd(n, 6) = 1) the shifts of 2r + s"),
    _Spec("qs4", "nqcsp.solvers.localsearch", "Qs4Solver", False, ("numba",),
          "Sosic & Gu QS4 local search: greedy permutation start, collision-lowering swaps"),
    _Spec("minconflicts", "nqcsp.solvers.localsearch", "MinConflictsSolver", False, ("numba",),
          "Minton's min-conflicts from a greedy start, restarts on stagnation"),
    _Spec("backtrack", "nqcsp.solvers.backtrack", "BacktrackSolver", True, ("numba",),
          "bitboard DFS, most constrained row first; exhaustive proofs for small n (n <= 64)"),
    _Spec("cpsat", "nqcsp.solvers.cpsat", "CpSatSolver", True, ("ortools",),
          "OR-Tools CP-SAT: AllDifferent on q[r], q[r]+r, q[r]-r (or model='boolean'); enumeration"),
    _Spec("sat", "nqcsp.solvers.sat", "SatSolver", True, ("pysat", "dratify"),
          "CNF on the n x n grid, PySAT solver and encoding by option; DRAT proof checked on UNSAT"),
)

_BY_NAME = {spec.name: spec for spec in _SPECS}
_instances: dict[str, Solver] = {}


def solver_names() -> tuple[str, ...]:
    return tuple(_BY_NAME)


def _installed(spec: _Spec) -> bool:
    return all(importlib.util.find_spec(module) is not None for module in spec.requires)


def available_solvers() -> list[SolverInfo]:
    """Every registered backend: its name, whether it is complete, whether its dependencies are installed."""
    return [SolverInfo(s.name, s.complete, _installed(s), s.description) for s in _SPECS]


def is_installed(name: str) -> bool:
    """Whether ``name`` is a registered backend whose dependencies are importable."""
    spec = _BY_NAME.get(name)
    return spec is not None and _installed(spec)


def get_solver(name: str) -> Solver:
    """The backend called ``name``; ValueError for an unknown name, ImportError for a missing dependency."""
    if not isinstance(name, str):
        raise TypeError(f"solver must be a name (str), got {name!r}")
    spec = _BY_NAME.get(name)
    if spec is None:
        raise ValueError(f"unknown solver {name!r}; known: auto, {', '.join(_BY_NAME)}")
    if name not in _instances:
        if not _installed(spec):
            raise ImportError(f"solver {name!r} needs {', '.join(spec.requires)}, which is not installed")
        module = importlib.import_module(spec.module)
        _instances[name] = getattr(module, spec.cls)()
    return _instances[name]
