"""CP-SAT backend (complete): the AllDifferent model or a Boolean grid model, solved by OR-Tools CP-SAT.

Models
- ``alldiff`` (the default, the model the suite is built around): ``q[r]`` in 0..n-1 and AllDifferent on
  ``q[r]``, ``q[r] + r`` and ``q[r] - r`` as affine expressions (no helper variables); a mandatory queen
  fixes the domain of its row's variable.
- ``boolean``: one Boolean per cell, exactly one per row and column, at most one per diagonal; a mandatory
  queen fixes its cell's domain to 1. The proto is written in bulk (text format, one parse) because a
  million ``new_bool_var`` calls cost seconds at n = 1000.

Search settings are keyword options; the defaults (one worker, presolve, symmetry detection, inprocessing
and the LP relaxation off) are the fastest configuration in ``benchmarks/results/cpsat.md``: on this
problem every one of those phases costs seconds at n >= 200 and never pays back on a feasible instance.
``hint="construct"`` adds the closed-form construction, adjusted to meet the mandatory queens,
as a solution hint: CP-SAT only uses it to order its decisions, so the answer is exactly as trustworthy.
``hint="localsearch"`` hints qs4's answer instead when qs4 finds one in a quarter of the time left (the
construction otherwise): CP-SAT then confirms a complete assignment against its model, without
branching, so the AllDifferent model is no longer the slow one on big boards (n = 1000 in about 1 s
instead of 16 s with the construction's hint, which misleads CP-SAT as soon as a mandatory queen moves a
few of its rows). ``hint="auto"`` (default) is "localsearch" from ``LOCALSEARCH_HINT_MIN_FREE_ROWS``
free rows and "construct" below, where CP-SAT's own search takes milliseconds. A hint never decides
anything: an UNSAT board is still CP-SAT's to prove, after qs4 has spent at most its share of time (or
its restart budget) failing.
``expand_alldiff=True`` (default) lets CP-SAT expand the AllDifferents into Boolean at-most-ones.

The call's limits hold at the edges: the model's memory and CP-SAT's uninterruptible loading time are
estimated before anything is built (``BYTES_PER_CELL``, ``LOAD_S_PER_CELL``): a Boolean model that
cannot fit is UNKNOWN naming its size, and the AllDifferent expansion (n² literals, seconds at n = 1000)
is switched off when it cannot end in time. The solve runs in a thread that the caller's thread watches:
at the deadline it stops CP-SAT, and a Ctrl-C (CP-SAT's own SIGINT handler is off) stops it too and is
raised as KeyboardInterrupt after CP-SAT returns, never answered as UNKNOWN. ``parameters`` that change
what a status means (fixing hinted values, stopping early with a status, debug crashes, nested subsolver
parameters) or that would override the call's own limits are refused by name.

OR-Tools is imported inside the functions, never when nqcsp is imported.
"""

from __future__ import annotations

import numbers
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from nqcsp.board.construction import permutation_near
from nqcsp.board.problem import Problem
from nqcsp.board.residual import RESIDUAL_S_PER_CELL, Residual, estimated_bytes, residual_of
from nqcsp.board.result import Certificate, InternalSolverError, Result, Status, columns_array
from nqcsp.proof.certify import empty_line_certificate
from nqcsp.runtime import solver_logs
from nqcsp.runtime.limits import Limits, OutOfTime, Unfinished, time_limit_reason
from nqcsp.solvers.base import BUILD_S, REASON, SEARCH_S, SOLVE_S, STAGE

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

