import subprocess
import sys

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from naive import naive_count, naive_has_solution, naive_is_solution, naive_solutions

pytest.importorskip("pysat")

from timing import Stopwatch

import nqcsp.proof.drat
from nqcsp import Problem, Status, solve
from nqcsp.cli import main as cli_main
from nqcsp.proof.dimacs import read_dimacs
from nqcsp.proof.drat import check_drat
from nqcsp.proof.statement import reference_cnf
from nqcsp.runtime.limits import Limits
from nqcsp.solvers import options_for
from nqcsp.solvers.cnf import ENCODINGS, encode
from nqcsp.solvers.contract import run_backend
from nqcsp.solvers.sat import PROOF_SOLVER, PROOF_SOLVERS, new_solver

A000170 = [1, 0, 0, 2, 10, 4, 40, 92]  # OEIS: solutions of n-queens, n = 1..8

CONFIGS = [
    {},  # the defaults: minicard search on the residual, then a cadical195 proof of the reference CNF
    {"proof": True},
    {"proof": True, "sat_solver": "glucose4"},
    {"encoding": "commander", "sat_solver": "glucose4"},
    {"encoding": "pairwise", "sat_solver": "lingeling"},
    {"encoding": "cardenc-totalizer", "sat_solver": "glucose3"},
    {"encoding": "cardenc-ladder", "sat_solver": "maplechrono"},
    {"encoding": "seqcounter", "sat_solver": "cadical195"},
    {"encoding": "native", "sat_solver": "gluecard4"},
    {"encoding": "cardenc-kmtotalizer", "sat_solver": "minisat22"},
]
CHECKERS = (("dratify-python",), ("dratify-native",))


def cells(n):
    return [(r, c) for r in range(n) for c in range(n)]


def assert_checked_drat(result):
    """The certificate's proof, checked again here against its CNF, which is the reference statement."""
    cert = result.certificate
    assert cert is not None and cert.kind == "drat" and cert.checked_by in CHECKERS
    cnf = read_dimacs(cert.details["cnf"])
    statement = reference_cnf(result.problem)
    assert cnf.num_vars == statement.num_vars and cnf.same_clauses(statement.clauses)
    assert check_drat(cnf.clauses(), cert.details["proof"], cnf.num_vars).ok


def assert_right(result, n, queens):
    if naive_has_solution(n, queens):
        assert result.status is Status.SAT
        assert naive_is_solution(n, result.columns.tolist(), queens)
    else:
        assert result.status is Status.UNSAT
        if result.certificate.kind in ("empty-line", "attack"):
            # A free line with no cell or attacking queens, re-checked by nqcsp.proof.certify.
            assert result.certificate.checked
        else:
            assert_checked_drat(result)


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: "-".join(map(str, o.values())) or "defaults")
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_every_single_queen_cell_agrees_with_naive(options, n):
    for cell in cells(n):
        assert_right(solve(n, [cell], solver="sat", **options), n, [cell])
    assert_right(solve(n, solver="sat", **options), n, [])


@pytest.mark.parametrize("options", CONFIGS[:3])
def test_attacking_queens_on_the_backend_directly_get_a_checked_attack_certificate(options):
    problem = Problem(8, [(2, 2), (5, 5)])
    result = run_backend("sat", problem, Limits.unlimited(), None, options_for("sat", options))
    assert result.status is Status.UNSAT
    assert result.certificate.kind == "attack" and result.certificate.checked


def test_two_queens_and_larger_boards_agree_with_naive():
    rng = np.random.default_rng(7)
    for _ in range(30):
        n = int(rng.integers(5, 9))
        queens = [tuple(int(v) for v in rng.integers(0, n, 2)) for _ in range(2)]
        if Problem(n, queens).attack is not None:
            continue  # answered before the backend is asked; see the direct test above
        assert_right(solve(n, queens, solver="sat"), n, queens)


@pytest.mark.parametrize("sat_solver", PROOF_SOLVERS)
def test_every_listed_proof_solver_proves_the_blockades_of_4_and_6(sat_solver):
    for n in (4, 6):
        for cell in cells(n):
            if not naive_has_solution(n, [cell]):
                result = solve(n, [cell], solver="sat", proof=True, sat_solver=sat_solver)
                assert result.status is Status.UNSAT
                assert_checked_drat(result)


