"""The one registry of backends and the one place their facts are written.

Each ``BackendSpec`` says where the backend lives (imported only when used), whether it is complete, what
boards it takes, its options (the declarative ``Option`` vocabulary of ``solvers.base``), and one line of
description. The portfolio chooses by these facts; the CLI, the docs tables and benchmarks read them here.
Adding a backend: see "Adding a backend" in CONTRIBUTING.md.
"""

from __future__ import annotations

import importlib.util
import shutil
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from nqcsp.runtime.lazy import MissingDependency, load
from nqcsp.runtime.values import close_names, did_you_mean
from nqcsp.solvers.base import Option, Solver, resolve_options

_BIG = 2**62  # the largest integer option value: every count fits numba's int64 state


class UnknownName(ValueError):
    """An option's value that names nothing the backend knows, with the names it is a near miss of
    (``close``, named in the message too)."""

    def __init__(self, message: str, close: list[str]) -> None:
        super().__init__(message)
        self.close = close


def _lazy_check(module: str, function: str, names: str | Callable[[], Iterable[str]] | None = None) -> Any:
    """A value check that lives in a backend module, imported only when the option is given; with
    ``names`` (the module's attribute holding the names it knows, or a function giving them), a refused
    name gets its near miss named (UnknownName)."""

    def check(value: Any) -> Any:
        found = load(module)
        try:
            return getattr(found, function)(value)
        except ValueError as exc:
            if names is None:
                raise
            close = close_names(value, getattr(found, names) if isinstance(names, str) else names())
            if not close:
                raise
            raise UnknownName(f"{exc}{did_you_mean(value, close)}", close) from None

    return check


def _pysat_names() -> list[str]:
    # PySAT's own table of its solvers and their aliases, the one nqcsp.solvers.sat.canonical_solver_name
    # looks names up in (imported only once a name was refused).
    from pysat.solvers import SolverNames

    return [name for key, aliases in vars(SolverNames).items() if not key.startswith("_")
            for name in (key, *aliases)]


@dataclass(frozen=True)
class BackendSpec:
    name: str
    module: str
    cls: str
    complete: bool
    requires: tuple[str, ...]
    description: str
    options: tuple[Option, ...] = ()
    # The largest residual board (free rows) the backend can search; None: no limit of its own.
    max_free: int | None = None
    # A check across options (each already valid alone), given the resolved dict; raises ValueError.
    check_together: Any = None
    # Writes an LRAT proof as it searches: the caller hands it a ``nqcsp.proof.certify.ProofChannel`` as
    # ``proofs``, so that the check and its verdict stay with the certifying side.
    writes_proofs: bool = False
    # An outside engine: its UNSAT is a claim no method of nqcsp re-checks, so ``auto`` never runs it
    # (it decides with a certified answer instead) and only the benchmarks compare its claims.
    outside: bool = False
    # How to install what it needs, said when it is missing.
    install: str = ""

    def takes(self, free_rows: int) -> bool:
        return self.max_free is None or free_rows <= self.max_free


_LOCAL_SEARCH_OPTIONS = (
    Option("max_restarts", None, "int", "attempts after the first (default: by n)", low=0, high=_BIG),
    Option("tail", None, "int", "queens placed at random after the greedy start (default: by n)",
           low=0, high=_BIG),
    Option("start", "auto", "choice", "first attempt's start: random greedy, or constructed (the "
           "first mandatory queen composed into a solution where n has a factor coprime to 6, or into "
           "one of n - k padded with k queens in a corner, the others swapped in; else the closed form "
           "with the queens swapped in; 'auto': constructed from n = 2^20 on without mandatory queens, "
           "with one a composition of n holds, or with up to 32 and a composition, padded or not, of an "
           "outer board of at least 128, where the repair does not fail)",
           choices=("auto", "greedy", "construction")),
)