# Peak bytes per cell (n²) while CP-SAT loads and searches the model, measured at n = 1000-1500:
# 1.1 KB with the AllDifferents expanded (2.4 GB at n = 1500), 0.65 KB for the Boolean grid.
BYTES_PER_CELL = {"expanded": 1200, "boolean": 800}
# Seconds per cell CP-SAT spends loading before it looks at its clock, which stop_search cannot cut:
# expanding the AllDifferents (12-13 us measured at n = 1000-1500 on the shared 2-core machine) and
# writing + parsing + loading the Boolean proto (8 + 2.4 us). Both are rounded up.
LOAD_S_PER_CELL = {"expanded": 15e-6, "boolean": 12e-6}
# Seconds to import OR-Tools the first time (0.5-1.6 s measured on the shared machine; the low figure,
# so that only a hopeless deadline is refused).
ORTOOLS_IMPORT_S = 0.5
# hint="auto" asks qs4 for the hint from this many free rows on: below, CP-SAT's own search with the
# construction's hint takes about as long as loading qs4's kernel or less (0.08 s against 0.32 s at
# n = 136 with one queen in the codewars suite, 1.5 s against 0.27 s at n = 260; 4 ms against 0.37 s on
# the 25 free rows of the completion suite's n = 115 boards).
LOCALSEARCH_HINT_MIN_FREE_ROWS = 200
# The residual board is built for model="alldiff" when this many times its estimate fits in memory, and
# when building it (a free x free table, RESIDUAL_S_PER_CELL a cell) takes at most this many times as long
# as the whole board's model (ALLDIFF_S_PER_ROW a row): with a few queens on a big board the residual is
# nearly the board, and its table alone took 2.3 s at n = 10^4 with one queen, the search 0.01 s.
RESIDUAL_SHARE = 4
RESIDUAL_BUILD_RATIO = 4
# How often the watching thread looks at the deadline and at a pending Ctrl-C.
WATCH_S = 0.02
# After Ctrl-C, how long the solve thread may take to stop before it is left behind.
INTERRUPT_GRACE_S = 0.3

# Parameters refused because they change what CP-SAT's answer means or crash the process: fixing
# variables to the hint can make INFEASIBLE untrue; the stop_after_* ones stop early with a status; a
# solution without every variable instantiated cannot be read; nested subsolver parameters cannot be
# vetted here; the debug_crash_* ones abort the process.
SEMANTIC_PARAMETERS = {
    "fix_variables_to_their_hinted_value": "it fixes variables to the hint, so INFEASIBLE can be untrue",
    "stop_after_first_solution": "it stops the search early",
    "stop_after_presolve": "it stops after presolve with a status that is not an answer",
    "stop_after_root_propagation": "it stops after root propagation with a status that is not an answer",
    "instantiate_all_variables": "a solution without every variable cannot be read back",
    "subsolver_params": "parameters inside subsolvers cannot be checked here",
    "debug_crash_on_bad_hint": "it aborts the process",
    "debug_crash_if_presolve_breaks_hint": "it aborts the process",
    "debug_crash_if_lrat_check_fails": "it aborts the process",
    "debug_postsolve_with_full_solver": "a debugging mode, not a search setting",
}
# Parameters the call sets itself from its own arguments.
CALL_PARAMETERS = {
    "max_time_in_seconds": "use time_limit",
    "max_memory_in_mb": "use memory_limit",
    "num_workers": "use the workers option",
    "num_search_workers": "use the workers option",
    "catch_sigint_signal": "nqcsp handles Ctrl-C itself",
    "enumerate_all_solutions": "a solve call asks for one solution",
    "log_to_stdout": "CP-SAT's log goes to stderr (the log option): stdout carries the answer alone",
}



def resolve_options(options: dict[str, Any]) -> dict[str, Any]:
    """The registry's schema applied to ``options`` (defaults filled, every value checked)."""
    from nqcsp.solvers import options_for

    return options_for("cpsat", options)


def check_option_combination(config: dict[str, Any]) -> None:
    if config["model"] == "boolean" and config["search"] != "auto":
        raise ValueError(f"search={config['search']!r} orders the q[r] variables of model='alldiff'; "
                         f"model='boolean' takes search='auto'")


def check_parameters(parameters: object) -> dict[str, Any] | None:
    """The ``parameters`` option: a dict of CP-SAT parameter names to values, every value checked before
    any solve: its type and range against the field (``parameters_message``), then by CP-SAT's own
    validation (``_validated_by_cpsat``: NaN, infinities, negative sizes, ...). ValueError or TypeError
    naming the parameter; the C++ text parser never sees a value that was not checked."""
    if parameters is None:
        return None
    if not isinstance(parameters, dict):
        raise TypeError(f"parameters must be a dict of CP-SAT parameter names to values, got {parameters!r}")
    for name, value in parameters.items():
        if not isinstance(name, str):
            raise TypeError(f"CP-SAT parameter names are strings, got {name!r}")
        if name in SEMANTIC_PARAMETERS and not _is_default(name, value):
            raise ValueError(f"CP-SAT parameter {name} is refused: {SEMANTIC_PARAMETERS[name]}")
        if name in CALL_PARAMETERS:
            raise ValueError(f"CP-SAT parameter {name} is refused: {CALL_PARAMETERS[name]}")
    _validated_by_cpsat(parameters_message(parameters))
    return dict(parameters)


