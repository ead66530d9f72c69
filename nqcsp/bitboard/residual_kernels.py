"""The residual engine's kernel: depth-first search for one solution of a residual board (numba).

Lines are the residual's free rows (line i < k) and free columns (line k + j); ``masks[d, line]`` holds
a line's open cells after d queens in ``words`` uint64 words (bit j of row i is cell (rows[i], cols[j]);
bit i of column j is the same cell: rows and columns are kept as transposes of each other). ``search``
branches on the open line with the fewest cells (``_line_key``: a line with none is a dead end, a line
with one is forced) and tries its cells in index order or by score. Two representations of the same
step, chosen per residual:

- narrow (k <= 64, one word per line): the open lines as bits of ``open_rows``/``open_cols``, sizes
  counted by POPCNT, and ``attacks[i, j, i']``, the cells of free row i' on the two diagonals through
  (i, j), precomputed (k^3 words, 2 MB at k = 64), so a queen costs a few word operations per open row;
- wide (any k): line sizes kept in ``counts`` (``PLACED`` once a line holds its queen), diagonals found
  on the full board through ``col_index`` (full column - ``col_base`` -> index, -1 when not free).

With a proof, the search writes its lemmas (``_open``, ``_close``): one per level whose parent branched
(a forced level's hints join its parent's lemma), naming which decision took each cell away from
``owners``, the level whose queen stands on each row, column, diagonal and anti-diagonal.
"""

from __future__ import annotations

import numpy as np

from nqcsp.bitboard.bits import lowest_bit_index, popcount
from nqcsp.runtime.jit import njit_unrefcounted

# Every kernel here allocates nothing, so all are compiled without reference counting (``njit_unrefcounted``).
ONE = np.uint64(1)
ZERO = np.uint64(0)
SIX = np.uint64(6)
LOW6 = np.uint64(63)
PLACED = 1 << 30   # the count of a line that holds its queen: never the most constrained


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _index(low):
    """The position of the single set bit of ``low``, as a signed int (int + uint64 would be a float)."""
    return lowest_bit_index(low)


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _line_key(size, initial):
    """The order in which lines are branched on: fewest cells left; among lines with none or one left
    (a dead end, a forced cell), the one with fewest cells at the start, whose proof names fewest
    clauses (one for each cell gone); other ties go to the first line."""
    return size * 4096 + (initial if size <= 1 else 0)


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _cell(k, line, index):
    """The cell (free row, free column) at ``index`` of ``line`` (a free row below k, else a column)."""
    if line < k:
        return line, index
    return index, line - k


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _clear(masks, counts, level, line, bit):
    """Remove cell ``bit`` from ``line`` at ``level`` if it is there; True when it was."""
    word = np.uint64(bit) >> SIX
    flag = ONE << (np.uint64(bit) & LOW6)
    if masks[level, line, word] & flag == ZERO:
        return False
    masks[level, line, word] ^= flag
    counts[level, line] -= 1
    return True


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _place(k, words, n_cols, rows, cols, col_index, col_base, masks, counts, depth, i, j):
    """Level depth + 1 = level ``depth`` with a queen on (free row i, free column j)."""
    level = depth + 1
    # Copies by element: a whole-row slice would make an array view, whose reference counting (atomic)
    # cost more than the copy itself at every node.
    for line in range(2 * k):
        counts[level, line] = counts[depth, line]
        for w in range(words):
            masks[level, line, w] = masks[depth, line, w]
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


@njit_unrefcounted(cache=True, nogil=True, inline="always")
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
            score[depth, index] = removed if order == 2 else -removed


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _next(words, remaining, score, depth, order):
    """Take level ``depth``'s next candidate out of ``remaining``: the lowest index (``order`` 0) or the
    lowest score."""
    best = -1
    best_score = 0
    for w in range(words):
        word = remaining[depth, w]
        while word != ZERO:
            low = word & (~word + ONE)
            word ^= low
            index = w * 64 + _index(low)
            if order == 0:
                remaining[depth, w] ^= low
                return index
            if best < 0 or score[depth, index] < best_score:
                best, best_score = index, score[depth, index]
    if best >= 0:
        remaining[depth, np.uint64(best) >> SIX] ^= ONE << (np.uint64(best) & LOW6)
    return best


# --- the proof ------------------------------------------------------------------------------------------

