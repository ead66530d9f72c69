"""The re-check of threshold evidence: which sets of k queens the witnesses cover, and how many sets there
are (numba).

Shares no code with the sweeps that found the witnesses (``queen_set_kernels``, ``row_sweep_kernels``):
its own index of the sets, its own way to the symmetric images, nothing imported from them.

A set of k queens on distinct rows is named by its rows, a k-combination of range(n), and its columns, k
base-n digits (``index``). Two symmetries keep the rows of a set or mirror them, and they are used here:
- the column mirror c -> n - 1 - c keeps the rows and takes ``index`` to ``n ** k - 1 - index``: each pair
  is marked once, as the smaller index, and counted twice (once when the tuple is its own mirror, which
  only a single queen in the middle column of an odd board is);
- the row mirror r -> n - 1 - r takes the sets on rows R to those on the mirrored rows, so only the
  combinations R up to their mirror are marked, those with a distinct mirror counted twice.
The 8 images of a witness are its 4 quarter turns and their column mirrors, so marking the turns' tuples
as the smaller of each pair marks every image. The sets are counted on their own, as cliques of the
board's non-attack graph over cells in row-major order, with a bit per cell (``count_cliques``).
"""

from __future__ import annotations

import numpy as np

from nqcsp.runtime.jit import njit

# Witnesses whose tuples covered_sets computes before it sets their bits (vectorised by the compiler).
CHUNK = 2048
# Witnesses turned at a time by quarter_turns.
TURN_PIECE = 1 << 18