def _is_default(name: str, value: object) -> bool:
    """Whether ``value`` is CP-SAT's own default for ``name`` (setting it then changes nothing)."""
    from ortools.sat import sat_parameters_pb2

    default = getattr(sat_parameters_pb2.SatParameters(), name, None)
    return type(value) is type(default) and value == default


def parameters_message(parameters: dict[str, Any]) -> Any:
    """The parameters as a ``SatParameters`` protobuf message built in Python, each value checked against
    its field first: the exact type (a bool is not a number, a number not a bool), an enum by name or by
    one of its numbers, a number that fits the field (protobuf's own range check)."""
    from ortools.sat import sat_parameters_pb2

    message = sat_parameters_pb2.SatParameters()
    for name, value in parameters.items():
        field = message.DESCRIPTOR.fields_by_name.get(name)
        if field is None:
            raise ValueError(f"unknown CP-SAT parameter {name!r} in parameters")
        if field.is_repeated and not isinstance(value, (list, tuple)):
            raise TypeError(f"CP-SAT parameter {name} takes a list, got {_shown(value)}")
        items = list(value) if field.is_repeated else [value]
        converted = [_field_value(name, field, item) for item in items]
        try:
            if field.is_repeated:
                getattr(message, name).extend(converted)
            else:
                setattr(message, name, converted[0])
        except (TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"CP-SAT parameter {name} cannot take {_shown(value)}: {exc}") from None
    return message


def _field_value(name: str, field: Any, item: object) -> Any:
    """``item`` as a value of ``field``, or TypeError/ValueError naming the parameter."""
    from google.protobuf.descriptor import FieldDescriptor

    def refuse(wanted: str) -> TypeError:
        return TypeError(f"CP-SAT parameter {name} takes {wanted}, got {_shown(item)} "
                         f"({type(item).__name__})")

    if field.type == FieldDescriptor.TYPE_MESSAGE:
        raise TypeError(f"CP-SAT parameter {name} is a nested message, which cannot be set here")
    if field.type == FieldDescriptor.TYPE_BOOL:
        if not isinstance(item, bool):
            raise refuse("true or false")
        return item
    if field.type == FieldDescriptor.TYPE_STRING:
        if not isinstance(item, str):
            raise refuse("a string")
        return item
    if field.type == FieldDescriptor.TYPE_ENUM:
        names = field.enum_type.values_by_name
        if isinstance(item, str) and item in names:
            return names[item].number
        if isinstance(item, int) and not isinstance(item, bool) and item in field.enum_type.values_by_number:
            return item
        raise ValueError(f"CP-SAT parameter {name} takes one of {', '.join(names)} (or its number), "
                         f"got {_shown(item)}")
    if isinstance(item, bool):
        raise refuse("a number")
    if field.cpp_type in (FieldDescriptor.CPPTYPE_DOUBLE, FieldDescriptor.CPPTYPE_FLOAT):
        if not isinstance(item, numbers.Real):
            raise refuse("a number")
        try:
            return float(item)
        except OverflowError:
            raise ValueError(f"CP-SAT parameter {name} cannot take {_shown(item)}: not a finite "
                             "number") from None
    if not isinstance(item, numbers.Integral):
        raise refuse("an integer")
    return int(item)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _validated_by_cpsat(message: Any) -> None:
    """CP-SAT's own check of the parameters (its ValidateParameters, which Python does not expose), asked
    through a solve of the empty model with no time to search: MODEL_INVALID names the parameter."""
    from google.protobuf import text_format
    from ortools.sat import sat_parameters_pb2
    from ortools.sat.python import cp_model, cp_model_helper

    probe = sat_parameters_pb2.SatParameters()
    probe.CopyFrom(message)
    probe.max_time_in_seconds = 0.0
    probe.num_workers = 1
    probe.log_search_progress = False
    native = cp_model_helper.SatParameters()
    if not native.parse_text_format(text_format.MessageToString(probe)):
        raise InternalSolverError(f"CP-SAT cannot read back the parameters nqcsp wrote: {probe}")
    wrapper = cp_model_helper.SolveWrapper()
    wrapper.set_parameters(native)
    response = wrapper.solve(cp_model.CpModel().proto)
    if response.status == cp_model.MODEL_INVALID:
        raise ValueError(f"CP-SAT refuses the parameters: {response.solution_info}")


