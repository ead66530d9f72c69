"""The re-check of threshold evidence: which sets of k queens the witnesses cover (numba).

Shares no code with the sweep that found the witnesses (``queen_set_kernels``): a different index of the
sets, a different way to the symmetric images, nothing imported from it.

A set of k queens on distinct rows is named by its rows, a k-combination ``rows_of[j]`` of range(n) (in
lexicographic order), and its columns, k base-n digits. For one row combination at a time, every image of
every witness marks the column digits it places on those rows in a block of n^k bits; the block's count of
marked bits is how many sets with those rows some witness image contains.
"""

from __future__ import annotations

import math

import numpy as np

from nqcsp.runtime.jit import njit


def row_combinations(n: int, k: int) -> np.ndarray:
    """Every k-combination of range(n), ascending, in lexicographic order: shape (C(n, k), k)."""
    from itertools import combinations

    return np.array(list(combinations(range(n), k)), dtype=np.int64).reshape(math.comb(n, k), k)


def images(witnesses: np.ndarray) -> np.ndarray:
    """The 8 symmetric images of each solution (columns by row): shape (W, 8, n), uint8. The dihedral group
    as four quarter turns of the board and their mirror images: a quarter turn takes (r, c) to
    (c, n - 1 - r), a mirror (r, c) to (r, n - 1 - c)."""
    count, n = witnesses.shape
    out = np.empty((count, 8, n), dtype=np.uint8)
    rows = np.broadcast_to(np.arange(n), (count, n))
    cols = witnesses.astype(np.int64)
    picked = np.arange(count)[:, None]
    for turn in range(4):
        for mirrored in (False, True):
            c = n - 1 - cols if mirrored else cols
            image = np.empty((count, n), dtype=np.uint8)
            image[picked, rows] = c
            out[:, 2 * turn + int(mirrored)] = image
        # A quarter turn: the queen on (r, c) goes to (c, n - 1 - r), so row c takes column n - 1 - r.
        turned = np.empty_like(cols)
        turned[picked, cols] = n - 1 - rows
        cols = turned
    return out


@njit(cache=True, nogil=True)
def covered_sets(n, k, pictures, rows_of, lo, hi, block):
    """How many sets of k queens with rows ``rows_of[lo:hi]`` lie in some image of some witness
    (``pictures``: shape (W, 8, n)); ``block``: n^k bits of scratch."""
    total = 0
    for j in range(lo, hi):
        block[:] = 0
        for w in range(pictures.shape[0]):
            for s in range(8):
                index = 0
                for i in range(k):
                    index = index * n + pictures[w, s, rows_of[j, i]]
                block[index >> 3] |= np.uint8(1) << np.uint8(index & 7)
        for byte in range(block.shape[0]):
            value = block[byte]
            while value:
                value &= value - np.uint8(1)
                total += 1
    return total