def mirrored_row_combinations(n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k-combinations R of range(n) up to their row mirror (R <= sorted(n - 1 - R)), ascending, with
    their weights: 2 when the mirror is another combination, 1 when it is R itself."""
    from itertools import combinations

    kept = []
    weights = []
    for combo in combinations(range(n), k):
        mirror = tuple(sorted(n - 1 - r for r in combo))
        if combo <= mirror:
            kept.append(combo)
            weights.append(1 if combo == mirror else 2)
    return np.array(kept, dtype=np.int64).reshape(len(kept), k), np.array(weights, dtype=np.int64)


def images(witnesses: np.ndarray) -> np.ndarray:
    """The 8 symmetric images of each solution (columns by row): shape (W, 8, n), uint8. The dihedral group
    as four quarter turns of the board and their mirror images: a quarter turn takes (r, c) to
    (c, n - 1 - r), a mirror (r, c) to (r, n - 1 - c). Image ``2 * turn`` is the ``turn``-th quarter turn."""
    count, n = witnesses.shape
    out = np.empty((count, 8, n), dtype=np.uint8)
    for turn, image in enumerate(quarter_turns(witnesses)):
        out[:, 2 * turn] = image.T
        out[:, 2 * turn + 1] = n - 1 - image.T
    return out


def quarter_turns(witnesses: np.ndarray) -> np.ndarray:
    """The 4 quarter turns of each solution, by row: ``turns[t, row, w]`` is the column of the queen on
    ``row`` in witness w turned t times, shape (4, n, W), uint8."""
    count, n = witnesses.shape
    out = np.empty((4, n, count), dtype=np.uint8)
    # A quarter turn: the queen on (r, c) goes to (c, n - 1 - r), so row c takes column n - 1 - r. In
    # pieces, so that millions of witnesses take no more than their turns' bytes beside them.
    for lo in range(0, count, TURN_PIECE):
        hi = min(count, lo + TURN_PIECE)
        cols = witnesses[lo:hi].astype(np.intp)
        picked = np.arange(hi - lo)[:, None]
        mirrored = np.broadcast_to(np.arange(n - 1, -1, -1, dtype=np.uint8), cols.shape)
        for turn in range(4):
            out[turn, :, lo:hi] = cols.T
            turned = np.empty_like(cols)
            turned[picked, cols] = mirrored
            cols = turned
    return out


@njit(cache=True, nogil=True)
def covered_sets(n, k, turns, rows_of, weights, lo, hi, block):
    """How many sets of k queens on the row combinations ``rows_of[lo:hi]`` and on their mirrors (counted
    by ``weights``) lie in some image of some witness (``turns``: ``quarter_turns``); ``block``: uint64
    words for ceil(n^k / 2) bits, scratch."""
    last = np.int64(n) ** k - 1
    middle = last // 2 if last % 2 == 0 else -1      # a tuple that is its own mirror
    count = turns.shape[2]
    index = np.empty(CHUNK, np.int64)
    total = np.int64(0)
    for j in range(lo, hi):
        block[:] = 0
        for start in range(0, count, CHUNK):
            stop = min(count, start + CHUNK)
            size = stop - start
            for turn in range(4):
                index[:size] = 0
                for i in range(k):
                    line = turns[turn, rows_of[j, i], start:stop]
                    for w in range(size):
                        index[w] = index[w] * n + line[w]
                for w in range(size):
                    smaller = min(index[w], last - index[w])
                    block[smaller >> 6] |= np.uint64(1) << np.uint64(smaller & 63)
        marked = np.int64(0)
        for word in range(block.shape[0]):
            # By bits in parallel: a loop over the set bits takes 64 turns for a word of a level
            # covered whole, over a minute of a re-check at n = 26.
            marked += np.int64(_bit_count(block[word]))
        alone = 0
        if middle >= 0 and (block[middle >> 6] >> np.uint64(middle & 63)) & np.uint64(1):
            alone = 1
        total += weights[j] * (2 * marked - alone)
    return total


def block_words(n: int, k: int) -> int:
    """The uint64 words of ``covered_sets``'s block."""
    return (n ** k // 2) // 64 + 1


@njit(cache=True, nogil=True)
def _bit_count(value):
    value = value - ((value >> np.uint64(1)) & np.uint64(0x5555555555555555))
    fours = np.uint64(0x3333333333333333)
    value = (value & fours) + ((value >> np.uint64(2)) & fours)
    value = (value + (value >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (value * np.uint64(0x0101010101010101)) >> np.uint64(56)


def peaceful_later(n: int) -> np.ndarray:
    """``later[c]``: the cells after cell c (row-major) that a queen on c does not attack, as bits, shape
    (n * n, words), uint64."""
    rows, cols = np.divmod(np.arange(n * n), n)
    peaceful = ((rows[:, None] != rows[None, :]) & (cols[:, None] != cols[None, :])
                & (rows[:, None] + cols[:, None] != rows[None, :] + cols[None, :])
                & (rows[:, None] - cols[:, None] != rows[None, :] - cols[None, :]))
    peaceful &= np.arange(n * n)[None, :] > np.arange(n * n)[:, None]
    words = -(-n * n // 64)
    padded = np.zeros((n * n, words * 64), dtype=bool)
    padded[:, :n * n] = peaceful
    return np.packbits(padded, axis=1, bitorder="little").view("<u8").astype(np.uint64)


@njit(cache=True, nogil=True)
def count_cliques(later, k, firsts):
    """Sets of k >= 2 mutually non-attacking queens whose first cell (row-major) is one of ``firsts``:
    cliques of the non-attack graph ``later`` (``peaceful_later``), the last queen counted by bits."""
    words = later.shape[1]
    candidates = np.zeros((k, words), np.uint64)
    cursor = np.zeros(k, np.int64)
    total = np.int64(0)
    for first in firsts:
        candidates[1, :] = later[first]
        depth = 1
        cursor[1] = 0
        while depth >= 1:
            if depth == k - 1:
                for word in range(words):
                    total += np.int64(_bit_count(candidates[depth, word]))
                depth -= 1
                continue
            # The next cell among the candidates at this depth, from cursor on.
            cell = -1
            position = cursor[depth]
            while position < words * 64:
                word = position >> 6
                rest = candidates[depth, word] >> np.uint64(position & 63)
                if rest:
                    low = rest & (~rest + np.uint64(1))
                    cell = position + np.int64(_bit_count(low - np.uint64(1)))
                    break
                position = (word + 1) << 6
            if cell < 0:
                depth -= 1
                continue
            cursor[depth] = cell + 1
            for word in range(words):
                candidates[depth + 1, word] = candidates[depth, word] & later[cell, word]
            depth += 1
            cursor[depth] = 0
    return total


def count_sets_from(n: int, k: int, firsts: np.ndarray, later: np.ndarray | None = None) -> int:
    """Sets of k mutually non-attacking queens whose first cell is one of ``firsts``."""
    firsts = np.asarray(firsts, dtype=np.int64)
    if k == 0:
        return int(np.count_nonzero(firsts == 0))
    if k == 1:
        return len(firsts)
    return int(count_cliques(peaceful_later(n) if later is None else later, k, firsts))

