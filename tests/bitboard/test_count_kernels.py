"""The counting kernel against plain Python: every prefix length (prefixes ending near the bottom take
their own paths through the kernel, longer ones its stack loop), with and without mandatory queens, on
plain boards and on the symmetry-class slices whose leaves are weighed by their orbits."""

import numpy as np
import pytest
from naive import naive_count, naive_unique

from nqcsp import Problem
from nqcsp.bitboard import kernels
from nqcsp.bitboard.counting import allowed_masks, required_masks, subproblems


def python_prefixes(n, allowed, depth):
    """Every placement of the first ``depth`` rows on cells ``allowed`` with no two queens attacking."""
    found = []

    def place(cols):
        if len(cols) == depth:
            found.append(list(cols))
            return
        row = len(cols)
        for col in range(n):
            if int(allowed[row]) >> col & 1 and all(
                    col != c and abs(col - c) != row - r for r, c in enumerate(cols)):
                place(cols + [col])

    place([])
    return found


def python_completions(n, allowed, prefix):
    """Boards on cells ``allowed`` extending ``prefix`` (itself held to the same rules), by recursion with
    no bit tricks and no pruning."""
    def place(cols):
        row = len(cols)
        if row == n:
            return 1
        choices = [prefix[row]] if row < len(prefix) else range(n)
        return sum(place(cols + [col]) for col in choices
                   if int(allowed[row]) >> col & 1
                   and all(col != c and abs(col - c) != row - r for r, c in enumerate(cols)))

    return place([])


def kernel_count(n, allowed, prefix, edge=0):
    required = required_masks(allowed)
    return kernels.count_completions(n, allowed, required, np.array(prefix, dtype=np.int64).reshape(-1), edge)


BOARDS = [(4, ()), (5, ()), (6, ()), (7, ()), (8, ()), (8, [(2, 5)]), (9, [(0, 4)]), (9, [(3, 3), (6, 1)]),
          (8, [(1, 2), (5, 7)]), (7, [(0, 0), (1, 1)])]


@pytest.mark.parametrize("n, queens", BOARDS)
def test_every_prefix_depth_matches_python(n, queens):
    allowed = allowed_masks(Problem(n, queens))
    for depth in range(n + 1):
        prefixes = python_prefixes(n, allowed, depth)
        total = 0
        for prefix in prefixes:
            weight, leaves = kernel_count(n, allowed, prefix)
            assert weight == leaves == python_completions(n, allowed, prefix), (depth, prefix)
            total += weight
        assert total == naive_count(n, queens), depth


@pytest.mark.parametrize("n", [7, 8, 9])
def test_prefixes_that_break_a_rule_count_nothing(n):
    allowed = allowed_masks(Problem(n, [(1, 3)]))
    for prefix in ([0, 1], [2, 2], [0, 4], [0, 3, 2], [5, 3, 0, 6, 2, 4]):
        assert python_completions(n, allowed, prefix[:n]) == 0
        assert kernel_count(n, allowed, prefix[:n]) == (0, 0)


@pytest.mark.parametrize("n", [5, 6, 7, 8, 9, 10])
def test_symmetry_slices_at_every_prefix_depth_give_the_count_and_the_classes(n):
    """The orbit check recovers each row's queen from the stack: at every depth of the prefix the slices'
    weighed leaves add up to all solutions, and their leaves to the symmetry classes."""
    kind, slices = subproblems(Problem(n))
    assert kind == "full"
    expected_count, expected_classes = naive_count(n), naive_unique(n)
    for depth in range(n + 1):
        total = classes = 0
        for piece in slices:
            for prefix in python_prefixes(n, piece.allowed, depth):
                weight, leaves = kernel_count(n, piece.allowed, prefix, piece.edge)
                total += weight * piece.weight
                classes += leaves
        assert (total, classes) == (expected_count, expected_classes), depth
