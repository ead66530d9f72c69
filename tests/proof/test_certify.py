"""The trusted UNSAT route: the reference statement, its proofs, their re-check, and the evidence kept."""

import json
import subprocess
import sys
import time

import numpy as np
import pytest
from naive import naive_count, naive_has_solution, naive_is_solution

pytest.importorskip("pysat")
pytest.importorskip("dratify")

from timing import Stopwatch

import nqcsp.proof.drat
import nqcsp.solvers.sat as sat_backend
from nqcsp import InternalSolverError, Problem, Status, solve
from nqcsp.board.completion import random_completion
from nqcsp.board.residual import residual_of
from nqcsp.board.result import Certificate
from nqcsp.proof.certify import recheck, write_certificate
from nqcsp.proof.drat import check_drat, check_within, native_available
from nqcsp.proof.statement import VERSION, reference_cnf, reference_size
from nqcsp.runtime.limits import Limits, OutOfTime
from nqcsp.solvers.cnf import ENCODINGS, clauses_dimacs, encode, encode_residual

CHECKERS = (("dratify-python",), ("dratify-native",))
needs_native = pytest.mark.skipif(not native_available(), reason="cdclkit[native] is not installed")


def models(clauses, num_vars, project):
    """Every model of the CNF projected on variables 1..project, by blocking clauses."""
    from pysat.solvers import Solver

    found = set()
    with Solver(name="minisat22", bootstrap_with=[list(c) for c in clauses]) as solver:
        while solver.solve():
            model = solver.get_model()
            key = tuple(v for v in model[:project] if v > 0)
            found.add(key)
            solver.add_clause([-v for v in key] or [0])
    return found


def small_problems():
    rng = np.random.default_rng(11)
    out = [(n, []) for n in range(1, 8)]
    out += [(n, [(r, c)]) for n in (4, 5, 6) for r in range(n) for c in range(n)]
    for _ in range(40):
        n = int(rng.integers(5, 9))
        out.append((n, [tuple(int(v) for v in rng.integers(0, n, 2)) for _ in range(2)]))
    return [(n, q) for n, q in out if Problem(n, q).attack is None]


def refute(problem):
    """The reference statement of an UNSAT problem and cadical's proof of it."""
    from pysat.solvers import Solver

    statement = reference_cnf(problem)
    with Solver(name="cadical195", bootstrap_with=[list(c) for c in statement.clauses],
                with_proof=True) as solver:
        assert solver.solve() is False
        return statement, "".join(line + "\n" for line in solver.get_proof())


def drat_certificate(problem, cnf, proof, checked_by=()):
    return Certificate("drat", checked_by, {"statement": VERSION, "problem": str(problem), "cnf": cnf,
                                            "proof": proof.encode() if isinstance(proof, str) else proof})


# --- the statement ------------------------------------------------------------------------------------


@pytest.mark.parametrize("n, queens", small_problems())
def test_the_reference_cnf_has_exactly_the_naive_solutions(n, queens):
    problem = Problem(n, queens)
    statement = reference_cnf(problem)
    residual = residual_of(problem)
    assert statement.cells == tuple(map(tuple, residual.cells().tolist()))  # the documented order
    assert reference_size(residual) == (statement.num_vars, len(statement.clauses))
    if residual.empty_line() is not None:
        assert () in statement.clauses and not naive_has_solution(n, queens)
        return
    solutions = set()
    for key in models(statement.clauses, statement.num_vars, statement.num_vars):
        full = dict(queens)
        full.update(statement.cells[v - 1] for v in key)
        cols = [full[r] for r in range(n)]
        assert naive_is_solution(n, cols, queens)
        solutions.add(tuple(cols))
    assert len(solutions) == naive_count(n, queens)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_every_search_encoding_of_the_residual_has_the_naive_solutions(encoding):
    from pysat.solvers import Solver

    for n, queens in [(6, []), (8, [(0, 3)]), (7, [(2, 2)]), (8, [(0, 0), (3, 4)])]:
        residual = residual_of(Problem(n, queens))
        formula = encode_residual(residual, encoding)
        cells = residual.cell_count
        if formula.clausal:
            found = models(formula.clauses(), formula.num_vars, cells)
        else:
            found = set()
            with Solver(name="minicard", bootstrap_with=formula.clauses()) as solver:
                for line in formula.atmosts():
                    solver.add_atmost(line, 1)
                while solver.solve():
                    key = tuple(v for v in solver.get_model()[:cells] if v > 0)
                    found.add(key)
                    solver.add_clause([-v for v in key])
        assert len(found) == naive_count(n, queens), (encoding, n, queens)


