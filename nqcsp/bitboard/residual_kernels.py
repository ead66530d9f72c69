"""The residual engine's kernel: depth-first search for one solution of a residual board (numba).

Lines are the residual's free rows (line i < k) and free columns (line k + j). Each line's candidate
cells are a bit-set over the other axis, ``words`` uint64 words long (bit j of row i is cell (rows[i],
cols[j]); bit i of column j is the same cell), so rows and columns are kept as transposes of each other
and neither has a 64 limit. Level d of ``masks``/``counts`` is the state after d queens; a placed line
has no bits and the count ``PLACED``.

Diagonals are the full board's: a queen on (r, c) attacks, in free row r', the full-board columns
c +- (r' - r), found in column space through ``col_index`` (full column - ``col_base`` -> index, -1 when
the column is not free).
"""

from __future__ import annotations

import numpy as np

from nqcsp._jit import njit
from nqcsp.bitboard.kernels import popcount

ONE = np.uint64(1)
ZERO = np.uint64(0)
SIX = np.uint64(6)
LOW6 = np.uint64(63)
PLACED = 1 << 30   # the count of a line that holds its queen: never the most constrained


@njit(cache=True, nogil=True, inline="always")
def _index(low):
    """The position of the single set bit of ``low``, as a signed int (int + uint64 would be a float)."""
    return np.int64(popcount(low - ONE))


@njit(cache=True, nogil=True, inline="always")
def _clear(masks, counts, level, line, bit):
    """Remove cell ``bit`` from ``line`` at ``level`` if it is there; True when it was."""
    word = np.uint64(bit) >> SIX
    flag = ONE << (np.uint64(bit) & LOW6)
    if masks[level, line, word] & flag == ZERO:
        return False
    masks[level, line, word] ^= flag
    counts[level, line] -= 1
    return True


@njit(cache=True, nogil=True)
def _place(k, words, n_cols, rows, cols, col_index, col_base, masks, counts, depth, i, j):
    """Level depth + 1 = level ``depth`` with a queen on (free row i, free column j)."""
    level = depth + 1
    masks[level] = masks[depth]
    counts[level] = counts[depth]
    # Every other cell of row i leaves its column, every other cell of column j leaves its row.
    for w in range(words):
        word = masks[level, i, w]
        while word != ZERO:
            low = word & (~word + ONE)
            word ^= low
            _clear(masks, counts, level, k + w * 64 + _index(low), i)
        masks[level, i, w] = ZERO
    counts[level, i] = PLACED
    for w in range(words):
        word = masks[level, k + j, w]
        while word != ZERO:
            low = word & (~word + ONE)
            word ^= low
            _clear(masks, counts, level, w * 64 + _index(low), j)
        masks[level, k + j, w] = ZERO
    counts[level, k + j] = PLACED
    # The two diagonals through (r, c) cross each open row at most twice.
    r = rows[i]
    c = cols[j] - col_base
    for other in range(k):
        if counts[level, other] == PLACED or counts[level, other] == 0:
            continue
        distance = rows[other] - r
        for target in (c + distance, c - distance):
            if 0 <= target < n_cols:
                jj = col_index[target]
                if jj >= 0 and _clear(masks, counts, level, other, jj):
                    _clear(masks, counts, level, k + jj, other)


@njit(cache=True, nogil=True)
def _score(k, words, n_cols, rows, cols, col_index, col_base, masks, counts, depth, chosen, order, score):
    """Per candidate cell of line ``chosen``: the open cells a queen there would remove (its crossing
    line and the diagonals), negated for ``order`` 1 so that the smallest score is tried first."""
    for w in range(words):
        word = masks[depth, chosen, w]
        while word != ZERO:
            low = word & (~word + ONE)
            word ^= low
            index = w * 64 + _index(low)
            if chosen < k:
                i, j = chosen, index
                removed = counts[depth, k + j] - 1
            else:
                i, j = index, chosen - k
                removed = counts[depth, i] - 1
            r = rows[i]
            c = cols[j] - col_base
            for other in range(k):
                if other == i or counts[depth, other] == PLACED:
                    continue
                distance = rows[other] - r
                for target in (c + distance, c - distance):
                    if 0 <= target < n_cols:
                        jj = col_index[target]
                        if jj >= 0 and masks[depth, other, np.uint64(jj) >> SIX] \
                                & (ONE << (np.uint64(jj) & LOW6)) != ZERO:
                            removed += 1
            score[index] = removed if order == 2 else -removed


@njit(cache=True, nogil=True)
def _next(words, remaining, score, order):
    """Take the next candidate out of ``remaining``: the lowest index (``order`` 0) or the lowest score."""
    best = -1
    best_score = 0
    for w in range(words):
        word = remaining[w]
        while word != ZERO:
            low = word & (~word + ONE)
            word ^= low
            index = w * 64 + _index(low)
            if order == 0:
                remaining[w] ^= low
                return index
            if best < 0 or score[index] < best_score:
                best, best_score = index, score[index]
    if best >= 0:
        remaining[np.uint64(best) >> SIX] ^= ONE << (np.uint64(best) & LOW6)
    return best


@njit(cache=True, nogil=True)
def search(k, words, rows, cols, col_index, col_base, masks, counts, line, remaining, score, picks, stats,
           budget, order):
    """Resumable DFS, at most ``budget`` nodes per call; ``stats`` = depth, nodes, outcome (0 running,
    1 solution in ``picks[:k]`` as (free row, free column) pairs, -1 exhausted: no solution).

    At each level it branches on the open line, row or column, with the fewest candidate cells (a line
    with none is a dead end, a line with one is forced), trying its cells in index order. ``line[d]`` is
    the line chosen at level d (-1: not chosen yet) and ``remaining[d]`` the cells still to try there.
    """
    depth = stats[0]
    nodes = stats[1]
    n_cols = col_index.shape[0]
    spent = 0
    lines = 2 * k
    while spent < budget:
        if depth < 0:
            stats[2] = -1
            break
        if depth == k:
            stats[2] = 1
            break
        chosen = line[depth]
        if chosen < 0:
            best = -1
            best_count = PLACED
            level_counts = counts[depth]
            for candidate in range(lines):
                size = level_counts[candidate]
                if size < best_count:
                    best, best_count = candidate, size
                    if size <= 1:
                        break
            if best_count == 0:
                depth -= 1
                continue
            chosen = best
            line[depth] = chosen
            remaining[depth] = masks[depth, chosen]
            if order != 0:
                _score(k, words, n_cols, rows, cols, col_index, col_base, masks, counts, depth, chosen,
                       order, score[depth])
        index = _next(words, remaining[depth], score[depth], order)
        if index < 0:
            line[depth] = -1
            depth -= 1
            continue
        if chosen < k:
            i, j = chosen, index
        else:
            i, j = index, chosen - k
        picks[depth, 0] = i
        picks[depth, 1] = j
        _place(k, words, n_cols, rows, cols, col_index, col_base, masks, counts, depth, i, j)
        nodes += 1
        spent += 1
        depth += 1
        line[depth] = -1
    stats[0] = depth
    stats[1] = nodes