@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _put(out, at, value):
    """``value`` (>= 0) in base 128, little-endian, high bit on every byte but the last; the next position."""
    while value >= 128:
        out[at] = np.uint8((value & 127) | 128)
        at += 1
        value >>= 7
    out[at] = np.uint8(value)
    return at + 1


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _own(owners, cell_lines, level, i, j):
    """The queen on (free row i, free column j) stands on its four lines as level ``level``'s pick, or
    (``level`` -1) has left them."""
    for relation in range(4):
        owners[relation, cell_lines[i, j, relation]] = level


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _leave(owners, cell_lines, picks, depth):
    """Level ``depth``'s pick, if it has one, is about to be replaced: it leaves its lines."""
    if picks[depth, 0] >= 0:
        _own(owners, cell_lines, -1, picks[depth, 0], picks[depth, 1])
        picks[depth, 0] = -1


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _killer(owners, cell_lines, i, j):
    """(level, relation) of the queen on the current path that attacks (free row i, free column j):
    relation 0 the same row, 1 column, 2 r + c, 3 r - c; (-1, -1) when none does (a bug: the proof
    stops). ``owners`` holds exactly the current path's picks: a line holds one of them at most."""
    for relation in range(4):
        t = owners[relation, cell_lines[i, j, relation]]
        if t >= 0:
            return t, relation
    return -1, -1


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _at_most_one(cells, pairs, ai, aj, bi, bj, relation):
    """The number of the statement's clause (-a, -b) of cells a and b on their common line ``relation``."""
    line = cells[bi, bj, 1 + relation]
    p = cells[ai, aj, 5 + relation]
    q = cells[bi, bj, 5 + relation]
    if p > q:
        p, q = q, p
    size = pairs[line, 1]
    return pairs[line, 0] + p * (2 * size - p - 1) // 2 + q - p - 1


# Per level, for the proof (``levels``): where its children's lemmas start on ``children``, where its
# hints start on ``chain``, where the hints of the lemma it belongs to start, whether its line was forced.
CHILDREN, CHAIN, SCOPE, FORCED = 0, 1, 2, 3
# ``proof_state``: bytes waiting in ``out``, next lemma number, lemmas on ``children``, error (1: a cell
# gone without a decision that took it), hints on ``chain``.
USED, LEMMA, TOP, ERROR, HINTS = 0, 1, 2, 3, 4


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _hint(chain, proof_state, clause, cell):
    top = proof_state[HINTS]
    chain[top, 0] = clause
    chain[top, 1] = cell
    proof_state[HINTS] = top + 1


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _falsify(k, gone, line, depth, scope, picks, owners, cell_lines, cells, pairs, chain, falsified_at,
             proof_state):
    """Hint, for each cell of ``gone`` (cells of ``line`` that decisions took away), the statement's
    binary at-most-one clause through which a decision on the path took it; except a cell a hint of the
    same lemma (from ``scope`` on) has already set false, since a satisfied hint is no hint."""
    for w in range(gone.shape[0]):
        word = gone[w]
        while word != ZERO:
            low = word & (~word + ONE)
            word ^= low
            i, j = _cell(k, line, w * 64 + _index(low))
            at = falsified_at[i, j]
            if scope <= at < proof_state[HINTS] and chain[at, 1] == i * k + j:
                continue
            t, relation = _killer(owners, cell_lines, i, j)
            if t < 0:
                proof_state[ERROR] = 1
                return
            falsified_at[i, j] = proof_state[HINTS]
            _hint(chain, proof_state, _at_most_one(cells, pairs, picks[t, 0], picks[t, 1], i, j, relation),
                  i * k + j)


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _open(k, gone, line, count, depth, picks, owners, cell_lines, cells, pairs, alo, chain, falsified_at,
          levels, proof_state):
    """Level ``depth`` branches on ``line`` (``count`` cells left, ``gone`` the others). A forced line
    writes no lemma for its one child: its hints, the at-most-one clauses of the cells gone and then the
    at-least-one clause (unit: the forced cell), join the lemma of the nearest level that writes one, so
    that the child's hints follow on."""
    levels[depth, CHILDREN] = proof_state[TOP]
    levels[depth, CHAIN] = proof_state[HINTS]
    writes = depth == 0 or levels[depth - 1, FORCED] == 0
    levels[depth, SCOPE] = proof_state[HINTS] if writes else levels[depth - 1, SCOPE]
    levels[depth, FORCED] = count == 1
    if count == 1:
        _falsify(k, gone, line, depth, levels[depth, SCOPE], picks, owners, cell_lines, cells, pairs, chain,
                 falsified_at, proof_state)
        _hint(chain, proof_state, alo[line], -1)


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _close(k, gone, line, depth, picks, owners, cell_lines, cells, pairs, alo, children, chain,
           falsified_at, levels, out, proof_state):
    """Level ``depth`` failed: its ``line`` has no cell left (``gone``: those decisions took away; a
    branched line's other cells were tried by the children). Unless the line was forced, this adds the
    hints of the cells gone, the children's lemmas and the line's at-least-one clause, now falsified.
    A level whose parent branched (or the root) then writes its lemma as one binary LRAT addition, "not
    all of this level's decisions", with every hint from its own on, deletes the lemmas those hints
    used and joins its parent's children; the root's lemma is the empty clause."""
    if levels[depth, FORCED] == 0:
        _falsify(k, gone, line, depth, levels[depth, SCOPE], picks, owners, cell_lines, cells, pairs, chain,
                 falsified_at, proof_state)
        for child in range(levels[depth, CHILDREN], proof_state[TOP]):
            _hint(chain, proof_state, children[child], -1)
        _hint(chain, proof_state, alo[line], -1)
    if depth > 0 and levels[depth - 1, FORCED] != 0:
        return
    at = proof_state[USED]
    lemma = proof_state[LEMMA]
    out[at] = 97  # 'a'
    at = _put(out, at + 1, 2 * lemma)
    for t in range(depth):
        at = _put(out, at, 2 * cells[picks[t, 0], picks[t, 1], 0] + 1)
    at = _put(out, at, 0)
    for hint in range(levels[depth, CHAIN], proof_state[HINTS]):
        at = _put(out, at, 2 * chain[hint, 0])
    at = _put(out, at, 0)
    first = levels[depth, CHILDREN]
    if proof_state[TOP] > first:
        out[at] = 100  # 'd'
        at += 1
        for child in range(first, proof_state[TOP]):
            at = _put(out, at, 2 * children[child])
        at = _put(out, at, 0)
    children[first] = lemma
    proof_state[USED] = at
    proof_state[LEMMA] = lemma + 1
    proof_state[TOP] = first + 1
    proof_state[HINTS] = levels[depth, CHAIN]


