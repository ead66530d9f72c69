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
def _cell(k, line, index):
    """The cell (free row, free column) at ``index`` of ``line`` (a free row below k, else a column)."""
    if line < k:
        return line, index
    return index, line - k


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
def _place(k, words, n_cols, rows, cols, col_index, col_base, masks, counts, depth, i, j, removed_by):
    """Level depth + 1 = level ``depth`` with a queen on (free row i, free column j). ``removed_by[i', j']``
    becomes ``depth`` for every cell this queen takes away (a proof names the clause that did it; an
    entry is only read for a cell missing on the current path, whose last removal is on that path)."""
    level = depth + 1
    masks[level] = masks[depth]
    counts[level] = counts[depth]
    # Every other cell of row i leaves its column, every other cell of column j leaves its row.
    for w in range(words):
        word = masks[level, i, w]
        while word != ZERO:
            low = word & (~word + ONE)
            word ^= low
            jj = w * 64 + _index(low)
            _clear(masks, counts, level, k + jj, i)
            removed_by[i, jj] = depth
        masks[level, i, w] = ZERO
    counts[level, i] = PLACED
    for w in range(words):
        word = masks[level, k + j, w]
        while word != ZERO:
            low = word & (~word + ONE)
            word ^= low
            ii = w * 64 + _index(low)
            _clear(masks, counts, level, ii, j)
            removed_by[ii, j] = depth
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
                    removed_by[other, jj] = depth


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
            i, j = _cell(k, chosen, index)
            removed = counts[depth, k + j if chosen < k else i] - 1
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


@njit(cache=True, nogil=True, inline="always")
def _put(out, at, value):
    """``value`` (>= 0) in base 128, little-endian, high bit on every byte but the last; the next position."""
    while value >= 128:
        out[at] = np.uint8((value & 127) | 128)
        at += 1
        value >>= 7
    out[at] = np.uint8(value)
    return at + 1


@njit(cache=True, nogil=True, inline="always")
def _relation(rows, cols, picks, t, i, j):
    """How decision t attacks cell (free row i, free column j): 0 the same row, 1 the same column, 2 the
    same r + c, 3 the same r - c; -1 when it does not (a bug: the proof stops)."""
    ti = picks[t, 0]
    tj = picks[t, 1]
    if ti == i:
        return 0
    if tj == j:
        return 1
    if rows[ti] + cols[tj] == rows[i] + cols[j]:
        return 2
    if rows[ti] - cols[tj] == rows[i] - cols[j]:
        return 3
    return -1


@njit(cache=True, nogil=True)
def _learn(k, words, rows, cols, masks, picks, removed_by, depth, failed, branched, cells, pairs, alo,
           children, child_start, out, proof_state):
    """Write the lemma of a failed node as one binary LRAT addition: the clause "not all of this node's
    decisions", implied by unit propagation along its hints. The hints: the binary at-most-one clause
    through which a decision removed each cell of the ``failed`` line from the statement's at-least-one
    clause of that line, then (``branched``) the lemmas of the children that tried the cells left, then
    that at-least-one clause, now falsified. The children's lemmas are deleted after it, and the new
    lemma joins its parent's children. ``proof_state`` = bytes used, next lemma number, children used,
    error (1: a removed cell without a decision that removed it)."""
    at = proof_state[0]
    lemma = proof_state[1]
    top = proof_state[2]
    out[at] = 97  # 'a'
    at = _put(out, at + 1, 2 * lemma)
    for t in range(depth):
        at = _put(out, at, 2 * cells[picks[t, 0], picks[t, 1], 0] + 1)
    at = _put(out, at, 0)
    for w in range(words):
        word = masks[0, failed, w]
        if branched:
            word &= ~masks[depth, failed, w]
        while word != ZERO:
            low = word & (~word + ONE)
            word ^= low
            i, j = _cell(k, failed, w * 64 + _index(low))
            t = removed_by[i, j]
            relation = _relation(rows, cols, picks, t, i, j) if 0 <= t < depth else -1
            if relation < 0:
                proof_state[3] = 1
                return
            line = cells[i, j, 1 + relation]
            p = cells[picks[t, 0], picks[t, 1], 5 + relation]
            q = cells[i, j, 5 + relation]
            if p > q:
                p, q = q, p
            size = pairs[line, 1]
            at = _put(out, at, 2 * (pairs[line, 0] + p * (2 * size - p - 1) // 2 + q - p - 1))
    first = child_start[depth] if branched else top
    for child in range(first, top):
        at = _put(out, at, 2 * children[child])
    at = _put(out, at, 2 * alo[failed])
    at = _put(out, at, 0)
    if top > first:
        out[at] = 100  # 'd'
        at += 1
        for child in range(first, top):
            at = _put(out, at, 2 * children[child])
        at = _put(out, at, 0)
    children[first] = lemma
    proof_state[0] = at
    proof_state[1] = lemma + 1
    proof_state[2] = first + 1


@njit(cache=True, nogil=True)
def search(k, words, rows, cols, col_index, col_base, masks, counts, line, remaining, score, picks, stats,
           budget, order, removed_by, proof, cells, pairs, alo, children, child_start, out, proof_state):
    """Resumable DFS, at most ``budget`` nodes per call; ``stats`` = depth, nodes, outcome (0 running,
    1 solution in ``picks[:k]`` as (free row, free column) pairs, -1 exhausted: no solution).

    At each level it branches on the open line, row or column, with the fewest candidate cells (a line
    with none is a dead end, a line with one is forced), trying its cells in index order. ``line[d]`` is
    the line chosen at level d (-1: not chosen yet) and ``remaining[d]`` the cells still to try there.

    With ``proof``, every failed node writes its lemma to ``out`` (``_learn``), so an exhausted search
    ends with the empty clause; the call also returns when ``out`` could not hold one more lemma
    (``room`` bytes), for the caller to drain it. ``cells``, ``pairs`` and ``alo`` name the statement's
    clauses (``nqcsp.bitboard.residual_proof``).
    """
    depth = stats[0]
    nodes = stats[1]
    n_cols = col_index.shape[0]
    spent = 0
    lines = 2 * k
    room = 8 * (4 * k + 8) + 16 * words
    while spent < budget:
        if depth < 0:
            stats[2] = -1
            break
        if depth == k:
            stats[2] = 1
            break
        if proof and (proof_state[0] + room > out.shape[0] or proof_state[3] != 0):
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
                if proof:
                    _learn(k, words, rows, cols, masks, picks, removed_by, depth, best, False, cells, pairs,
                           alo, children, child_start, out, proof_state)
                depth -= 1
                continue
            chosen = best
            line[depth] = chosen
            remaining[depth] = masks[depth, chosen]
            if proof:
                child_start[depth] = proof_state[2]
            if order != 0:
                _score(k, words, n_cols, rows, cols, col_index, col_base, masks, counts, depth, chosen,
                       order, score[depth])
        index = _next(words, remaining[depth], score[depth], order)
        if index < 0:
            if proof:
                _learn(k, words, rows, cols, masks, picks, removed_by, depth, chosen, True, cells, pairs,
                       alo, children, child_start, out, proof_state)
            line[depth] = -1
            depth -= 1
            continue
        i, j = _cell(k, chosen, index)
        picks[depth, 0] = i
        picks[depth, 1] = j
        _place(k, words, n_cols, rows, cols, col_index, col_base, masks, counts, depth, i, j, removed_by)
        nodes += 1
        spent += 1
        depth += 1
        line[depth] = -1
    stats[0] = depth
    stats[1] = nodes