_SPECS: tuple[BackendSpec, ...] = (
    BackendSpec("construct", "nqcsp.solvers.construct", "ConstructSolver", False, ("numpy",),
                "explicit O(n) construction, its 8 symmetries and (gcd(n, 6) = 1) the shifts of 2r + s"),
    BackendSpec("qs4", "nqcsp.solvers.localsearch", "Qs4Solver", False, ("numba",),
                "Sosic & Gu QS4 local search: greedy permutation start, collision-lowering swaps",
                (*_LOCAL_SEARCH_OPTIONS,
                 Option("max_failed_swaps", None, "int", "refused swaps before a restart (default: by n)",
                        low=0, high=_BIG))),
    BackendSpec("minconflicts", "nqcsp.solvers.localsearch", "MinConflictsSolver", False, ("numba",),
                "Minton's min-conflicts from a greedy start, restarts on stagnation",
                (*_LOCAL_SEARCH_OPTIONS,
                 Option("stall_steps", 100, "int", "steps without improvement before a restart",
                        low=0, high=_BIG))),
    BackendSpec("backtrack", "nqcsp.solvers.backtrack", "BacktrackSolver", True, ("numba",),
                "multi-word bitboard DFS on the residual board, most constrained row or column first, "
                "forward checking; its search tree is an LRAT proof on UNSAT",
                (Option("proof", True, "bool", "write an LRAT refutation of the reference statement"),),
                max_free=512, writes_proofs=True),
    BackendSpec("cpsat", "nqcsp.solvers.cpsat", "CpSatSolver", True, ("ortools",),
                "OR-Tools CP-SAT: AllDifferent on q[r], q[r]+r, q[r]-r (or model='boolean')",
                (Option("model", "alldiff", "choice", "CP model", choices=("alldiff", "boolean")),
                 Option("workers", 1, "int", "CP-SAT search workers", low=1, high=256),
                 Option("presolve", False, "bool", "CP-SAT presolve"),
                 Option("symmetry_level", 0, "int", "CP-SAT symmetry detection", low=0, high=4),
                 Option("inprocessing", False, "bool", "CP-SAT inprocessing"),
                 Option("linearization_level", 0, "int", "CP-SAT LP relaxation", low=0, high=2),
                 Option("search", "auto", "choice", "variable order of model='alldiff'",
                        choices=("auto", "min-domain-median", "min-domain-min")),
                 Option("hint", "auto", "choice", "solution hint",
                        choices=(None, "auto", "construct", "localsearch")),
                 Option("expand_alldiff", True, "bool", "expand AllDifferent into at-most-ones"),
                 Option("parameters", None, "custom", "any CP-SAT parameter by name (semantics kept)",
                        check=_lazy_check("nqcsp.solvers.cpsat", "check_parameters")),
                 Option("log", False, "bool", "CP-SAT search log, on stderr")),
                check_together=_lazy_check("nqcsp.solvers.cpsat", "check_option_combination")),
    BackendSpec("sat", "nqcsp.solvers.sat", "SatSolver", True, ("pysat", "dratify"),
                "CNF of the residual board, PySAT solver and encoding by option; DRAT proof on UNSAT",
                (Option("encoding", None, "custom", "cardinality encoding (default: by phase)",
                        check=_lazy_check("nqcsp.solvers.cnf", "check_encoding")),
                 Option("sat_solver", None, "custom", "PySAT solver name (default: by phase)",
                        check=_lazy_check("nqcsp.solvers.sat", "canonical_solver_name", _pysat_names)),
                 Option("proof", "auto", "choice", "'auto': prove an UNSAT; True: prove only; False: never",
                        choices=("auto", True, False)),
                 Option("hint", True, "bool", "guide the search by the construction"))),
    BackendSpec("minizinc", "nqcsp.solvers.minizinc", "MiniZincSolver", True, ("bin:minizinc",),
                "MiniZinc on models/nqueens.mzn (AllDifferent on q, q + r, q - r), Gecode by default",
                (Option("mzn_solver", "gecode", "custom", "MiniZinc solver id (gecode, chuffed, ...)",
                        check=_lazy_check("nqcsp.solvers.minizinc", "check_solver_id")),),
                install="install MiniZinc with its Gecode solver (Debian and Ubuntu: apt-get install "
                        "minizinc; elsewhere the MiniZinc bundle), so that 'minizinc' is on PATH"),
    BackendSpec("cpmpy", "nqcsp.solvers.cpmpy", "CpmpySolver", True, ("cpmpy",),
                "CPMpy's one model (AllDifferent on q, q + r, q - r) on an engine of the field, in a child "
                "process: Choco, Exact, Z3, Pumpkin, HiGHS, OR-Tools, PySAT; UNSAT is the engine's claim",
                (Option("engine", "ortools", "custom", "CPMpy engine: ortools, choco, exact, z3, pumpkin, "
                        "highs, pysat or pysat:NAME (an unknown name lists the installed ones)",
                        check=_lazy_check("nqcsp.solvers.cpmpy", "check_engine", "ENGINES")),),
                outside=True, install="pip install 'nqcsp[field]'"),
)

_BY_NAME = {spec.name: spec for spec in _SPECS}
_instances: dict[str, Solver] = {}
_INSTANCES_LOCK = threading.Lock()