# --- the narrow representation: k <= 64 -------------------------------------------------------------

@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _choose(k, masks, counts, depth):
    """The open line to branch on (``_line_key``) and its cells left, from the counts."""
    best = -1
    best_count = PLACED
    best_key = _line_key(PLACED, 0)
    for candidate in range(2 * k):
        size = counts[depth, candidate]
        key = _line_key(size, counts[0, candidate])
        if key < best_key:
            best, best_count, best_key = candidate, size, key
            if size == 0:
                break
    return best, best_count


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _choose_narrow(k, masks, open_rows, open_cols, depth):
    """``_choose`` on one-word lines: the open ones from ``open_rows`` and ``open_cols``, sizes counted."""
    best = -1
    best_count = PLACED
    best_key = _line_key(PLACED, 0)
    for first, open_lines in ((0, open_rows[depth]), (k, open_cols[depth])):
        word = open_lines
        while word != ZERO and best_count > 0:
            low = word & (~word + ONE)
            word ^= low
            candidate = first + _index(low)
            size = popcount(masks[depth, candidate, 0])
            key = _line_key(size, popcount(masks[0, candidate, 0]) if size <= 1 else 0)
            if key < best_key:
                best, best_count, best_key = candidate, size, key
    return best, best_count


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _place_narrow(k, masks, open_rows, open_cols, attacks, depth, i, j):
    """``_place`` on one-word lines, the diagonals from ``attacks``."""
    level = depth + 1
    for line in range(2 * k):
        masks[level, line, 0] = masks[depth, line, 0]
    row_bit = ONE << np.uint64(i)
    col_bit = ONE << np.uint64(j)
    rows_left = open_rows[depth] & ~row_bit
    open_rows[level] = rows_left
    open_cols[level] = open_cols[depth] & ~col_bit
    word = masks[level, i, 0]
    while word != ZERO:
        low = word & (~word + ONE)
        word ^= low
        masks[level, k + _index(low), 0] &= ~row_bit
    masks[level, i, 0] = ZERO
    word = masks[level, k + j, 0]
    while word != ZERO:
        low = word & (~word + ONE)
        word ^= low
        masks[level, _index(low), 0] &= ~col_bit
    masks[level, k + j, 0] = ZERO
    while rows_left != ZERO:
        low = rows_left & (~rows_left + ONE)
        rows_left ^= low
        other = _index(low)
        taken = masks[level, other, 0] & attacks[i, j, other]
        if taken != ZERO:
            masks[level, other, 0] ^= taken
            while taken != ZERO:
                bit = taken & (~taken + ONE)
                taken ^= bit
                masks[level, k + _index(bit), 0] &= ~low


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _score_narrow(k, masks, open_rows, attacks, depth, chosen, order, score):
    """``_score`` on one-word lines: the crossing line's other cells plus the open cells on the two
    diagonals, from ``attacks``."""
    word = masks[depth, chosen, 0]
    while word != ZERO:
        low = word & (~word + ONE)
        word ^= low
        index = _index(low)
        i, j = _cell(k, chosen, index)
        crossing = masks[depth, k + j, 0] if chosen < k else masks[depth, i, 0]
        removed = popcount(crossing) - 1
        others = open_rows[depth] & ~(ONE << np.uint64(i))
        while others != ZERO:
            bit = others & (~others + ONE)
            others ^= bit
            other = _index(bit)
            removed += popcount(masks[depth, other, 0] & attacks[i, j, other])
        score[depth, index] = removed if order == 2 else -removed