def _apply_parameters(solver: cp_model.CpSolver, parameters: dict[str, Any]) -> None:
    """Set the (checked) CP-SAT parameters: written as text by protobuf from the checked message, so the
    C++ parser only ever reads what it accepts."""
    from google.protobuf import text_format

    if not solver.parameters.merge_text_format(text_format.MessageToString(parameters_message(parameters))):
        raise InternalSolverError(f"CP-SAT cannot read back the parameters nqcsp wrote: {parameters}")


def make_solver(config: dict[str, Any], *, time_limit: float | None, seed: int | None,
                memory_limit: int | None = None) -> cp_model.CpSolver:
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    params = solver.parameters
    params.num_workers = config["workers"]
    params.cp_model_presolve = config["presolve"]
    params.symmetry_level = config["symmetry_level"]
    params.use_sat_inprocessing = config["inprocessing"]
    params.linearization_level = config["linearization_level"]
    params.log_search_progress = config["log"]
    # Expanded, the diagonal AllDifferents propagate like the Boolean model's at-most-ones: 3x faster
    # at n = 200 and the difference between finishing n = 500 and not (benchmarks/results/cpsat.md).
    params.expand_alldiff_constraints = config["expand_alldiff"]
    if config["search"] != "auto":
        params.search_branching = cp_model.FIXED_SEARCH
    if seed is not None:
        params.random_seed = seed % 2**31  # an int32 parameter; our seeds go to 2**63 - 1
    if config["parameters"]:
        _apply_parameters(solver, check_parameters(config["parameters"]) or {})
    # Set after the user's parameters, so the call's own limits always win.
    if time_limit is not None:
        params.max_time_in_seconds = max(time_limit, 1e-3)
    if memory_limit is not None:
        params.max_memory_in_mb = max(1, memory_limit >> 20)
    params.catch_sigint_signal = False
    # The log (the log option, or log_search_progress among the parameters) goes the one way native logs
    # go, to stderr; CP-SAT's own printing to stdout is off.
    params.log_to_stdout = False
    if params.log_search_progress:
        solver.log_callback = solver_logs.write_line
    return solver


def build_residual_alldiff(residual: Residual, config: dict[str, Any]) -> cp_model.CpModel:
    """The AllDifferent model on the free rows only: ``q[i]`` ranges over the unattacked free columns of
    free row ``rows[i]`` (so the mandatory queens' columns and diagonals are out of every domain), with
    AllDifferent on q, q + row and q - row. Variable i is free row i; ``Residual.lift`` maps back."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    rows = residual.rows.tolist()
    q = []
    for i, row in enumerate(rows):
        values = residual.cols[residual.allowed[i]]
        breaks = np.flatnonzero(np.diff(values) != 1)
        starts = np.r_[values[:1], values[breaks + 1]].tolist()
        ends = np.r_[values[breaks], values[-1:]].tolist()
        domain = cp_model.Domain.from_intervals([[a, b] for a, b in zip(starts, ends, strict=True)])
        q.append(model.new_int_var_from_domain(domain, f"q{row}"))
    model.add_all_different(q)
    model.add_all_different([var + row for var, row in zip(q, rows, strict=True)])
    model.add_all_different([var - row for var, row in zip(q, rows, strict=True)])
    order_and_hint(model, q, config, lambda: hint_columns(residual.problem, config)[residual.rows].tolist())
    return model


def build_alldiff(problem: Problem, config: dict[str, Any]) -> tuple[cp_model.CpModel, list[Any]]:
    from ortools.sat.python import cp_model

    n = problem.n
    model = cp_model.CpModel()
    fixed: dict[int, int] = {}
    extra: list[tuple[int, int]] = []
    for row, col in problem.queens:
        if row in fixed:
            extra.append((row, col))  # a second queen in one row: left for the solver to refute
        else:
            fixed[row] = col
    q = [model.new_int_var(fixed.get(r, 0), fixed.get(r, n - 1), f"q{r}") for r in range(n)]
    for row, col in extra:
        model.add(q[row] == col)
    model.add_all_different(q)
    model.add_all_different([q[r] + r for r in range(n)])
    model.add_all_different([q[r] - r for r in range(n)])
    order_and_hint(model, q, config, lambda: hint_columns(problem, config).tolist())
    return model, q


def hint_columns(problem: Problem, config: dict[str, Any]) -> np.ndarray:
    """Columns by row to hint: local search's answer when ``solve`` found one, else the construction."""
    found = config.get("hint_columns")
    return permutation_near(problem) if found is None else np.asarray(found, dtype=np.int64)


