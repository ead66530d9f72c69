"""The protocol every registered backend keeps, run over ``available_solvers()``: a new backend gets these
tests for free (see "Adding a backend" in CONTRIBUTING.md)."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from naive import naive_has_solution, naive_is_solution
from timing import Stopwatch

import nqcsp
from nqcsp import InternalSolverError, Problem, Result, Status, solve
from nqcsp.solvers import is_installed, spec, specs

# The field extra's backends are listed installed or not, marked `field`: where the extra is absent they
# skip naming it (tests/conftest.py), and CI runs them once it is installed (-m field).
FIELD = {backend.name for backend in specs() if "nqcsp[field]" in backend.install}
NAMES = [info.name for info in nqcsp.available_solvers() if info.installed or info.name in FIELD]
COMPLETE = [name for name in NAMES if spec(name).complete]


def _param(name, *values, id=None):
    return pytest.param(name, *values, id=id or name, marks=[pytest.mark.field] if name in FIELD else [])


INSTALLED = [_param(name) for name in NAMES]


def _configurations(names):
    """Each backend with its defaults, and the cpmpy backend once per installed engine: each engine is a
    program of its own that must keep the protocol."""
    configs = [_param(name, {}) for name in names]
    if "cpmpy" in names and is_installed("cpmpy"):
        from nqcsp.solvers.cpmpy import DEFAULT_ENGINE, installed_engines

        configs += [_param("cpmpy", {"engine": engine}, id=f"cpmpy-{engine}")
                    for engine in installed_engines() if engine != DEFAULT_ENGINE]
    return configs


CONFIGURATIONS = _configurations(NAMES)
COMPLETE_CONFIGURATIONS = _configurations(COMPLETE)


@pytest.mark.parametrize("name", INSTALLED)
def test_an_unknown_option_is_named(name):
    with pytest.raises(TypeError, match="bogus"):
        solve(8, solver=name, bogus=1)
    # Refused even when the answer needs no backend at all.
    with pytest.raises(TypeError, match="bogus"):
        solve(0, solver=name, bogus=1)


@pytest.mark.parametrize("name", INSTALLED)
def test_every_declared_option_refuses_a_wrong_type(name):
    for option in spec(name).options:
        with pytest.raises((TypeError, ValueError), match=option.name):
            solve(8, solver=name, **{option.name: object()})


class _MustNotRun:
    def solve(self, problem, *, limits, seed=None, **options):
        raise AssertionError("the backend ran on a case the pre-check answers")


@pytest.mark.parametrize("name", INSTALLED)
def test_the_pre_check_answers_before_the_named_backend_runs(monkeypatch, name):
    # The trivial cases never reach a backend, whichever is named: the answer says it came from the
    # pre-check, with a certificate it re-checked.
    import nqcsp.solvers as registry

    monkeypatch.setitem(registry._instances, name, _MustNotRun())
    empty = solve(0, solver=name)
    assert empty.status is Status.SAT and len(empty.columns) == 0 and empty.solver == "trivial"
    attack = solve(8, [(0, 0), (3, 3)], solver=name)
    assert attack.status is Status.UNSAT and attack.solver == "trivial"
    assert attack.certificate.kind == "attack" and attack.certificate.checked


# None of these is decided by the pre-check: every answer below is the named backend's own.
BRUTE_FORCE_CASES = [(8, [(0, 3)]), (6, [(0, 0)]), (7, [(2, 3)]), (9, [(0, 0), (1, 2)]),
                     (5, [(0, 0), (2, 1)])]


@pytest.mark.parametrize("name,options", CONFIGURATIONS)
def test_answers_agree_with_brute_force(name, options):
    solved = 0
    for n, queens in BRUTE_FORCE_CASES:
        result = solve(n, queens, solver=name, seed=1, time_limit=30, **options)
        assert result.solver == name, (n, queens, result.solver)
        truth = naive_has_solution(n, queens)
        if result.status is Status.SAT:
            assert naive_is_solution(n, result.columns.tolist(), queens)
            solved += 1
        elif result.status is Status.UNSAT:
            assert spec(name).complete, f"incomplete {name} answered UNSAT"
            assert result.certificate is not None and not truth
        else:
            # Only an incomplete backend may give up, and it must say why.
            assert not spec(name).complete, f"complete {name} left a tiny board undecided"
            assert isinstance(result.stats["reason"], str) and result.stats["reason"]
    # A backend that always gives up would pass every check above: each must solve some of them.
    assert solved >= (sum(naive_has_solution(n, q) for n, q in BRUTE_FORCE_CASES) if spec(name).complete
                      else 1), name


@pytest.mark.parametrize("name,options", COMPLETE_CONFIGURATIONS)
def test_a_complete_backend_decides_a_blockade_with_a_certificate(name, options):
    result = solve(6, [(1, 1)], solver=name, time_limit=30, **options)
    assert result.solver == name and not naive_has_solution(6, [(1, 1)])
    assert result.status is Status.UNSAT and result.certificate is not None


@pytest.mark.parametrize("name,options", CONFIGURATIONS)
def test_a_spent_deadline_gives_unknown_naming_the_stage(name, options):
    with Stopwatch() as watch:
        result = solve(300, [(0, 7), (5, 100)], solver=name, time_limit=1e-9, seed=0, **options)
    assert watch.seconds < 1.5, watch
    assert result.status is Status.UNKNOWN
    assert "time limit" in result.stats["reason"] and result.stats["stage"] in result.stats["reason"]


@pytest.mark.parametrize("name,options", CONFIGURATIONS)
def test_a_small_memory_limit_gives_unknown_naming_the_size(name, options):
    result = solve(10**7, [(5, 17)], solver=name, memory_limit=2**20, time_limit=20, **options)
    assert result.status is Status.UNKNOWN
    reason = result.stats["reason"]
    max_free = spec(name).max_free
    if max_free is not None:
        # Declined by its size limit from the registry, before any allocation: the reason names it.
        assert f"above {max_free}" in reason, reason
    else:
        assert "memory limit" in reason and "MiB" in reason, reason


def test_the_registry_imports_no_backend():
    code = ("import sys, nqcsp; nqcsp.available_solvers(); [nqcsp.solvers.spec(s.name) "
            "for s in nqcsp.available_solvers()]; "
            "heavy = ('numba', 'ortools', 'pysat', 'dask', 'distributed'); "
            "print(sorted(m for m in heavy if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


class _Wrong:
    def __init__(self, answer):
        self.answer = answer

    def solve(self, problem, *, limits, seed=None, **options):
        return self.answer(problem)


@pytest.mark.parametrize("answer", [
    lambda p: 3.5,
    lambda p: Result(p, Status.SAT, "wrong", columns=np.zeros((2, 4), dtype=np.int64)),
    lambda p: Result(p, Status.SAT, "wrong", columns=np.arange(p.n, dtype=np.float64)),
    lambda p: Result(Problem(p.n + 1), Status.SAT, "wrong"),
    lambda p: Result(p, Status.UNSAT, "wrong"),
    lambda p: (_ for _ in ()).throw(ValueError("a bug inside the backend")),
], ids=["float", "2-D", "float-columns", "other-problem", "unsat-without-certificate", "raises"])
def test_a_backend_breaking_the_protocol_is_an_internal_error_not_bad_input(monkeypatch, answer):
    import nqcsp.solvers as registry

    monkeypatch.setitem(registry._instances, "cpsat", _Wrong(answer))
    with pytest.raises(InternalSolverError):
        solve(8, [(0, 3)], solver="cpsat")


def test_a_backend_cannot_certify_its_own_claim(monkeypatch):
    """A certificate that *says* it was checked is re-checked; an exhaustive claim stays a claim."""
    import nqcsp.solvers as registry
    from nqcsp.runtime.limits import Limits
    from nqcsp.solvers.construct import ConstructSolver

    # A solvable board the construction misses, so that auto's complete backends must decide it.
    problem = next(Problem(8, [cell]) for cell in ((r, c) for r in range(8) for c in range(8))
                   if naive_has_solution(8, [cell])
                   and ConstructSolver().solve(Problem(8, [cell]), limits=Limits.unlimited()).status
                   is Status.UNKNOWN)

    def lie(p):
        return Result(p, Status.UNSAT, "backtrack",
                      certificate=nqcsp.Certificate("exhaustive", ("backtrack", "dratify"), {}))

    monkeypatch.setitem(registry._instances, "backtrack", _Wrong(lie))
    direct = solve(problem, solver="backtrack")
    assert direct.status is Status.UNSAT and not direct.certificate.checked
    # auto asks a second backend, whose verified solution exposes the lie.
    with pytest.raises(InternalSolverError, match="disagree"):
        solve(problem, solver="auto", seed=0)


_COLD_CACHE_PROGRAM = """
import json, sys
sys.path.insert(0, {tests!r})
from timing import Stopwatch
import nqcsp
out = []
for solver in ("qs4", "backtrack", "auto"):
    with Stopwatch() as watch:
        result = nqcsp.solve(20, [(1, 2)], solver=solver, seed=1, time_limit=0.5)
    out.append([solver, result.status.value, watch.seconds, result.stats.get("reason"),
                None if result.columns is None else result.columns.tolist()])
