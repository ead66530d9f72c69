"""The residual engine behind ``backtrack``: brute force on every cell, pair and random triple of small
boards, completion instances cross-checked with CP-SAT, multi-word boards, deadline and memory."""

import itertools
import random

import pytest
from naive import naive_has_solution, naive_is_solution

from nqcsp import Problem, Status, random_completion, solve, verify
from nqcsp.bitboard.residual_search import first_solution, state_bytes, words_for
from nqcsp.board.construction import closed_form
from nqcsp.board.residual import residual_of
from nqcsp.proof.certify import recheck
from nqcsp.runtime.limits import Limits
from nqcsp.solvers.backtrack import BacktrackSolver

SOLVER = BacktrackSolver()


def backend(problem):
    """The backend itself: no trivial answer in front of it, so empty lines reach the search too."""
    return SOLVER.solve(problem, limits=Limits.unlimited())


def check_against_naive(n, queens):
    result = backend(Problem(n, queens))
    if naive_has_solution(n, queens):
        assert result.status is Status.SAT, (n, queens)
        assert naive_is_solution(n, result.columns.tolist(), queens), (n, queens)
    else:
        assert result.status is Status.UNSAT, (n, queens)
        assert result.certificate is not None and not result.certificate.checked
        assert result.certificate.kind in ("lrat", "attack")
        if result.certificate.kind == "lrat":
            # The search's own proof, checked from the problem alone by the independent LRAT checker.
            checked = recheck(Problem(n, queens), result.certificate, Limits.unlimited())
            assert checked.checked_by == ("nqcsp-lrat",), checked.details.get("unchecked")
    return result


@pytest.mark.parametrize("n", range(1, 9))
def test_every_cell_agrees_with_brute_force(n):
    for cell in itertools.product(range(n), repeat=2):
        check_against_naive(n, [cell])


@pytest.mark.parametrize("n, first_row", [(n, row) for n in range(2, 8) for row in range(n)])
def test_every_pair_agrees_with_brute_force(n, first_row):
    cells = list(itertools.product(range(n), repeat=2))
    for pair in itertools.combinations(cells, 2):
        if pair[0][0] == first_row:
            check_against_naive(n, list(pair))


@pytest.mark.parametrize("n", range(3, 10))
def test_random_triples_agree_with_brute_force(n):
    rng = random.Random(1000 + n)
    cells = list(itertools.product(range(n), repeat=2))
    for _ in range(150 if n <= 7 else 60):
        check_against_naive(n, rng.sample(cells, 3))


def test_exhaustive_certificate_names_the_residual_board():
    problem = Problem(8, [(0, 0), (1, 2)])   # no completion, and no empty free line
    assert residual_of(problem).empty_line() is None and not naive_has_solution(8, problem.queens)
    result = SOLVER.solve(problem, limits=Limits.unlimited(), proof=False)
    assert result.status is Status.UNSAT and result.certificate.kind == "exhaustive"
    details = result.certificate.details
    assert details["free_rows"] == list(range(2, 8)) and details["free_cols"] == [1, 3, 4, 5, 6, 7]
    assert details["cells"] == residual_of(problem).cell_count and details["nodes"] >= 1


@pytest.fixture(scope="module")
def cpsat_ready():
    """CP-SAT loaded once, outside the timed tests (its import takes seconds)."""
    pytest.importorskip("ortools")
    solve(8, solver="cpsat")


# Near the hardness peak n ~ 0.19 (n - m)^2, where about half are solvable.
@pytest.mark.parametrize("n, m", [(19, 9), (27, 15), (48, 32), (76, 56), (120, 95)])
def test_completions_agree_with_cpsat(n, m, cpsat_ready):
    statuses = set()
    for seed in range(8):
        queens = random_completion(n, m, seed)
        mine = solve(n, queens, solver="backtrack")
        other = solve(n, queens, solver="cpsat")
        assert mine.status is other.status, (n, m, seed)
        if mine.status is Status.SAT:
            assert naive_is_solution(n, mine.columns.tolist(), queens)
        statuses.add(mine.status)
    assert Status.UNKNOWN not in statuses


@pytest.mark.parametrize("n, m, seeds", [(200, 120, range(3)), (300, 160, range(2))])
def test_multi_word_residuals_solve(n, m, seeds, cpsat_ready):
    # 80 and 140 free lines: two and three words per line, columns spread over the whole board.
    for seed in seeds:
        queens = random_completion(n, m, seed)
        result = backend(Problem(n, queens))
        assert words_for(n - m) >= 2
        if result.status is Status.SAT:
            assert naive_is_solution(n, result.columns.tolist(), queens)
        else:
            other = solve(n, queens, solver="cpsat", time_limit=30)
            assert result.status is Status.UNSAT and other.status is Status.UNSAT