# --- the search -----------------------------------------------------------------------------------------

@njit_unrefcounted(cache=True, nogil=True)
def search(narrow, k, words, rows, cols, col_index, col_base, masks, counts, open_rows, open_cols, attacks,
           line, remaining, score, picks, stats, budget, order, proof, owners, cell_lines, cells, pairs, alo,
           children, chain, falsified_at, levels, out, room, proof_state, gone):
    """Resumable DFS, at most ``budget`` nodes per call; ``stats`` = depth, nodes, outcome (0 running,
    1 solution in ``picks[:k]`` as (free row, free column) pairs, -1 exhausted: no solution).

    ``masks[d, line]``: the cells of ``line`` open after d queens (``words`` words). ``narrow`` (k <= 64,
    one word): lines open in ``open_rows[d]``/``open_cols[d]``, diagonals from ``attacks``; else counts
    in ``counts[d]`` (``PLACED`` once a line holds its queen), diagonals through ``col_index``.
    ``line[d]`` is the line chosen at level d (-1: not chosen yet) and ``remaining[d]`` the cells still to
    try there. With ``proof``, failed levels write their lemmas to ``out`` (``_close``), so an exhausted
    search ends with the empty clause; the call also returns when ``out`` could not hold one more lemma
    (``room`` bytes), for the caller to drain it. ``cells``, ``pairs`` and ``alo`` name the statement's
    clauses (``nqcsp.bitboard.residual_proof``); ``gone`` is scratch of ``words`` words.
    """
    depth = stats[0]
    nodes = stats[1]
    n_cols = col_index.shape[0]
    spent = 0
    while spent < budget:
        if depth < 0:
            stats[2] = -1
            break
        if depth == k:
            stats[2] = 1
            break
        if proof and (proof_state[USED] + room > out.shape[0] or proof_state[ERROR] != 0):
            break
        chosen = line[depth]
        if chosen < 0:
            if narrow:
                best, best_count = _choose_narrow(k, masks, open_rows, open_cols, depth)
            else:
                best, best_count = _choose(k, masks, counts, depth)
            if best_count == 0:
                if proof:
                    for w in range(words):
                        gone[w] = masks[0, best, w]
                    _open(k, gone, best, 0, depth, picks, owners, cell_lines, cells, pairs, alo, chain,
                          falsified_at, levels, proof_state)
                    _close(k, gone, best, depth, picks, owners, cell_lines, cells, pairs, alo, children,
                           chain, falsified_at, levels, out, proof_state)
                depth -= 1
                continue
            chosen = best
            line[depth] = chosen
            picks[depth, 0] = -1
            for w in range(words):
                remaining[depth, w] = masks[depth, chosen, w]
            if proof:
                for w in range(words):
                    gone[w] = masks[0, chosen, w] & ~masks[depth, chosen, w]
                _open(k, gone, chosen, best_count, depth, picks, owners, cell_lines, cells, pairs, alo, chain,
                      falsified_at, levels, proof_state)
            if order != 0:
                if narrow:
                    _score_narrow(k, masks, open_rows, attacks, depth, chosen, order, score)
                else:
                    _score(k, words, n_cols, rows, cols, col_index, col_base, masks, counts, depth, chosen,
                           order, score)
        if proof:
            _leave(owners, cell_lines, picks, depth)
        index = _next(words, remaining, score, depth, order)
        if index < 0:
            if proof:
                for w in range(words):
                    gone[w] = masks[0, chosen, w] & ~masks[depth, chosen, w]
                _close(k, gone, chosen, depth, picks, owners, cell_lines, cells, pairs, alo, children, chain,
                       falsified_at, levels, out, proof_state)
            line[depth] = -1
            depth -= 1
            continue
        i, j = _cell(k, chosen, index)
        picks[depth, 0] = i
        picks[depth, 1] = j
        if narrow:
            _place_narrow(k, masks, open_rows, open_cols, attacks, depth, i, j)
        else:
            _place(k, words, n_cols, rows, cols, col_index, col_base, masks, counts, depth, i, j)
        if proof:
            _own(owners, cell_lines, depth, i, j)
        nodes += 1
        spent += 1
        depth += 1
        line[depth] = -1
    stats[0] = depth
    stats[1] = nodes