def local_search_hint(problem: Problem, limits: Limits, seed: int | None) -> np.ndarray | None:
    """For ``hint="localsearch"``: a solution from qs4 within a quarter of the time left, or None (qs4 not
    installed, out of its share of time, or gave up). Only a hint: CP-SAT checks every constraint of its
    model against it, and the answer is verified like any other."""
    from nqcsp.solvers import get_solver, is_installed, options_for

    if problem.n < 4 or not is_installed("qs4"):
        return None
    remaining = limits.remaining()
    share = limits.within(None if remaining is None else remaining / 4)
    try:
        result = get_solver("qs4").solve(problem, limits=share, seed=seed, **options_for("qs4", {}))
    except Unfinished:
        return None
    return result.columns if result.status is Status.SAT else None


def order_and_hint(model: cp_model.CpModel, q: list[Any], config: dict[str, Any],
                   hint: Callable[[], list[int]]) -> None:
    """The ``search`` strategy (middle rows first, smallest domain) and the construction ``hint`` for
    the row variables ``q``, in the order of their rows; ``hint()`` gives one column per variable."""
    from ortools.sat.python import cp_model

    if config["search"] != "auto":
        size = len(q)
        middle_out = sorted(range(size), key=lambda i: abs(2 * i - (size - 1)))
        median = config["search"] == "min-domain-median"
        value = cp_model.SELECT_MEDIAN_VALUE if median else cp_model.SELECT_MIN_VALUE
        model.add_decision_strategy([q[i] for i in middle_out], cp_model.CHOOSE_MIN_DOMAIN_SIZE, value)
    if config["hint"] is not None:
        for var, col in zip(q, hint(), strict=True):
            model.add_hint(var, col)


def _literals_text(kind: str, literals: np.ndarray) -> str:
    return f"constraints {{ {kind} {{ literals: [{','.join(map(str, literals.tolist()))}] }} }}"


def build_boolean(problem: Problem, config: dict[str, Any]) -> cp_model.CpModel:
    """Cell (r, c) is variable r * n + c. Written as one text-format proto, parsed once in C++."""
    from ortools.sat.python import cp_model

    n = problem.n
    model = cp_model.CpModel()
    free, fixed = "variables { domain: [0, 1] }\n", "variables { domain: [1, 1] }\n"
    cells = sorted({row * n + col for row, col in problem.queens})
    parts, start = [], 0
    for cell in cells:
        parts.append(free * (cell - start))
        parts.append(fixed)
        start = cell + 1
    parts.append(free * (n * n - start))
    cell_index = np.arange(n * n, dtype=np.int64).reshape(n, n)
    anti = cell_index[:, ::-1]
    for line in range(n):
        parts.append(_literals_text("exactly_one", cell_index[line]))
        parts.append(_literals_text("exactly_one", cell_index[:, line]))
    for offset in range(-(n - 2), n - 1):  # diagonals of length 1 constrain nothing
        parts.append(_literals_text("at_most_one", np.diagonal(cell_index, offset)))
        parts.append(_literals_text("at_most_one", np.diagonal(anti, offset)))
    if config["hint"] is not None:
        values = np.zeros((n, n), dtype=np.int8)
        values[np.arange(n), hint_columns(problem, config)] = 1
        parts.append(f"solution_hint {{ vars: [{','.join(map(str, range(n * n)))}] "
                     f"values: [{','.join(map(str, values.reshape(-1).tolist()))}] }}")
    model.proto.merge_text_format("\n".join(parts))
    return model