def test_large_boards_with_a_mandatory_queen():
    for n in (50, 101, 200):
        cell = (0, n // 3)
        result = solve(n, [cell], solver="sat", seed=1)
        assert result.status is Status.SAT and naive_is_solution(n, result.columns.tolist(), [cell])


# --- the checker rejects bad proofs -------------------------------------------------------------------


def refutation(n, queens, encoding="seqcounter", sat_solver="cadical195"):
    """A CNF and the DRAT proof a solver gives for it."""
    from pysat.solvers import Solver

    formula = encode(Problem(n, queens), encoding)
    clauses = formula.clauses()
    with Solver(name=sat_solver, bootstrap_with=clauses, with_proof=True) as sat:
        assert sat.solve() is False
        return formula, clauses, sat.get_proof()


def test_the_valid_proof_passes_and_bad_proofs_are_rejected():
    formula, clauses, proof = refutation(6, [(0, 0)])
    assert check_drat(clauses, proof, formula.num_vars).ok

    truncated = proof[: len(proof) // 2]
    assert not check_drat(clauses, truncated).ok
    assert not check_drat(clauses, [line for line in proof if line.strip() != "0"]).ok

    # A queen at (0, 1) contradicts the unit (0, 0) and is neither RUP nor RAT.
    bogus = ["2 0", *proof]
    verdict = check_drat(clauses, bogus)
    assert not verdict.ok and "step 1: 2 0" in verdict.reason

    # The same proof against satisfiable formulas: without the mandatory unit, or another cell.
    without_unit = [clause for clause in clauses if clause != [1]]
    assert len(without_unit) == len(clauses) - 1
    assert not check_drat(without_unit, proof).ok
    other = encode(Problem(6, [(0, 1)]), "seqcounter").clauses()
    assert naive_has_solution(6, [(0, 1)])
    assert not check_drat(other, proof).ok
    assert not check_drat(other, ["0"]).ok

    # A proof of another UNSAT problem does not refute a satisfiable one of the same size either.
    _, _, proof4 = refutation(4, [(0, 0)])
    assert not check_drat(encode(Problem(4, [(0, 1)]), "seqcounter").clauses(), proof4).ok


def test_malformed_proofs_are_reported_not_raised():
    _, clauses, _ = refutation(4, [(0, 0)])
    for text in ("1 2 x 0\n", "1 2", b"\xff 0\n"):
        verdict = check_drat(clauses, text)
        assert not verdict.ok and verdict.malformed


def test_a_rejected_proof_is_never_a_checked_unsat(monkeypatch):
    from pysat.solvers import Solver

    real = Solver.get_proof
    monkeypatch.setattr(Solver, "get_proof", lambda self: real(self)[:3])
    result = solve(4, [(0, 0)], solver="sat", proof=True)
    assert result.status is Status.UNSAT and not result.certificate.checked
    assert "rejected" in result.certificate.details["unchecked"]


def test_a_crashing_checker_leaves_the_unsat_unchecked(monkeypatch):
    import dratify

    def broken(*args, **kwargs):
        raise RuntimeError("checker exploded")

    monkeypatch.setattr(dratify, "check_proof", broken)
    result = solve(4, [(0, 0)], solver="sat")
    assert result.status is Status.UNSAT and not result.certificate.checked
    assert "checker exploded" in result.certificate.details["unchecked"]
    assert not nqcsp.proof.drat.check_drat([[1], [-1]], ["0"]).ok


# --- options ------------------------------------------------------------------------------------------


def test_bad_options_are_named():
    with pytest.raises(ValueError, match="'nosuchsat'"):
        solve(8, solver="sat", sat_solver="nosuchsat")
    with pytest.raises(ValueError, match="'maplesat'.*broken"):
        solve(8, solver="sat", sat_solver="maplesat", proof=True)
    with pytest.raises(ValueError, match="'maplecm'.*broken"):
        solve(8, solver="sat", sat_solver="maplecm", proof=True)
    with pytest.raises(ValueError, match="'minisat22'.*no checkable DRAT"):
        solve(8, solver="sat", sat_solver="minisat22", proof=True)
    with pytest.raises(ValueError, match="'native'.*reference CNF"):
        solve(8, solver="sat", encoding="native", proof=True)
    with pytest.raises(ValueError, match="'commander'.*reference CNF"):
        solve(8, solver="sat", encoding="commander", proof=True)
    with pytest.raises(ValueError, match="'glucose4'.*native cardinality"):
        solve(8, solver="sat", encoding="native", sat_solver="glucose4")
    with pytest.raises(ValueError, match="'bogus'"):
        solve(8, solver="sat", encoding="bogus")
    with pytest.raises(ValueError, match="proof"):
        solve(8, solver="sat", proof="yes")
    with pytest.raises(TypeError, match="colour"):
        solve(8, solver="sat", colour="red")


def test_aliases_and_every_encoding_solve_a_mandatory_queen():
    for encoding in ENCODINGS:
        sat_solver = "mc" if encoding == "native" else "g4"
        result = solve(10, [(0, 3)], solver="sat", encoding=encoding, sat_solver=sat_solver, hint=False)
        assert result.status is Status.SAT and naive_is_solution(10, result.columns.tolist(), [(0, 3)])


def test_proof_false_turns_unsat_into_unknown_and_time_limits_give_unknown():
    result = solve(4, [(0, 0)], solver="sat", proof=False)
    assert result.status is Status.UNKNOWN and "proof=False" in result.stats["reason"]
    assert solve(60, [(0, 20)], solver="sat", time_limit=1e-9).status is Status.UNKNOWN
    assert solve(8, [(0, 0)], solver="sat", sat_solver="cadical195", encoding="seqcounter",
                 time_limit=1e-9).status is Status.UNKNOWN


# --- enumeration --------------------------------------------------------------------------------------


def enumerate_solutions(problem, encoding="seqcounter", sat_solver=PROOF_SOLVER):
    """Every model of the whole-grid CNF (``nqcsp export``'s), by blocking each found one: the encoding is
    right when these are exactly the naive solutions. Cell (r, c) is variable r * n + c + 1."""
    n = problem.n
    formula = encode(problem, encoding)
    solver = new_solver(sat_solver, formula.clauses(), formula)
    try:
        while solver.solve():
            cells = [lit - 1 for lit in solver.get_model()[: n * n] if lit > 0]
            assert len(cells) == n and sorted(cell // n for cell in cells) == list(range(n))
            cols = tuple(cell % n for cell in sorted(cells))
            yield cols
            solver.add_clause([-(row * n + col + 1) for row, col in enumerate(cols)])
    finally:
        solver.delete()


def count_solutions(problem, encoding, sat_solver):
    return sum(1 for _ in enumerate_solutions(problem, encoding, sat_solver))


@pytest.mark.parametrize("encoding, sat_solver", [("seqcounter", "cadical195"), ("commander", "glucose4"),
                                                  ("native", "minicard"), ("cardenc-bitwise", "minisat22")])
def test_blocking_clause_counts_match_oeis_and_naive(encoding, sat_solver):
    counts = [count_solutions(Problem(n), encoding, sat_solver) for n in range(1, 9)]
    assert counts == A000170 == [naive_count(n) for n in range(1, 9)]


def test_enumeration_with_a_mandatory_queen_is_the_naive_set():
    for n, queens in [(6, [(1, 3)]), (8, [(0, 3)]), (8, [(2, 2), (0, 4)])]:
        found = list(enumerate_solutions(Problem(n, queens)))
        assert len(found) == len(set(found))
        assert set(found) == set(naive_solutions(n, queens))


# --- DIMACS export and the CLI ------------------------------------------------------------------------


@pytest.mark.parametrize("n, queens", [(4, [(0, 0)]), (4, [(0, 1)]), (6, [(0, 0)]), (8, [(0, 3)]), (3, [])])
def test_exported_dimacs_read_back_and_solved_gives_the_same_status(tmp_path, n, queens):
    from pysat.solvers import Solver

    path = tmp_path / "board.cnf"
    args = ["export", str(n), *[arg for r, c in queens for arg in ("--queen", f"{r},{c}")], "--format",
            "dimacs", "--encoding", "commander", "-o", str(path)]
    assert cli_main(args) == 0
    text = path.read_text()
    assert f"c n {n}\n" in text and "c encoding commander\n" in text and f"row*{n} + col + 1" in text
    clauses = read_dimacs(text).clauses()
    with Solver(name="minisat22", bootstrap_with=clauses) as sat:
        satisfiable = sat.solve()
        model = sat.get_model() if satisfiable else None
    assert satisfiable == naive_has_solution(n, queens)
    if satisfiable:
        true_cells = [lit - 1 for lit in model[: n * n] if lit > 0]
        cols = [c for _, c in sorted(divmod(cell, n) for cell in true_cells)]
        assert naive_is_solution(n, cols, queens)


def test_check_proof_cli_exit_codes(tmp_path):
    formula, clauses, proof = refutation(4, [(0, 0)])
    cnf = tmp_path / "f.cnf"
    assert cli_main(["export", "4", "--queen", "0,0", "-o", str(cnf)]) == 0
    good = tmp_path / "good.drat"
    good.write_text("".join(line + "\n" for line in proof))
    truncated = tmp_path / "truncated.drat"
    truncated.write_text("".join(line + "\n" for line in proof[:2]))
    garbage = tmp_path / "garbage.drat"
    garbage.write_text("1 2 x 0\n")

    def run(*args):
        return subprocess.run([sys.executable, "-m", "nqcsp", "check-proof", *args], capture_output=True,
                              text=True, timeout=120)

    # A commander CNF is not the reference statement: a valid proof of it proves nothing about a board,
    # unless the plain check is asked for.
    plain = run(str(cnf), str(good))
    assert plain.returncode == 1 and "not the reference statement" in plain.stdout
    assert run("--any-cnf", str(cnf), str(good)).returncode == 0
    assert run("--any-cnf", str(cnf), str(truncated)).returncode == 1
    bad = run(str(cnf), str(garbage))
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert run(str(good), str(good)).returncode == 2          # a proof is not a CNF
    assert run(str(cnf), str(tmp_path / "missing")).returncode == 2


def test_export_refuses_bad_input():
    assert cli_main(["export", "4", "--queen", "9,9"]) == 2


def test_a_pairwise_export_beyond_a_stated_size_is_refused_naming_the_bytes(capsys):
    # n = 600 grew to 24 GB in memory and was killed; n = 1500 exited 4 with MemoryError.
    assert cli_main(["export", "1500", "--encoding", "pairwise", "--max-size", "1G"]) == 2
    err = capsys.readouterr().err
    assert "GiB" in err and "bytes)" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("n, queens",
                         [(0, []), (1, [(0, 0)]), (2, []), (7, [(0, 1), (2, 2)]), (30, [(3, 4)])])
def test_the_streamed_pairwise_export_is_the_pairwise_formula(n, queens, capsysbinary):
    from nqcsp.solvers.cnf import dimacs_text, pairwise_grid_size, pairwise_grid_text_bytes

    problem = Problem(n, queens)
    args = ["export", str(n), *[arg for r, c in queens for arg in ("--queen", f"{r},{c}")], "--encoding",
            "pairwise"]
    assert cli_main(args) == 0
    streamed = capsysbinary.readouterr().out
    formula = encode(problem, "pairwise")
    assert streamed.decode("ascii") == dimacs_text(formula)
    assert pairwise_grid_size(problem) == (formula.num_vars, formula.num_clauses)
    assert len(streamed) <= pairwise_grid_text_bytes(problem)


def test_import_nqcsp_loads_neither_pysat_nor_dratify():
    code = "import sys, nqcsp; print(any(m.split('.')[0] in ('pysat', 'dratify') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_a_pairwise_formula_of_terabytes_is_refused_at_once():
    # Sizing the formula counted 16 M cells outside the clock: 2.2-3.7 s to say it needs terabytes.

    with Stopwatch() as watch:
        result = solve(4000, solver="sat", encoding="pairwise", time_limit=1, memory_limit=2**33)
    assert watch.seconds <= 1.5, watch
    assert result.status is Status.UNKNOWN
    assert "TiB" in result.stats["reason"] and "at least" in result.stats["reason"]


def test_the_reference_lower_bound_never_exceeds_the_count():
    from nqcsp.board.completion import random_completion
    from nqcsp.board.residual import residual_of
    from nqcsp.proof.statement import reference_clauses_at_least, reference_size

    for seed in range(30):
        problem = Problem(30, random_completion(30, seed % 20, seed))
        if problem.attack is None and problem.free_row_count:
            residual = residual_of(problem)
            statement = reference_cnf(problem)
            assert reference_clauses_at_least(residual) <= reference_size(residual)[1] \
                == len(statement.clauses)


@given(st.one_of(st.binary(max_size=300).map(lambda b: b.decode("latin-1")),
                 st.text(alphabet="pcnf 0123456789-\n", max_size=300)))
@example("p cnf -5 0\n")
@settings(max_examples=200, deadline=None)
def test_hostile_dimacs_text_parses_or_is_a_value_error(text):
    try:
        cnf = read_dimacs(text)
    except ValueError:
        return
    assert cnf.num_vars >= 0
    assert all(0 < abs(lit) <= cnf.num_vars for clause in cnf.clauses() for lit in clause)


_SINGLE_SHOT_PROGRAM = """
import json, sys, nqcsp
n, row, col, name = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
r = nqcsp.solve(n, [(row, col)], solver="sat", sat_solver=name, time_limit=60, seed=0)
cols = None if r.columns is None else r.columns.tolist()
print(r.status.value, r.stats.get("sat_solver"), json.dumps(cols))
"""


# CryptoMiniSat is PySAT's through pycryptosat, of the field extra.
@pytest.mark.parametrize("name", ["kissat404", pytest.param("cryptominisat5", marks=pytest.mark.field)])
def test_a_solver_pysat_runs_once_or_without_a_time_limit_still_answers_under_one(name):
    # Kissat aborted the whole process on its second conflict budget ("incremental solving not
    # supported"; n = 100 needs more than the first), and PySAT handed CryptoMiniSat no time limit, which
    # it refuses: a process of its own, so that an abort is seen as one.
    import json
    import subprocess
    import sys

    from naive import naive_is_solution

    done = subprocess.run([sys.executable, "-c", _SINGLE_SHOT_PROGRAM, "100", "50", "33", name],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-500:]
    status, used, columns = done.stdout.split(" ", 2)
    assert status == "SAT" and used == name
    assert naive_is_solution(100, json.loads(columns), [(50, 33)])
