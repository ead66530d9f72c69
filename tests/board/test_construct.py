import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import naive_is_solution

from nqcsp import Problem, Status, solve, verify
from nqcsp.board.construction import (
    closed_form,
    composed,
    composition_factors,
    modular,
    near_solution,
    padded,
    padding_origin,
    swap_in,
)
from nqcsp.board.symmetry import SYMMETRIES, covers, transform
from nqcsp.runtime.limits import Limits
from nqcsp.solvers.construct import ConstructSolver

SIZES = [1] + list(range(4, 301))


@pytest.mark.parametrize("n", SIZES)
def test_closed_form_and_every_symmetry_pass_the_naive_checker(n):
    base = closed_form(n)
    for symmetry in SYMMETRIES:
        image = transform(base, symmetry)
        assert naive_is_solution(n, image.tolist()), (n, symmetry)
        # `covers` must agree with the image it predicts, cell by cell.
        assert all(covers(base, symmetry, (r, int(c))) for r, c in enumerate(image))


# Every shift of every n coprime with 6 up to 300 (O(n^3) in plain Python each): past 100 in the slow run.
@pytest.mark.parametrize("n", [n if n <= 100 else pytest.param(n, marks=pytest.mark.slow)
                               for n in range(1, 301) if math.gcd(n, 6) == 1])
def test_every_modular_shift_passes_the_naive_checker(n):
    for shift in range(n):
        assert naive_is_solution(n, modular(n, shift).tolist()), (n, shift)


@pytest.mark.parametrize("shift", [0, 1, 12, 13, -5, 10**12])
def test_modular_is_written_in_chunks_without_a_whole_board_temporary(monkeypatch, shift):
    # At n = 10^9 it built the board in int64 (2r + shift overflows int32 from n = 2^30 on) and then an
    # int32 copy: 12 GB at the peak. Chunks of 7 rows here cross every kind of boundary.
    import tracemalloc

    import nqcsp.board.construction as construction

    monkeypatch.setattr(construction, "_MODULAR_CHUNK", 7)
    for n in (1, 6, 7, 8, 13, 14, 15, 50, 101):
        cols = modular(n, shift)
        assert cols.dtype == closed_form(max(n, 4)).dtype
        assert cols.tolist() == [(2 * row + shift) % n for row in range(n)], (n, shift)
    # Its temporaries are a few chunks of int64, small beside the board (4 MB here).
    monkeypatch.undo()
    n = 10**6 + 1
    tracemalloc.start()
    try:
        cols = modular(n, shift)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= cols.nbytes + 2**21
    assert np.array_equal(cols[:: 9973], (2 * np.arange(0, n, 9973, dtype=np.int64) + shift) % n)


@pytest.mark.parametrize("n", [5, 7, 11, 13, 25])
def test_gcd_one_reaches_every_cell(n):
    for r in range(n):
        for c in range(n):
            result = solve(n, [(r, c)], solver="construct")
            assert result.status is Status.SAT
            assert naive_is_solution(n, result.columns.tolist(), [(r, c)])


@pytest.mark.parametrize("n", [4, 6, 8, 10, 12, 30])
def test_one_mandatory_queen_sat_answers_are_right_or_unknown(n):
    found = 0
    for r in range(n):
        for c in range(n):
            result = ConstructSolver().solve(Problem(n, [(r, c)]), limits=Limits.unlimited())
            assert result.status in (Status.SAT, Status.UNKNOWN)
            if result.status is Status.SAT:
                found += 1
                assert naive_is_solution(n, result.columns.tolist(), [(r, c)])
    assert found >= n  # at least the base solution's own cells


def test_small_boards_without_a_construction_are_unknown():
    for n in (2, 3):
        assert solve(n, solver="construct").status is Status.UNKNOWN


def test_huge_board_is_constructed_and_verified():
    n = 10**7
    result = solve(n, solver="construct")
    assert result.status is Status.SAT and len(result.columns) == n
    assert verify(n, result.columns)
    assert result.columns.dtype == np.int32 and not result.columns.flags.writeable


def test_unknown_options_are_rejected():
    with pytest.raises(TypeError, match="bogus"):
        solve(8, solver="construct", bogus=1)


def _holds_the_placeable_queens(cols: list[int], queens: np.ndarray) -> set[int]:
    """Checks that ``cols`` is a permutation holding each queen whose row and column no earlier queen
    took; returns the queens' rows."""
    assert sorted(cols) == list(range(len(cols)))
    taken_rows, taken_cols = set(), set()
    for row, col in queens.tolist():
        if row not in taken_rows and col not in taken_cols:
            assert cols[row] == col
        taken_rows.add(row)
        taken_cols.add(col)
    return taken_rows


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_near_solution_is_a_permutation_holding_the_mandatory_queens(data):
    """Any cells, attacking ones included: a permutation, each queen placed unless an earlier one (in
    the problem's sorted order) holds its row or column; only queens moved for them can attack."""
    n = data.draw(st.integers(1, 60), label="n")
    # Up to 2 queens are searched for by comparison, more through a table: both paths.
    cells = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=14,
                               unique=True), label="cells")
    queens = Problem(n, cells).queen_array
    cols = near_solution(n, queens).tolist()
    _holds_the_placeable_queens(cols, queens)
    if n >= 4:
        base = closed_form(n).tolist()
        moved = sum(a != b for a, b in zip(cols, base, strict=True))
        assert moved <= 2 * len(cells)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_swap_in_changes_any_permutation_only_where_the_mandatory_queens_need_it(data):
    """The swap on a composed start (not the closed form): in place, a permutation again, each queen
    placed unless an earlier one holds its row or column, and only the queens' rows and the rows that
    held their columns changed."""
    n = data.draw(st.integers(1, 60), label="n")
    base = data.draw(st.permutations(range(n)), label="base")
    cells = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=14,
                               unique=True), label="cells")
    queens = Problem(n, cells).queen_array
    board = np.array(base, dtype=np.int32)
    assert swap_in(board, queens) is board
    cols = board.tolist()
    taken_rows = _holds_the_placeable_queens(cols, queens)
    holders = {base.index(col) for _, col in cells}
    changed = {row for row in range(n) if cols[row] != base[row]}
    assert changed <= taken_rows | holders