def build(problem: Problem, config: dict[str, Any]) -> cp_model.CpModel:
    if config.get("residual"):
        return build_residual_alldiff(residual_of(problem), config)
    if config["model"] == "alldiff":
        return build_alldiff(problem, config)[0]
    return build_boolean(problem, config)


def columns_from(values: Any, n: int, model_name: str, residual: Residual | None = None) -> np.ndarray:
    """Columns by row from a full CP-SAT assignment of either model (of the residual board when given)."""
    flat = np.asarray(values, dtype=np.int64)
    if residual is not None:
        return residual.lift(flat[: residual.size])
    if model_name == "alldiff":
        return flat[:n]
    return np.argmax(flat[: n * n].reshape(n, n), axis=1)


def _search_stats(solver: cp_model.CpSolver) -> dict[str, Any]:
    return {"cpsat_wall_s": solver.wall_time, "branches": solver.num_branches,
            "conflicts": solver.num_conflicts, "deterministic_time": solver.response_proto.deterministic_time}


ALLDIFF_BYTES_PER_ROW = 2000
ALLDIFF_S_PER_ROW = 3e-5


def plan(problem: Problem, config: dict[str, Any], limits: Limits) -> dict[str, Any]:
    """The config the limits allow, decided before anything is built: the Boolean model must fit in
    memory and load in time (else UNKNOWN naming the size); the AllDifferent expansion is switched off
    when it would not (the model is then exactly as correct, its propagation weaker)."""
    cells = problem.n * problem.n
    free = problem.free_row_count
    remaining = limits.remaining()
    residual_s = RESIDUAL_S_PER_CELL * free * free
    if config["model"] == "alldiff" and problem.queens and problem.attack is None \
            and RESIDUAL_SHARE * estimated_bytes(problem) <= limits.memory \
            and residual_s <= RESIDUAL_BUILD_RATIO * ALLDIFF_S_PER_ROW * problem.n \
            and (remaining is None or residual_s < remaining / 4):
        # Completion problems: only the free rows are searched (73 of 1000 for random_completion(1000,
        # 927, 1)), and the expansion below costs the residual's cells, not the board's.
        config = {**config, "residual": True}
        cells = free * free
    if config["model"] == "boolean":
        limits.need_memory("build", BYTES_PER_CELL["boolean"] * cells,
                           f"CP-SAT's Boolean model of {problem.n} x {problem.n} cells")
        limits.need_time("build", LOAD_S_PER_CELL["boolean"] * cells)
        return config
    rows = free if config.get("residual") else problem.n
    # Building the AllDifferent model is a Python loop over rows (about 22 us and 850 bytes a row at
    # n = 2 * 10^5, then CP-SAT's own copy), whatever the expansion decided below.
    limits.need_memory("build", ALLDIFF_BYTES_PER_ROW * rows, f"CP-SAT's AllDifferent model of {rows} rows")
    limits.need_time("build", ALLDIFF_S_PER_ROW * rows)
    if config["expand_alldiff"]:
        remaining = limits.remaining()
        too_big = BYTES_PER_CELL["expanded"] * cells > limits.memory
        too_slow = remaining is not None and LOAD_S_PER_CELL["expanded"] * cells > remaining / 2
        if too_big or too_slow:
            return {**config, "expand_alldiff": False,
                    "expand_alldiff_off": "memory" if too_big else "time"}
    return config


