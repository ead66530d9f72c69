import random
import subprocess
import sys

import pytest
from naive import naive_count, naive_has_solution, naive_is_solution, naive_solutions

import nqcsp
from nqcsp import Problem, Status, count, solutions, solve
from nqcsp.bitboard.counting import subproblems
from nqcsp.runtime.limits import Limits
from nqcsp.solvers.backtrack import BacktrackSolver

A000170 = [1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596]


@pytest.mark.parametrize("n", range(1, 15))
def test_count_matches_oeis(n):
    assert count(n) == A000170[n - 1]


def test_empty_board_has_one_solution():
    assert count(0) == 1 and list(solutions(0)) == [()]


@pytest.mark.parametrize("n", range(1, 13))
def test_symmetry_reduced_and_plain_counts_agree(n):
    assert count(n) == count(n, symmetry=False)


@pytest.mark.parametrize("n", range(1, 9))
def test_counts_with_one_mandatory_queen_match_naive(n):
    rng = random.Random(n)
    cells = [(r, c) for r in range(n) for c in range(n)]
    for cell in rng.sample(cells, min(len(cells), 12)):
        assert count(n, [cell]) == naive_count(n, [cell]), cell
        assert count(n, [cell], symmetry=False) == naive_count(n, [cell]), cell


@pytest.mark.parametrize("n", range(2, 9))
def test_counts_with_mandatory_pairs_match_naive(n):
    rng = random.Random(100 + n)
    cells = [(r, c) for r in range(n) for c in range(n)]
    for _ in range(12):
        pair = rng.sample(cells, 2)   # pairs sharing a row or a line included: those count 0
        assert count(n, pair) == naive_count(n, pair), pair


@pytest.mark.parametrize("queens", [
    [(0, 3), (0, 4)],                 # mirror pair in one row: attack
    [(2, 1), (2, 6)],                 # mirror pair
    [(1, 2), (6, 2)],                 # symmetric under flipping rows
    [(1, 2), (2, 6), (6, 5), (5, 1)],  # invariant under quarter turns only
    [(3, 3), (4, 4)],
])
def test_symmetric_mandatory_sets_use_symmetry_and_stay_exact(queens):
    n = 8
    assert count(n, queens) == naive_count(n, queens) == count(n, queens, symmetry=False)


@pytest.mark.parametrize("n", [5, 7, 9, 11])
def test_centre_queen_counts_with_full_symmetry(n):
    centre = [(n // 2, n // 2)]
    assert count(n, centre) == naive_count(n, centre) == count(n, centre, symmetry=False)


def test_symmetry_used_only_when_mandatory_cells_allow_it():
    assert subproblems(Problem(8), True)[0] == "full"
    assert subproblems(Problem(8, [(2, 1), (2, 6)]), True)[0] == "mirror"
    assert subproblems(Problem(8, [(1, 2), (6, 2)]), True)[0] == "mirror"
    assert subproblems(Problem(9, [(4, 4)]), True)[0] == "full"      # the centre: kept by all 8
    assert subproblems(Problem(8, [(1, 2), (2, 6), (6, 5), (5, 1)]), True)[0] == "none"  # turns only
    assert subproblems(Problem(8, [(0, 3)]), True)[0] == "none"


def test_solutions_of_8_are_the_92_in_lexicographic_order():
    found = list(solutions(8))
    assert len(found) == 92 == len(set(found))
    assert all(naive_is_solution(8, cols) for cols in found)
    assert found == sorted(found) == list(naive_solutions(8))


@pytest.mark.parametrize("n, queens", [(6, [(0, 1)]), (7, [(3, 3)]), (8, [(0, 0), (7, 3)]), (5, [(0, 0)])])
def test_solutions_with_mandatory_queens_match_naive(n, queens):
    assert list(solutions(n, queens)) == list(naive_solutions(n, queens))


def test_solutions_stream_across_batches():
    # More solutions than one kernel batch holds: the resumed search must neither skip nor repeat.
    found = list(solutions(11))
    assert len(found) == A000170[10] == len(set(found)) and found == sorted(found)


def test_attacking_mandatory_queens_have_no_solutions():
    assert count(8, [(0, 0), (3, 3)]) == 0 and list(solutions(8, [(0, 0), (3, 3)])) == []
    assert count(8, [(2, 1), (2, 5)]) == 0


def test_boards_wider_than_the_bitboard_are_rejected():
    with pytest.raises(ValueError, match="65"):
        count(65)
    with pytest.raises(ValueError, match="65"):
        solutions(65)
    with pytest.raises(ValueError):
        count(-1)


def test_mandatory_queens_work_at_the_widest_board():
    # n = 64 exercises the top bit; with 60 queens fixed the rest is a small exact search.
    base = solve(64, solver="construct").column_tuple()
    queens = [(r, base[r]) for r in range(60)]
    assert count(64, queens) == naive_count(64, queens) >= 1
    assert list(solutions(64, queens)) == list(naive_solutions(64, queens))


def blockade_cells(n):
    return [(r, c) for r in range(n) for c in range(n) if not naive_has_solution(n, [(r, c)])]


@pytest.mark.parametrize("n", [4, 6])
def test_backend_unsat_on_blockades_confirmed_by_naive(n):
    blocked = blockade_cells(n)
    assert blocked
    for r in range(n):
        for c in range(n):
            result = solve(n, [(r, c)], solver="backtrack")
            claim = solve(n, [(r, c)], solver="backtrack", proof=False)
            assert result.solver == "backtrack"   # none of these cells is left to the pre-check
            if (r, c) in blocked:
                assert result.status is claim.status is Status.UNSAT
                # The search tree is the proof, checked by nqcsp.proof.lrat; without it, an unchecked claim
                # that names what it searched: the residual board and the nodes it took.
                assert result.certificate.kind == "lrat" and result.certificate.checked_by == ("nqcsp-lrat",)
                details = claim.certificate.details
                assert claim.certificate.kind == "exhaustive" and not claim.certificate.checked
                assert details["nodes"] >= 1
                assert details["free_rows"] == [row for row in range(n) if row != r]
                assert details["free_cols"] == [col for col in range(n) if col != c]
            else:
                assert result.status is Status.SAT
                assert naive_is_solution(n, result.column_tuple(), [(r, c)])


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 12, 20, 30, 40, 64])
def test_backend_answers_plain_boards(n):
    result = solve(n, solver="backtrack")
    assert result.status is (Status.UNSAT if n in (2, 3) else Status.SAT)
    if result.status is Status.SAT:
        assert naive_is_solution(n, result.column_tuple())
    else:
        assert not naive_has_solution(n) and result.certificate.kind == "lrat"
        assert result.certificate.checked_by == ("nqcsp-lrat",)


