"""The MiniZinc backend: every status translated, answers checked against the naive reference, the
deadline kept by killing MiniZinc's process group. Skipped when the ``minizinc`` binary (with Gecode) is
absent, as on CI."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from naive import naive_has_solution, naive_is_solution

import nqcsp
import nqcsp.solvers as registry
from nqcsp import Status

ROOT = Path(__file__).resolve().parent.parent


def _gecode_installed() -> bool:
    if shutil.which("minizinc") is None:
        return False
    try:
        listing = subprocess.run(["minizinc", "--solvers"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "org.gecode.gecode" in listing


needs_minizinc = pytest.mark.skipif(not _gecode_installed(), reason="minizinc with Gecode is not installed")


def test_minizinc_is_registered_complete_with_its_options():
    spec = registry.spec("minizinc")
    assert spec.complete and spec.requires == ("bin:minizinc",)
    assert registry.options_for("minizinc", {}) == {"mzn_solver": "gecode"}
    with pytest.raises(ValueError, match="mzn_solver"):
        registry.options_for("minizinc", {"mzn_solver": "gecode; rm"})
    with pytest.raises(TypeError, match="mzn_solver"):
        registry.options_for("minizinc", {"mzn_solver": 3})


def test_importing_the_backend_module_starts_nothing():
    code = "import sys, nqcsp.solvers.minizinc; print(sorted(m for m in ('numba', 'ortools', 'pysat') " \
           "if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stderr


def test_the_data_file_is_the_example_format():
    from nqcsp.solvers.minizinc import dzn_text

    example = (ROOT / "models" / "example.dzn").read_text()
    for line in dzn_text(nqcsp.Problem(8, [(0, 3)])).splitlines():
        assert line in example


def test_the_model_is_found():
    from nqcsp.solvers.minizinc import model_path

    assert model_path().read_text() == (ROOT / "models" / "nqueens.mzn").read_text()


@needs_minizinc
def test_answers_agree_with_the_naive_reference():
    # Every cell of n = 6 up to symmetry (12 of its 36 cells are blocked), a few empty boards, completions.
    cases = [(n, []) for n in (1, 2, 3, 5)]
    cases += [(6, [(r, c)]) for r in range(6) for c in range(6) if r <= c <= 5 - r]
    cases += [(9, nqcsp.random_completion(9, 4, seed)) for seed in range(2)]
    claims = 0
    for n, queens in cases:
        result = nqcsp.solve(n, queens, solver="minizinc", time_limit=20)
        truth = naive_has_solution(n, queens)
        assert result.status is (Status.SAT if truth else Status.UNSAT), (n, queens, result.stats)
        if truth:
            assert naive_is_solution(n, result.column_tuple(), queens)
        elif result.solver == "minizinc":
            # MiniZinc's claim, carried as such: nqcsp cannot check it, so it stays unchecked.
            assert result.certificate.kind == "minizinc-unsat" and not result.certificate.checked
            claims += 1
    assert claims > 0, "no UNSAT reached MiniZinc (all were answered before the backend)"


@needs_minizinc
def test_a_deadline_kills_minizinc_and_answers_unknown():
    hard = nqcsp.random_completion(171, 141, 3)
    started = time.perf_counter()
    result = nqcsp.solve(171, hard, solver="minizinc", time_limit=0.5)
    took = time.perf_counter() - started
    if result.status is Status.SAT:
        pytest.skip("Gecode solved the instance within 0.5 s on this machine")
    assert result.status is Status.UNKNOWN and "0.5 s" in result.stats["reason"]
    assert took < 0.5 + 0.5
    leftover = subprocess.run(["pgrep", "-f", "nqcsp-mzn-"], capture_output=True, text=True)
    assert leftover.stdout.strip() == "", "MiniZinc outlived the deadline"


@needs_minizinc
def test_a_board_that_cannot_fit_is_unknown_before_minizinc_starts():
    result = nqcsp.solve(10**6, [(0, 3)], solver="minizinc", time_limit=5)
    assert result.status is Status.UNKNOWN and result.stats["stage"] == "build"
    assert "memory" in result.stats["reason"]


@needs_minizinc
def test_an_unknown_minizinc_solver_is_an_internal_failure_not_an_answer():
    with pytest.raises(nqcsp.InternalSolverError, match="no-such-solver"):
        nqcsp.solve(8, [(0, 3)], solver="minizinc", mzn_solver="no-such-solver", time_limit=20)