@dataclass(frozen=True)
class SolverInfo:
    """One backend as ``available_solvers()`` lists it (``nqcsp solvers`` prints the same).

    Examples:
        >>> import nqcsp
        >>> info = {i.name: i for i in nqcsp.available_solvers()}["backtrack"]
        >>> info.complete, info.installed, info.max_free
        (True, True, 512)
    """

    name: str
    """What ``solve(..., solver=NAME)`` and ``--solver NAME`` take."""
    complete: bool
    """Whether it can prove that no solution exists (an incomplete one answers SAT or UNKNOWN only)."""
    installed: bool
    """Whether its dependency (a module, or a program on PATH) is present here."""
    description: str
    """What it is, in one line."""
    options: tuple[str, ...] = ()
    """The names of its options, passed to ``solve`` as keywords."""
    max_free: int | None = None
    """The most free rows its residual board may have (None: any)."""


def specs() -> tuple[BackendSpec, ...]:
    return _SPECS


def spec(name: object) -> BackendSpec:
    """The facts of backend ``name``; TypeError/ValueError for a bad name."""
    if not isinstance(name, str):
        raise TypeError(f"solver must be a name (str), got {name!r}")
    found = _BY_NAME.get(name)
    if found is None:
        raise ValueError(f"unknown solver {name!r}; known: auto, {', '.join(_BY_NAME)}"
                         f"{did_you_mean(name, ('auto', *_BY_NAME))}")
    return found


def _present(requirement: str) -> bool:
    """A module name, or ``bin:NAME`` for an executable on PATH."""
    if requirement.startswith("bin:"):
        return shutil.which(requirement[4:]) is not None
    return importlib.util.find_spec(requirement) is not None


def _installed(backend: BackendSpec) -> bool:
    return all(_present(requirement) for requirement in backend.requires)


def available_solvers() -> list[SolverInfo]:
    """Every registered backend: name, completeness, whether its dependencies are installed, options."""
    return [SolverInfo(s.name, s.complete, _installed(s), s.description,
                       tuple(o.name for o in s.options), s.max_free) for s in _SPECS]


def is_installed(name: str) -> bool:
    """Whether ``name`` is a registered backend whose dependencies are importable."""
    found = _BY_NAME.get(name)
    return found is not None and _installed(found)


def complete_names() -> tuple[str, ...]:
    return tuple(s.name for s in _SPECS if s.complete)


def _requirement_text(requirement: str) -> str:
    if requirement.startswith("bin:"):
        return f"the {requirement[4:]!r} executable on PATH"
    return f"the Python package {requirement!r}"


def require_installed(name: str) -> None:
    """MissingDependency naming what backend ``name`` lacks; ValueError/TypeError for a bad name."""
    backend = spec(name)
    missing = [r for r in backend.requires if not _present(r)]
    if missing:
        how = f": {backend.install}" if backend.install else ""
        raise MissingDependency(f"solver {name!r} needs {' and '.join(map(_requirement_text, missing))}, "
                                f"which is not installed{how}")


def get_solver(name: str) -> Solver:
    """The backend called ``name``; ValueError for an unknown name, MissingDependency for a missing
    dependency."""
    if name not in _instances:
        require_installed(name)
        backend = spec(name)
        with _INSTANCES_LOCK:
            if name not in _instances:
                _instances[name] = getattr(load(backend.module), backend.cls)()
    return _instances[name]


def options_for(name: str, options: Mapping[str, Any], keywords: tuple[str, ...] = ()) -> dict[str, Any]:
    """The options of backend ``name`` resolved against its schema: defaults filled, values checked (an
    unknown name's near miss among them and the caller's ``keywords`` named)."""
    backend = spec(name)
    resolved = resolve_options(name, backend.options, options, keywords, option_owners())
    if backend.check_together is not None:
        backend.check_together(resolved)
    return resolved


def option_owners() -> dict[str, tuple[str, ...]]:
    """Each backend option's name -> the backends that take it: an option given to another backend (or to
    ``auto``, which takes none) is named with the one it belongs to."""
    owners: dict[str, tuple[str, ...]] = {}
    for backend in _SPECS:
        for option in backend.options:
            owners[option.name] = (*owners.get(option.name, ()), backend.name)
    return owners


def options_taking(key: str, value: Any) -> list[tuple[str, str, Any]]:
    """(backend, option, value) for each backend option named like ``key`` (difflib) that takes ``value``,
    or the name ``value`` is a near miss of: where a value given to the wrong name was meant to go
    (``solver=glucose``: the sat backend's ``sat_solver=glucose4``)."""
    import difflib

    found = []
    for backend in _SPECS:
        for option in backend.options:
            if not difflib.get_close_matches(key, [option.name]):
                continue
            try:
                option.validate(value)
            except UnknownName as exc:
                found.append((backend.name, option.name, exc.close[0]))
            except (TypeError, ValueError, ImportError):
                continue
            else:
                found.append((backend.name, option.name, value))
    return found