def test_backend_random_mandatory_queens_agree_with_naive():
    rng = random.Random(7)
    for _ in range(40):
        n = rng.randint(4, 8)
        queens = [(rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(1, 3))]
        result = solve(n, queens, solver="backtrack")
        assert (result.status is Status.SAT) == naive_has_solution(n, queens), (n, queens)
        if result.status is Status.SAT:
            assert naive_is_solution(n, result.column_tuple(), queens)
        else:
            assert result.status is Status.UNSAT and result.certificate is not None


def test_backend_gives_up_above_its_largest_residual_and_rejects_options():
    limit = {s.name: s for s in nqcsp.available_solvers()}["backtrack"].max_free
    result = BacktrackSolver().solve(Problem(limit + 1), limits=Limits.unlimited())
    assert result.status is Status.UNKNOWN and str(limit + 1) in result.stats["reason"]
    with pytest.raises(TypeError, match="bogus"):
        solve(8, solver="backtrack", bogus=1)


def test_backend_time_limit_gives_unknown():
    # The limit runs out before the first chunk of nodes: the backend must say UNKNOWN, not guess.
    result = BacktrackSolver().solve(Problem(44, [(0, 1), (1, 3), (2, 0)]), limits=Limits.start(1e-6))
    assert result.status is Status.UNKNOWN and result.stats["stage"] == "search"
    assert "time limit" in result.stats["reason"] and "search" in result.stats["reason"]


def test_backend_is_registered_as_complete():
    info = {s.name: s for s in nqcsp.available_solvers()}["backtrack"]
    assert info.complete and info.installed


def test_import_stays_free_of_numba():
    code = "import sys, nqcsp; nqcsp.count; sys.exit('numba' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def cli(*args):
    return subprocess.run([sys.executable, "-m", "nqcsp", *args], capture_output=True, text=True, timeout=120)


# One subprocess per test: each loads numba, which takes seconds on a busy machine.
def test_cli_count():
    out = cli("count", "8", "--queen", "0,3")
    assert out.returncode == 0 and int(out.stdout) == naive_count(8, [(0, 3)])


def test_cli_solutions():
    out = cli("solutions", "8", "--limit", "5")
    lines = [tuple(map(int, line.split())) for line in out.stdout.splitlines()]
    assert out.returncode == 0 and lines == list(naive_solutions(8))[:5]


def test_cli_count_rejects_boards_wider_than_the_bitboard():
    bad = cli("count", "70")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "70" in bad.stderr