print(json.dumps(out))
"""


def test_a_time_limit_is_kept_when_numba_has_no_cached_kernel_to_load(tmp_path):
    # A fresh install compiles each kernel on its first call: qs4 took 5.1 s, backtrack 7.9 s and auto
    # 12.3 s under a 0.5 s limit. A stage now asks numba's cache first and refuses a limit too short for
    # compiling, so auto answers from a backend that needs no compiling.
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    program = _COLD_CACHE_PROGRAM.format(tests=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          env=env, timeout=120, check=True)
    runs = {solver: (status, seconds, reason, cols)
            for solver, status, seconds, reason, cols in json.loads(done.stdout)}
    for solver, (_, seconds, reason, _) in runs.items():
        assert seconds <= 0.5 + 0.5, (solver, seconds, reason)
    for solver in ("qs4", "backtrack"):
        assert runs[solver][0] == "UNKNOWN" and "compiling" in runs[solver][2]
    status, _, _, cols = runs["auto"]
    assert status == "SAT" and naive_is_solution(20, cols, [(1, 2)])


def test_needs_compiling_follows_numbas_cache(tmp_path):
    module = tmp_path / "cold_kernel.py"
    module.write_text("from nqcsp.runtime.jit import njit\n\n\n@njit(cache=True)\n"
                      "def twice(x):\n    return 2 * x\n")
    program = ("import sys; sys.path.insert(0, sys.argv[1]); import cold_kernel; "
               "from nqcsp.runtime.jit import needs_compiling; before = needs_compiling(cold_kernel.twice); "
               "value = cold_kernel.twice(21); print(before, needs_compiling(cold_kernel.twice), value)")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    first = subprocess.run([sys.executable, "-c", program, str(tmp_path)], capture_output=True, text=True,
                           env=env, check=True).stdout.split()
    again = subprocess.run([sys.executable, "-c", program, str(tmp_path)], capture_output=True, text=True,
                           env=env, check=True).stdout.split()
    assert first == ["True", "False", "42"]    # nothing cached, then compiled in the process
    assert again == ["False", "False", "42"]   # a new process finds the cached copy
