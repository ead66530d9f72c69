"""Permutations as differences of their lexicographic ranks: ranks against itertools' order (the oracle:
the i-th permutation in lexicographic order has rank i), round trips on boards up to 64, and refusals."""

import itertools
import math

import numpy as np
import pytest

from nqcsp.bitboard.permutation_ranks import decode, encode, rank_bytes


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_every_permutation_in_order_is_one_rank_after_the_last(n):
    rows = np.array(list(itertools.permutations(range(n))), dtype=np.int64).reshape(-1, n)
    data = encode(rows)
    width = rank_bytes(n)
    gaps = [int.from_bytes(data[i:i + width], "big") for i in range(0, len(data), width)]
    assert gaps == [0] + [1] * (math.factorial(n) - 1)
    decoded, wrong = decode(data, len(rows), n)
    assert wrong is None and np.array_equal(decoded, rows)


@pytest.mark.parametrize("n", [7, 20, 21, 24, 26, 40, 64])
def test_random_permutations_round_trip(n):
    rng = np.random.default_rng(n)
    rows = np.unique(np.array([rng.permutation(n) for _ in range(300)]), axis=0)
    data = encode(rows)
    assert len(data) == len(rows) * rank_bytes(n)
    assert rank_bytes(n) * 8 >= (math.factorial(n) - 1).bit_length()
    first = sum(d * math.factorial(n - 1 - i) for i, d in
                enumerate(sum(1 for later in rows[0][i + 1:] if later < rows[0][i]) for i in range(n)))
    assert int.from_bytes(data[:rank_bytes(n)], "big") == first
    decoded, wrong = decode(data, len(rows), n)
    assert wrong is None and np.array_equal(decoded, rows)


def test_unsorted_or_repeated_rows_and_bad_data_are_refused():
    rows = np.array(list(itertools.permutations(range(4))))
    with pytest.raises(ValueError, match="sorted and distinct"):
        encode(rows[::-1])
    with pytest.raises(ValueError, match="sorted and distinct"):
        encode(rows[[0, 0]])
    assert "not count x" in decode(b"\x00" * 3, 2, 4)[1]
    assert "beyond 4! - 1" in decode(bytes([24]), 1, 4)[1]
    assert "repeats" in decode(bytes([3, 0]), 2, 4)[1]