def test_swap_in_leaves_a_board_that_holds_its_queens_untouched():
    # The one-queen composition holds its queen already; the swap used to scan the whole board for it
    # anyway (about 1 s at 10^9) and write it back. A read-only board shows that it is now left alone.
    board = composed(np.array([1, 3, 0, 2]), 5, (7, 16))
    board.flags.writeable = False
    assert swap_in(board, np.array([[7, 16]])) is board
    assert swap_in(board, np.array([[7, 16], [0, int(board[0])]])) is board


@pytest.mark.parametrize("n", range(1, 400))
def test_composition_factors_are_every_split_composed_can_use(n):
    expected = [(outer, n // outer) for outer in range(1, n + 1)
                if n % outer == 0 and outer not in (2, 3) and n // outer > 1 and math.gcd(n // outer, 6) == 1]
    assert composition_factors(n) == expected


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_a_composed_board_is_a_solution_holding_its_cell(data):
    """Any split of n, any cell: the outer board is a solution found for the cell's block by the
    backtracker (None: the block has none), and the composed board passes the naive checker."""
    n = data.draw(st.sampled_from([n for n in range(5, 180) if composition_factors(n)]), label="n")
    outer, inner = data.draw(st.sampled_from(composition_factors(n)), label="split")
    cell = (data.draw(st.integers(0, n - 1), label="row"), data.draw(st.integers(0, n - 1), label="col"))
    block = (cell[0] // inner, cell[1] // inner)
    blocks = solve(outer, [block], solver="backtrack")
    if blocks.status is Status.UNSAT:
        return
    assert blocks.status is Status.SAT
    cols = composed(blocks.columns, inner, cell)
    assert naive_is_solution(n, cols.tolist(), [cell])
    assert cols.dtype == closed_form(n).dtype


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_a_padded_board_attacks_only_across_its_corner(data):
    """A composition of m on the corner holding the cell and k = n - m queens on the opposite corner:
    a permutation holding the cell, the composition's queens attack none of each other, and of them
    only those on the 2k - 1 lines through the k x k corner are attacked (one per line at most)."""
    m = data.draw(st.sampled_from([m for m in range(5, 120) if composition_factors(m)]), label="m")
    outer, inner = data.draw(st.sampled_from(composition_factors(m)), label="split")
    n = m + data.draw(st.sampled_from([k for k in range(1, min(9, m - 1) + 1) if k not in (2, 3)]), label="k")
    k = n - m
    cell = (data.draw(st.integers(0, n - 1), label="row"), data.draw(st.integers(0, n - 1), label="col"))
    top, left = padding_origin(n, m, cell)
    inside = (cell[0] - top, cell[1] - left)
    assert 0 <= inside[0] < m and 0 <= inside[1] < m
    blocks = solve(outer, [(inside[0] // inner, inside[1] // inner)], solver="backtrack")
    if blocks.status is Status.UNSAT:
        return
    assert blocks.status is Status.SAT
    cols = padded(blocks.columns, inner, cell, n).tolist()
    assert sorted(cols) == list(range(n)) and cols[cell[0]] == cell[1]
    corner_rows = set(range(m, n) if top == 0 else range(k))
    attacked = {row for row in range(n) for other in range(n)
                if row != other and abs(cols[row] - cols[other]) == abs(row - other)}
    composition_attacked = attacked - corner_rows
    assert len(composition_attacked) <= 2 * k - 1
    for row in composition_attacked:
        # Its diagonal of the family that crosses the corner meets the corner square.
        line = row - cols[row] if top == left else row + cols[row]
        corner = [(r, c) for r in corner_rows for c in (range(m, n) if left == 0 else range(k))]
        assert any((r - c if top == left else r + c) == line for r, c in corner)
    composition = [(row, cols[row]) for row in range(n) if row not in corner_rows]
    assert naive_is_solution(m, [c - left for _, c in composition])


def test_a_padding_needs_a_corner_with_a_solution_of_its_own():
    outer = np.array([1, 3, 0, 2])
    assert padded(outer, 5, (0, 5), 21)[0] == 5
    for n in (20, 22, 23, 40):
        with pytest.raises(ValueError, match=rf"padding of {n - 20} queens"):
            padded(outer, 5, (0, 5), n)


def test_a_composition_needs_an_outer_board_holding_the_cells_block():
    with pytest.raises(ValueError, match=r"\(7, 2\)"):
        composed(np.array([1, 3, 0, 2]), 5, (7, 2))   # block (1, 0): the outer board's row 1 is on 3