def test_the_statement_header_names_the_problem_and_the_variables():
    text = reference_cnf(Problem(6, [(0, 0)])).dimacs().decode()
    assert text.startswith(f"c nqcsp {VERSION}\nc n 6\nc queens 0,0\n")
    assert "c vars 1=1,2 2=1,3" in text


# --- the sat backend's UNSAT ---------------------------------------------------------------------------


def test_a_wrong_clause_in_the_fast_encoder_is_caught_never_unsat(monkeypatch):
    # Issue 11: one wrong clause in the encoder made a solvable n = 30 board "UNSAT, checked".
    queens = [(0, 7), (5, 1)]
    assert solve(30, queens, solver="sat").status is Status.SAT
    real = sat_backend.encode_residual

    def wrong(residual, encoding):
        formula = real(residual, encoding)
        first_row = formula.blocks[0][0]  # the at-least-one clause of some free row
        forbid = np.array([[-int(v)] for v in first_row if v], dtype=np.int64)
        return type(formula)(formula.n, formula.queens, formula.encoding, formula.num_vars,
                             (*formula.blocks, forbid), formula.atmost_lines, formula.cells)

    monkeypatch.setattr(sat_backend, "encode_residual", wrong)
    for options in ({}, {"encoding": "commander", "sat_solver": "glucose4"}):
        with pytest.raises(InternalSolverError, match="reference CNF"):
            solve(30, queens, solver="sat", **options)


def test_a_backend_certificate_claiming_a_checker_is_not_believed(monkeypatch):
    problem = Problem(6, [(0, 0)])
    bogus = drat_certificate(problem, reference_cnf(problem).dimacs(), "0\n", checked_by=("dratify",))

    def lying(self, problem, **kwargs):
        from nqcsp.board.result import Result

        return Result(problem, Status.UNSAT, "sat", certificate=bogus)

    monkeypatch.setattr(sat_backend.SatSolver, "solve", lying)
    result = solve(problem, solver="sat")
    assert not result.certificate.checked and "rejected" in result.certificate.details["unchecked"]
    # Even for a solvable board: the claim stays a claim, never a checked UNSAT.
    result = solve(8, [(0, 3)], solver="sat")
    assert not result.certificate.checked


def test_a_proof_of_another_cnf_is_not_checked():
    problem = Problem(6, [(0, 0)])
    statement, proof = refute(problem)
    assert check_drat(statement.clauses, proof, statement.num_vars).ok
    # A valid proof of the full-grid CNF, which is not the reference statement.
    from pysat.solvers import Solver

    grid = encode(problem, "commander")
    with Solver(name="cadical195", bootstrap_with=grid.clauses(), with_proof=True) as solver:
        assert solver.solve() is False
        grid_proof = "".join(line + "\n" for line in solver.get_proof())
    grid_cnf = clauses_dimacs(grid.clauses(), grid.num_vars).encode()
    assert check_drat(grid.clauses(), grid_proof, grid.num_vars).ok
    checked = recheck(problem, drat_certificate(problem, grid_cnf, grid_proof), Limits.unlimited())
    assert not checked.checked and "not the reference statement" in checked.details["unchecked"]
    # The reference with one clause changed (same size): refused before the proof is looked at.
    clauses = [list(c) for c in statement.clauses]
    clauses[3] = [-clauses[3][0], clauses[3][1]]
    altered = clauses_dimacs(clauses, statement.num_vars).encode()
    checked = recheck(problem, drat_certificate(problem, altered, proof), Limits.unlimited())
    assert not checked.checked and "not the reference statement" in checked.details["unchecked"]
    # The right statement of another problem.
    other = Problem(6, [(0, 1)])
    checked = recheck(other, drat_certificate(other, statement.dimacs(), proof), Limits.unlimited())
    assert not checked.checked
    good = recheck(problem, drat_certificate(problem, statement.dimacs(), proof), Limits.unlimited())
    assert good.checked_by in CHECKERS