@pytest.mark.parametrize("n", [65, 100, 129, 200])
def test_plain_boards_wider_than_one_word(n):
    result = solve(n, solver="backtrack")
    assert result.status is Status.SAT and naive_is_solution(n, result.columns.tolist())


def test_search_agrees_in_every_value_order():
    # The value order changes the path, never the answer.
    rng = random.Random(5)
    for _ in range(40):
        n = rng.randint(5, 9)
        queens = rng.sample(list(itertools.product(range(n), repeat=2)), rng.randint(1, 3))
        problem = Problem(n, queens)
        if problem.attack is not None:
            continue
        found = {first_solution(residual_of(problem), Limits.unlimited(), order).solution is not None
                 for order in (0, 1, 2)}
        assert found == {naive_has_solution(n, queens)}


def test_big_board_with_few_free_rows():
    # 9,960 queens of a known solution (random completions this dense always leave an empty line, which
    # the pre-check answers before the search): solvable, so the search itself must find a completion.
    n = 10_000
    base = closed_form(n)
    kept = sorted(random.Random(3).sample(range(n), n - 40))
    queens = [(r, int(base[r])) for r in kept]
    assert residual_of(Problem(n, queens)).empty_line() is None
    result = solve(n, queens, solver="backtrack", time_limit=20)
    assert result.status is Status.SAT and result.solver == "backtrack"
    assert verify(n, result.columns, queens)   # the independent checker (naive is O(n^2) here)


def test_deadline_gives_unknown_naming_the_search():
    result = solve(44, [(0, 1), (1, 3), (2, 0)], solver="backtrack", time_limit=1e-6)
    assert result.status is Status.UNKNOWN
    assert result.stats["stage"] == "search" and "time limit" in result.stats["reason"]


def test_memory_limit_gives_unknown_naming_the_size():
    assert state_bytes(150, 150) > 1 << 20
    result = solve(150, solver="backtrack", memory_limit=1 << 20)
    assert result.status is Status.UNKNOWN and result.stats["stage"] == "search"
    assert "MiB" in result.stats["reason"] and "150 free lines" in result.stats["reason"]


def test_multi_word_unsat_agrees_with_cpsat_and_the_transposed_board(cpsat_ready):
    # 66 free lines (two words each), no empty line: the search itself proves it, CP-SAT agrees, and so
    # does the engine on the transposed board (rows and columns swap roles in the bit-sets).
    n = 1200
    queens = random_completion(n, n - 66, 4)
    problem = Problem(n, queens)
    assert residual_of(problem).empty_line() is None
    result = backend(problem)
    assert result.status is Status.UNSAT and result.certificate.details["nodes"] >= 1
    # Its proof spans two-word bit-sets and still checks.
    assert recheck(problem, result.certificate, Limits.unlimited()).checked_by == ("nqcsp-lrat",)
    assert solve(n, queens, solver="cpsat", time_limit=30).status is Status.UNSAT
    assert backend(Problem(n, [(c, r) for r, c in queens])).status is Status.UNSAT


def test_narrow_and_wide_kernels_walk_the_same_tree_and_both_proofs_check(monkeypatch):
    # The one-word kernel (k <= 64) is the wide kernel's tree with precomputed diagonals: same nodes,
    # same answer, and proofs that nqcsp.proof.lrat accepts from each; forced levels write no lemma of
    # their own.
    from nqcsp.bitboard import residual_search
    from nqcsp.bitboard.residual_proof import proof_tables
    from nqcsp.proof import lrat
    from nqcsp.proof.statement import reference_cnf

    rng = random.Random(11)
    exhausted = 0
    for _ in range(30):
        n = rng.randint(8, 40)
        problem = Problem(n, random_completion(n, rng.randint(n // 3, n - 4), rng.randint(0, 10 ** 6)))
        residual = residual_of(problem)
        if residual.size == 0:
            continue
        statement = reference_cnf(problem)
        tables = proof_tables(residual, statement)
        outcomes = {}
        for narrow in (64, 0):
            monkeypatch.setattr(residual_search, "NARROW", narrow)
            proof = bytearray()
            found = first_solution(residual, Limits.unlimited(), proof=tables,
                                   sink=lambda chunk, proof=proof: proof.extend(chunk) or True)
            outcomes[narrow] = (found.nodes, found.exhausted, found.solution is not None)
            if found.solution is not None:
                assert naive_is_solution(n, found.solution.tolist(), problem.queens)
            else:
                assert found.exhausted
                verdict = lrat.check_lrat(statement.dimacs(), proof)
                assert verdict.ok, verdict.reason
                assert verdict.stats["lemmas"] <= found.nodes + 1
                if n <= 10:
                    assert not naive_has_solution(n, problem.queens)
        assert outcomes[64] == outcomes[0]
        exhausted += outcomes[64][1]
    assert exhausted >= 5