def run_watched(solver: cp_model.CpSolver, model: cp_model.CpModel, limits: Limits,
                callback: Any = None) -> int:
    """``solver.solve(model)`` in a thread watched by this one: CP-SAT is stopped at the deadline, and a
    Ctrl-C stops it and is raised as KeyboardInterrupt within ``INTERRUPT_GRACE_S`` (CP-SAT's own SIGINT
    handler, which would turn it into UNKNOWN, is off). Off the main thread no handler can be installed: the
    solve then runs directly, against CP-SAT's own time limit."""
    status: list[Any] = []
    failure: list[BaseException] = []

    def target() -> None:
        try:
            status.append(solver.solve(model, callback))
        except BaseException as exc:
            failure.append(exc)

    if threading.current_thread() is not threading.main_thread():
        return int(solver.solve(model, callback))
    interrupted = threading.Event()

    def on_sigint(signum: int, frame: Any) -> None:
        interrupted.set()
        solver.stop_search()

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        worker = threading.Thread(target=target, name="nqcsp-cpsat", daemon=True)
        worker.start()
        stopped = False
        while worker.is_alive():
            worker.join(WATCH_S)
            if not stopped and limits.expired():
                solver.stop_search()
                stopped = True
            if interrupted.is_set():
                # CP-SAT may take many seconds to notice a stop in some phases (30 s at n = 1500); the
                # user is answered now and the thread, a daemon, ends when CP-SAT does.
                worker.join(INTERRUPT_GRACE_S)
                break
    finally:
        signal.signal(signal.SIGINT, previous)
    if interrupted.is_set():
        raise KeyboardInterrupt
    if failure:
        raise failure[0]
    return status[0]


class CpSatSolver:
    name = "cpsat"

    def solve(self, problem: Problem, *, limits: Limits, seed: int | None = None,
              **options: Any) -> Result:
        started = time.perf_counter()
        config = plan(problem, dict(options), limits)  # options resolved by the registry
        if "ortools.sat.python.cp_model" not in sys.modules:
            limits.need_time("build", ORTOOLS_IMPORT_S)
        from ortools.sat.python import cp_model  # after the plan: a refused model costs no import
        residual = residual_of(problem) if config.get("residual") else None
        line = residual.empty_line() if residual is not None else None
        if line is not None:
            return Result(problem, Status.UNSAT, self.name, certificate=empty_line_certificate(line))
        limits.check_time("build")
        if config["hint"] == "auto":
            many = problem.free_row_count >= LOCALSEARCH_HINT_MIN_FREE_ROWS
            config = {**config, "hint": "localsearch" if many else "construct"}
        if config["hint"] == "localsearch":
            found = local_search_hint(problem, limits, seed)
            if found is not None:
                # A complete, consistent hint is taken as it stands (no branches): expanding the
                # AllDifferents (seconds at n = 1000) would buy nothing.
                config = {**config, "hint_columns": found, "expand_alldiff": False}
        model = build(problem, config)
        build_s = time.perf_counter() - started
        limits.check_time("build")
        solver = make_solver(config, time_limit=limits.remaining(), seed=seed, memory_limit=limits.memory)
        status = run_watched(solver, model, limits)
        stats = {"model": config["model"] + (" (residual board)" if residual is not None else ""),
                 BUILD_S: build_s, **_search_stats(solver),
                 SEARCH_S: time.perf_counter() - started - build_s, SOLVE_S: time.perf_counter() - started}
        if config["hint"] is not None:
            stats["hint"] = "qs4" if "hint_columns" in config else "construction"
        if "expand_alldiff_off" in config:
            stats["expand_alldiff"] = f"off ({config['expand_alldiff_off']} would not allow it)"
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            cols = columns_from(solver.response_proto.solution, problem.n, config["model"], residual)
            return Result(problem, Status.SAT, self.name, columns=columns_array(cols, problem.n), stats=stats)
        if status == cp_model.INFEASIBLE:
            # Only CP-SAT's claim: the guaranteed path cross-checks it with a second complete method.
            claim = {"model": config["model"], "board": "full" if residual is None else "residual",
                     **_search_stats(solver)}
            certificate = Certificate("cpsat-infeasible", (), claim)
            return Result(problem, Status.UNSAT, self.name, certificate=certificate, stats=stats)
        if status == cp_model.UNKNOWN:
            remaining = limits.remaining()
            if remaining is not None and remaining < 0.1:  # CP-SAT's own clock ran out a moment before ours
                raise OutOfTime("search", time_limit_reason("search", limits.time_limit))
            stats[REASON] = f"CP-SAT stopped: {solver.solution_info() or 'no reason given'}"
            stats[STAGE] = "search"
            return Result(problem, Status.UNKNOWN, self.name, stats=stats)
        if status == cp_model.MODEL_INVALID:
            raise InternalSolverError(f"CP-SAT rejected the {config['model']} model for {problem}: "
                                      f"{model.validate() or solver.solution_info()}")
        raise InternalSolverError(
            f"CP-SAT returned the unexpected status {solver.status_name(status)} for {problem}")
