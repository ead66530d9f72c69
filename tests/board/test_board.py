import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nqcsp import parse_board, render_board, solve
from nqcsp.board.text import format_columns, parse_columns, render_cells

EXAMPLE = "...Q....\n......Q.\n..Q.....\n.......Q\n.Q......\n....Q...\nQ.......\n.....Q..\n"


def test_design_example_round_trips():
    n, cells = parse_board(EXAMPLE)
    assert n == 8
    cols = [c for _, c in sorted(cells)]
    assert render_board(cols) == EXAMPLE


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 30).flatmap(lambda n: st.permutations(list(range(n)))))
def test_board_text_round_trips(cols):
    text = render_board(cols)
    assert all(len(line) == len(cols) for line in text.splitlines())
    n, cells = parse_board(text)
    assert n == len(cols)
    assert cells == list(enumerate(cols))


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 12).flatmap(
    lambda n: st.tuples(st.just(n), st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))))))
def test_partial_boards_round_trip(case):
    n, cells = case
    assert parse_board(render_cells(n, cells)) == (n, sorted(cells))


def test_columns_round_trip():
    cols = solve(1000).columns
    assert (parse_columns("".join(format_columns(cols, chunk=77))) == cols).all()


def test_result_board_matches_columns():
    result = solve(8, [(0, 3)])
    board = result.board()
    assert board.splitlines()[0] == "...Q...."
    assert parse_board(board)[1] == list(enumerate(result.column_tuple()))


@pytest.mark.parametrize("columns", [[5, 0], [-1, 0], [2**64, 0]])
def test_a_column_off_the_board_is_a_value_error(columns):
    with pytest.raises(ValueError, match="board"):
        render_board(columns)


@given(st.lists(st.integers(-(2**63) + 1, 2**63 - 1), max_size=50))
@settings(max_examples=60, deadline=None)
def test_columns_text_of_the_kernel_equals_pythons(values):
    from nqcsp.board.text import column_text_chunks

    array = np.array(values, dtype=np.int64)
    expected = "".join(f"{v}\n" for v in values).encode("ascii")
    assert b"".join(column_text_chunks(array)) == expected
    # Force the kernel on small input too (it takes over from 2^16 columns).
    import nqcsp.board.text

    original = nqcsp.board.text.KERNEL_FROM
    nqcsp.board.text.KERNEL_FROM = 0
    try:
        assert b"".join(column_text_chunks(array, chunk=7)) == expected
    finally:
        nqcsp.board.text.KERNEL_FROM = original