# --- the two checker engines ----------------------------------------------------------------------------


def corruptions(proof):
    lines = proof.splitlines(keepends=True)
    yield "valid", proof
    yield "truncated", "".join(lines[: len(lines) // 2])
    yield "no empty clause", "".join(line for line in lines if line.strip() != "0")
    yield "bogus first lemma", "1 0\n" + proof
    yield "empty", ""
    yield "only the empty clause", "0\n"


@needs_native
def test_python_and_native_engines_agree_on_valid_and_corrupted_proofs():
    compared = 0
    for n, m, seed in [(6, 1, None), (30, 12, 2), (60, 32, 4), (120, 95, 3), (176, 146, 0)]:
        queens = [(0, 0)] if seed is None else random_completion(n, m, seed)
        problem = Problem(n, queens)
        if problem.attack is not None or residual_of(problem).empty_line() is not None:
            continue
        if solve(problem, solver="sat", proof=False).status is Status.SAT:
            continue
        statement, proof = refute(problem)
        # Some statements are refuted by unit propagation alone: then every proof is valid.
        trivial = check_drat(statement.clauses, "", statement.num_vars, engine="python").ok
        for label, text in corruptions(proof):
            python = check_drat(statement.clauses, text, statement.num_vars, engine="python")
            native = check_drat(statement.clauses, text, statement.num_vars, engine="native")
            assert python.ok == native.ok, (n, label, python.reason, native.reason)
            if label == "valid" or trivial:
                assert python.ok, (n, label)
            elif label != "bogus first lemma":  # "1 0" may be a RAT lemma; only agreement is required
                assert not python.ok, (n, label)
            compared += not trivial
    assert compared >= 12


ENGINES = ["python", pytest.param("native", marks=needs_native)]


def propagates_to_conflict(clauses, assumed) -> bool:
    """Naive unit propagation from the literals ``assumed``: whether it reaches a conflict."""
    true = set(assumed)
    if any(-lit in true for lit in true):
        return True
    changed = True
    while changed:
        changed = False
        for clause in clauses:
            if any(lit in true for lit in clause):
                continue
            open_literals = [lit for lit in clause if -lit not in true]
            if not open_literals:
                return True
            if len(open_literals) == 1:
                true.add(open_literals[0])
                changed = True
    return False


def neither_rup_nor_rat(clauses, lemma) -> bool:
    """Whether no DRAT checker may add ``lemma`` to ``clauses``: it is not RUP, and not RAT on any of its
    literals (checkers differ in which literal they take as the pivot)."""
    if propagates_to_conflict(clauses, [-lit for lit in lemma]):
        return False
    for pivot in lemma:
        partners = [clause for clause in clauses if -pivot in clause]
        if all(propagates_to_conflict(clauses, [-lit for lit in lemma] +
                                      [-lit for lit in clause if lit != -pivot]) for clause in partners):
            return False
    return True


@pytest.fixture(scope="module")
def hard_refutation():
    """A reference statement that unit propagation alone does not refute, cadical's proof of it, and a
    lemma that no checker may add first (the proof's first lemma with a literal flipped, checked naively)."""
    for n, m, seed in [(30, 12, 2), (60, 32, 4), (6, 1, None)]:
        problem = Problem(n, [(0, 0)] if seed is None else random_completion(n, m, seed))
        if problem.attack is not None or residual_of(problem).empty_line() is not None:
            continue
        if solve(problem, solver="sat", proof=False).status is Status.SAT:
            continue
        statement, proof = refute(problem)
        if propagates_to_conflict(statement.clauses, []):
            continue
        lemmas = [[int(x) for x in line.split()[:-1]] for line in proof.splitlines()
                  if line.strip() not in ("", "0") and not line.startswith("d ")]
        flipped = next(([*lemma[:k], -lemma[k], *lemma[k + 1:]] for lemma in lemmas for k in range(len(lemma))
                        if neither_rup_nor_rat(statement.clauses, [*lemma[:k], -lemma[k], *lemma[k + 1:]])),
                       None)
        if flipped is not None:
            return statement, proof, flipped
    pytest.fail("no UNSAT statement that needs a proof among the candidates")


def must_reject(proof: str, flipped: list[int]):
    """Tamperings that leave no valid proof of a statement that unit propagation does not refute."""
    lines = proof.splitlines(keepends=True)
    empty = [k for k, line in enumerate(lines) if line.strip() == "0"]
    without_empty = "".join(line for k, line in enumerate(lines) if k not in empty)
    yield "empty clause dropped", without_empty
    yield "truncated before the empty clause", "".join(lines[: empty[0] // 2])
    yield "empty clause moved first", "0\n" + without_empty
    yield "a lemma with a literal flipped, first", " ".join(map(str, flipped)) + " 0\n" + proof
    middle = len(lines) // 2
    yield "garbage bytes in a line", ("".join(lines[:middle]).encode() + b"12 \xff\xfe\x00 -3 0\n"
                                      + "".join(lines[middle:]).encode())
    yield "garbage text in a line", "".join(lines[:middle]) + "7 x 0\n" + "".join(lines[middle:])
    yield "binary garbage", bytes(range(256)) * 4


@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_rejects_each_tampering_class(hard_refutation, engine):
    statement, proof, flipped = hard_refutation
    assert check_drat(statement.clauses, proof, statement.num_vars, engine=engine).ok
    for label, text in must_reject(proof, flipped):
        verdict = check_drat(statement.clauses, text, statement.num_vars, engine=engine)
        assert not verdict.ok, (engine, label)
        assert verdict.stats.get("engine", engine) == engine


@needs_native
def test_native_engine_rejects_whatever_python_rejects_under_random_tampering(hard_refutation):
    """Dropped, swapped, flipped and cut lines at random: the engines agree on every mutant (a mutant may
    still be a valid proof: a lemma it dropped may not have been needed)."""
    import random

    statement, proof, _ = hard_refutation
    lines = proof.splitlines(keepends=True)
    rng = random.Random(24)
    rejected = 0
    for trial in range(120):
        mutant = list(lines)
        k = rng.randrange(len(mutant))
        kind = trial % 4
        if kind == 0:
            del mutant[k]
        elif kind == 1:
            j = rng.randrange(len(mutant))
            mutant[k], mutant[j] = mutant[j], mutant[k]
        elif kind == 2:
            literals = mutant[k].split()
            deletion = literals[:1] == ["d"]
            body = literals[1:-1] if deletion else literals[:-1]
            if not body:
                continue
            at = rng.randrange(len(body))
            body[at] = str(-int(body[at]))
            mutant[k] = " ".join((["d"] if deletion else []) + body + ["0"]) + "\n"
        else:
            cut = rng.randrange(len(proof))
            mutant = [proof[:cut]]
        text = "".join(mutant)
        python = check_drat(statement.clauses, text, statement.num_vars, engine="python")
        native = check_drat(statement.clauses, text, statement.num_vars, engine="native")
        assert python.ok == native.ok, (trial, kind, python.reason, native.reason)
        rejected += not python.ok
    assert rejected >= 20, "too few mutants were invalid: the comparison tested little"


def test_the_python_engine_always_works_and_names_itself():
    problem = Problem(6, [(0, 0)])
    statement, proof = refute(problem)
    verdict = check_drat(statement.clauses, proof, statement.num_vars, engine="python")
    assert verdict.ok and verdict.stats["engine"] == "python"
    with pytest.raises(ValueError, match="'rust'"):
        check_drat(statement.clauses, proof, statement.num_vars, engine="rust")


# --- deadlines ------------------------------------------------------------------------------------------


def test_a_check_that_cannot_end_in_time_is_killed_at_the_deadline(monkeypatch):
    def slow(*args, **kwargs):
        time.sleep(30)

    monkeypatch.setattr(nqcsp.proof.drat, "check_drat", slow)
    monkeypatch.setattr(nqcsp.proof.drat, "IN_PROCESS_S", 0.0)
    limits = Limits.start(0.5)
    with Stopwatch() as watch, pytest.raises(OutOfTime) as caught:
        check_within([[1], [-1]], "0\n", 1, limits, engine="python")
    assert watch.seconds < 1.0, watch
    assert caught.value.stage == "check"


def test_a_proof_too_big_for_the_time_left_is_refused_at_once():
    limits = Limits.start(0.5)
    with pytest.raises(OutOfTime, match="check"):
        check_within([[1], [-1]], "1 0\n" * 2_000_000, 1, limits, engine="python")


def test_a_checked_proof_in_a_child_process_gives_the_same_verdict(monkeypatch):
    monkeypatch.setattr(nqcsp.proof.drat, "IN_PROCESS_S", 0.0)
    statement, proof = refute(Problem(6, [(0, 0)]))
    for text, ok in ((proof, True), ("0\n", False)):
        verdict = check_within(statement.clauses, text, statement.num_vars, Limits.start(30), "python")
        assert verdict.ok is ok


@pytest.mark.parametrize("n, queens, limit", [(60, [(0, 20)], 1e-6), (400, [(3, 9)], 0.05),
                                              (2000, [(1000, 666)], 0.5)])
def test_sat_deadlines_name_the_stage(n, queens, limit):
    with Stopwatch() as watch:
        result = solve(n, queens, solver="sat", time_limit=limit, hint=False)
    assert watch.seconds < limit + max(0.1 * limit, 0.5), watch
    if result.status is Status.UNKNOWN:
        assert "time limit" in result.stats["reason"]
        assert result.stats["stage"] in ("residual", "build", "search", "prove")
    else:
        assert result.status is Status.SAT and naive_is_solution(n, result.columns.tolist(), queens)


def test_a_big_board_on_sat_returns_in_time():
    # Issue 11: 36 s and 7 GB with time_limit=2.
    with Stopwatch() as watch:
        result = solve(5000, [(2500, 1666)], solver="sat", time_limit=2)
    assert watch.seconds < 2.5, watch
    assert result.status is not Status.UNSAT
    if result.status is Status.UNKNOWN:
        assert result.stats["stage"] in ("residual", "build", "search")


def test_a_completion_at_n_1000_is_certified_fast():
    # Issue 12: 137 s and 11.8 GB; the residual board is 73 x 73.
    with Stopwatch() as watch:
        result = solve(1000, random_completion(1000, 927, 1), solver="sat", time_limit=5)
    assert watch.seconds < 5.5, watch
    assert result.status is Status.UNSAT and result.certificate.checked


# --- evidence a user can keep ---------------------------------------------------------------------------


def test_json_keeps_sizes_and_hashes_and_the_files_keep_the_bytes(tmp_path, capsys):
    import hashlib

    from nqcsp.cli import main as cli_main

    result = solve(6, [(0, 0)], solver="sat")
    certificate = result.certificate
    assert certificate.checked_by in CHECKERS
    assert isinstance(certificate.details["cnf"], bytes) and isinstance(certificate.details["proof"], bytes)
    document = certificate.to_json()
    for key in ("cnf", "proof"):
        data = certificate.details[key]
        assert document["details"][key] == {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    json.dumps(document)
    claim = {"solver": "sat", **certificate.details}
    nested = Certificate("agreement", ("sat", "cpsat"), {"claims": [claim]})
    proof_bytes = len(certificate.details["proof"])
    assert nested.to_json()["details"]["claims"][0]["proof"]["bytes"] == proof_bytes
    paths = write_certificate(nested, tmp_path)
    assert sorted(p.name for p in paths) == ["certificate.json", "proof.drat", "statement.cnf"]
    assert (tmp_path / "proof.drat").read_bytes() == certificate.details["proof"]
    assert (tmp_path / "statement.cnf").read_bytes() == certificate.details["cnf"]
    saved = json.loads((tmp_path / "certificate.json").read_text())
    assert saved["files"]["proof.drat"]["sha256"] == hashlib.sha256(certificate.details["proof"]).hexdigest()

    # One real process for the exit code, the other cases in this one.
    out = subprocess.run([sys.executable, "-m", "nqcsp", "check-proof", str(tmp_path / "statement.cnf"),
                          str(tmp_path / "proof.drat")], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and f"the {VERSION}" in out.stdout and "n=6 queens=0,0" in out.stdout

    def check(*args):
        code = cli_main(["check-proof", *args])
        return code, capsys.readouterr().out

    code, text = check("--engine", "python", str(tmp_path / "statement.cnf"), str(tmp_path / "proof.drat"))
    assert code == 0 and "dratify-python" in text
    (tmp_path / "short.drat").write_bytes(b"0\n")
    assert check(str(tmp_path / "statement.cnf"), str(tmp_path / "short.drat"))[0] == 1
    # The same clauses under a header naming another problem: valid proof, but not that problem's statement.
    other = (tmp_path / "statement.cnf").read_text().replace("c queens 0,0", "c queens 0,1")
    (tmp_path / "other.cnf").write_text(other)
    code, text = check(str(tmp_path / "other.cnf"), str(tmp_path / "proof.drat"))
    assert code == 1 and "NOT the reference CNF of n=6 queens=0,1" in text
    assert check("--any-cnf", str(tmp_path / "other.cnf"), str(tmp_path / "proof.drat"))[0] == 0
    # One added clause: the proof stays valid for that CNF, which is not the board's statement.
    lines = (tmp_path / "statement.cnf").read_text().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("p cnf"))
    _, _, variables, count = lines[header].split()
    lines[header] = f"p cnf {variables} {int(count) + 1}"
    (tmp_path / "extra.cnf").write_text("\n".join([*lines, "1 2 0"]) + "\n")
    code, text = check(str(tmp_path / "extra.cnf"), str(tmp_path / "proof.drat"))
    assert code == 1 and "NOT the reference CNF" in text and "not the reference statement" in text
    # A forged header naming a 3000-board above this small formula is refused from its size alone.
    forged = (tmp_path / "statement.cnf").read_text().replace("c n 6", "c n 3000")
    (tmp_path / "forged.cnf").write_text(forged)
    code, text = check(str(tmp_path / "forged.cnf"), str(tmp_path / "proof.drat"))
    assert code == 1 and "NOT the reference CNF of n=3000" in text


def test_export_writes_the_reference_statement(tmp_path):
    from nqcsp.cli import main as cli_main

    path = tmp_path / "s.cnf"
    assert cli_main(["export", "6", "--queen", "0,0", "--encoding", "reference", "-o", str(path)]) == 0
    assert path.read_bytes() == reference_cnf(Problem(6, [(0, 0)])).dimacs()
    assert cli_main(["export", "6", "--queen", "0,0", "--queen", "1,1", "--encoding", "reference"]) == 2
