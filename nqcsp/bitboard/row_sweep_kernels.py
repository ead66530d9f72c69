"""Kernels of the level sweep by row combinations (numba): every set of k mutually non-attacking queens on
a given k-combination of rows, tested against the sets that known solutions place there.

A set of k queens on distinct rows ``rows[0] < ... < rows[k-1]`` is its column tuple, read as the base-n
number ``index = sum(cols[i] * n ** (k - 1 - i))``. The column mirror (c -> n - 1 - c) maps the tuple of
``index`` to that of ``n ** k - 1 - index`` on the same rows, so a sweep keeps one of each pair, the
smaller index (its *canonical* form, at most ``n ** k // 2``): a block of ``ceil(n / 2) * n ** (k - 1)``
bits per row combination, half a megabyte at n = 24, k = 5, which stays in the L2 cache.

A solution ``cols`` (column by row) with inverse ``rows_of`` (row by column) has 8 images; on the rows of
a combination they place the tuples ``cols[rows]``, ``cols[n - 1 - rows]`` (the row mirror),
``rows_of[rows]``, ``rows_of[n - 1 - rows]`` (the transposes) and the column mirrors of these four: so
marking the canonical forms of the four marks every image. Witnesses are stored by row, ``cols_t[row, w]``
and ``inverse_t[row, w]`` (uint8), so that one combination reads 4k streams of bytes.
"""

from __future__ import annotations

import numpy as np

from nqcsp.bitboard.derived_witnesses import hint_state
from nqcsp.bitboard.kernels import popcount
from nqcsp.bitboard.queen_set_kernels import allowed_rows, random_solution
from nqcsp.runtime.jit import njit

ONE = np.uint64(1)
ZERO = np.uint64(0)
# scan_combo's status: every uncovered set searched, or the witness arrays are too small to take them.
SCANNED = 0
NEEDS_ROOM = 1
# A solution the search returned does not contain the set it was asked to complete: a bug.
MISSED = 2
# Witnesses whose tuples mark_combo computes before setting their bits.
CHUNK = 2048


def block_words(n: int, k: int) -> int:
    """uint64 words of the block of one row combination: every canonical index, and a window of n bits
    read past the last one."""
    bits = (n + 1) // 2 * n ** (k - 1) + 2 * 64
    return -(-bits // 64)


@njit(cache=True, nogil=True, inline="always")
def _set(block, index):
    block[index >> 6] |= ONE << np.uint64(index & 63)


@njit(cache=True, nogil=True)
def mark_combo(n, k, rows, cols_t, inverse_t, start, stop, block):
    """Set the canonical bit of every tuple that witnesses ``start .. stop - 1`` (or their images) place
    on ``rows``. In chunks: the tuples' indices first, four loops over contiguous bytes that the compiler
    vectorises, then the bits (twice as fast as one witness at a time)."""
    top = np.int64(n) ** k - 1
    index = np.empty((4, CHUNK), np.int64)
    for lo in range(start, stop, CHUNK):
        hi = min(stop, lo + CHUNK)
        size = hi - lo
        for image in range(4):
            source = cols_t if image < 2 else inverse_t
            tuples = index[image]
            tuples[:size] = 0
            for i in range(k):
                row = rows[i] if image % 2 == 0 else n - 1 - rows[i]
                line = source[row, lo:hi]
                for j in range(size):
                    tuples[j] = tuples[j] * n + line[j]
            for j in range(size):
                tuples[j] = min(tuples[j], top - tuples[j])
        for image in range(4):
            tuples = index[image]
            for j in range(size):
                _set(block, tuples[j])


@njit(cache=True, nogil=True)
def _mark_one(n, k, rows, cols_t, inverse_t, w, block):
    """``mark_combo`` for witness ``w`` alone."""
    top = np.int64(n) ** k - 1
    for image in range(4):
        tuple_index = np.int64(0)
        for i in range(k):
            row = rows[i] if image % 2 == 0 else n - 1 - rows[i]
            tuple_index = tuple_index * n + (cols_t[row, w] if image < 2 else inverse_t[row, w])
        _set(block, min(tuple_index, top - tuple_index))


@njit(cache=True, nogil=True, inline="always")
def _window(block, base, n):
    """Bits ``base .. base + n - 1`` of the block as an n-bit mask (bit c: column c of the last row)."""
    word = base >> 6
    shift = np.uint64(base & 63)
    value = block[word] >> shift
    if shift != ZERO:
        value |= block[word + 1] << (np.uint64(64) - shift)
    if n < 64:
        value &= (ONE << np.uint64(n)) - ONE
    return value


@njit(cache=True, nogil=True)
def scan_combo(n, k, rows, cols_t, inverse_t, count, block, search, budget, rng, hard, totals,
               position_base, seed, hints):
    """Every canonical tuple of non-attacking queens on ``rows``, tested against ``block`` (marked by
    ``mark_combo``). ``totals`` (int64[4]) gets, in sets (a tuple counts 2, for itself and its column
    mirror, or 1 when it is its own mirror): [0] the sets on these rows, [1] those covered by a witness
    known when the scan reached them, [2] those a witness found by this scan covers, [3] those left in
    ``hard``.

    Without ``search`` nothing is searched, and [3] counts every uncovered set; with it, each uncovered
    tuple gets a randomised search for a solution (``budget`` nodes): a solution is appended as witness
    ``count`` (column by row in ``cols_t``, its inverse in ``inverse_t``) and marks its images here, so
    later tuples it covers need none; a search that fails leaves the tuple's columns in ``hard`` (a row
    each) for the residual engine.

    With ``position_base`` >= 0 (this combination's first position, ``derived_witnesses``) each search
    starts from ``hint_state(seed, position_base + index)`` instead of carrying ``rng`` on, so that its
    solution can be derived again from the tuple's position, which ``hints[w - count]`` gets for each new
    witness w (``hints`` as long as the uncovered tuples).

    Returns (status, witnesses now, hard tuples, uncovered tuples). Without ``search`` the status is
    NEEDS_ROOM when the witness arrays (or ``hard``) cannot take one row per uncovered tuple; with it,
    MISSED when a solution lacks its tuple (a bug)."""
    full = ~ZERO >> np.uint64(64 - n)
    mid = (n - 1) // 2
    odd = n % 2 == 1
    own_mirror = ONE << np.uint64(mid) if odd and k == 1 else ZERO
    # attacked[d, j]: the columns of row rows[j] attacked by the queens on rows[0 .. d - 1].
    attacked = np.zeros((k + 1, k), np.uint64)
    candidates = np.zeros(k, np.uint64)
    chosen = np.zeros(k, np.int64)
    prefix = np.zeros(k + 1, np.int64)
    cells = np.empty(k, np.int64)
    allowed = np.empty(n, np.uint64)
    free = np.empty(n, np.uint64)
    left = np.empty(n, np.uint64)
    down = np.empty(n, np.uint64)
    right = np.empty(n, np.uint64)
    columns = np.empty(n, np.int64)
    first_new = count
    sets = np.int64(0)
    covered = np.int64(0)
    found = np.int64(0)
    unsettled = np.int64(0)
    uncovered = 0
    hard_count = 0
    # The first row's columns up to the middle: a tuple starting right of it has the larger index.
    candidates[0] = full & ((ONE << np.uint64(mid + 1)) - ONE)
    depth = 0
    while depth >= 0:
        options = candidates[depth]
        if depth < k - 1:
            if options == ZERO:
                depth -= 1
                continue
            bit = options & (~options + ONE)
            candidates[depth] = options ^ bit
            col = np.int64(popcount(bit - ONE))
            chosen[depth] = col
            prefix[depth + 1] = prefix[depth] * n + col
            for j in range(depth + 1, k):
                distance = rows[j] - rows[depth]
                hit = bit
                if col + distance < n:
                    hit |= ONE << np.uint64(col + distance)
                if col - distance >= 0:
                    hit |= ONE << np.uint64(col - distance)
                attacked[depth + 1, j] = attacked[depth, j] | hit
            depth += 1
            following = full & ~attacked[depth, depth]
            if odd and depth == 1 and chosen[0] == mid:
                # A first queen in the middle column: the mirror image has the second one mirrored.
                following &= (ONE << np.uint64(mid)) - ONE
            candidates[depth] = following
            continue
        # The last row whole: its n tuples are n consecutive bits of the block.
        depth -= 1
        base = prefix[k - 1] * n
        known = _window(block, base, n)
        sets += 2 * np.int64(popcount(options)) - np.int64(popcount(options & own_mirror))
        held = options & known
        covered += 2 * np.int64(popcount(held)) - np.int64(popcount(held & own_mirror))
        waiting = options & ~known
        uncovered += popcount(waiting)
        if not search:
            unsettled += 2 * np.int64(popcount(waiting)) - np.int64(popcount(waiting & own_mirror))
            continue
        while waiting != ZERO:
            bit = waiting & (~waiting + ONE)
            waiting ^= bit
            chosen[k - 1] = np.int64(popcount(bit - ONE))
            for i in range(k):
                cells[i] = rows[i] * n + chosen[i]
            allowed_rows(n, cells, k, allowed)
            position = position_base + base + chosen[k - 1]
            if position_base >= 0:
                rng[0] = hint_state(seed, position)
            if random_solution(n, allowed, budget, rng, columns, free, left, down, right) == 1:
                if position_base >= 0:
                    hints[count - first_new] = position
                for row in range(n):
                    cols_t[row, count] = columns[row]
                    inverse_t[columns[row], count] = row
                mark_combo(n, k, rows, cols_t, inverse_t, count, count + 1, block)
                count += 1
                known = _window(block, base, n)
                if known & bit == ZERO:
                    return MISSED, count, hard_count, uncovered
                # The new witness's other images may cover more of this row.
                gained = known & (waiting | bit)
                found += 2 * np.int64(popcount(gained)) - np.int64(popcount(gained & own_mirror))
                waiting &= ~known
            else:
                for i in range(k):
                    hard[hard_count, i] = chosen[i]
                hard_count += 1
                unsettled += 2 - np.int64(popcount(bit & own_mirror))
    totals[0] += sets
    totals[1] += covered
    totals[2] += found
    totals[3] += unsettled
    if not search and (count + uncovered > cols_t.shape[1] or uncovered > hard.shape[0]):
        return NEEDS_ROOM, count, hard_count, uncovered
    return SCANNED, count, hard_count, uncovered


@njit(cache=True, nogil=True)
def random_witnesses(n, how_many, budget, rng, cols_t, inverse_t, start):
    """Solutions found by randomised searches on the empty board, appended as witnesses ``start ..``
    (stored as in ``scan_combo``); a search that runs out of ``budget`` nodes is tried again. Returns the
    witnesses now."""
    allowed = np.empty(n, np.uint64)
    allowed[:] = ~ZERO >> np.uint64(64 - n)
    free = np.empty(n, np.uint64)
    left = np.empty(n, np.uint64)
    down = np.empty(n, np.uint64)
    right = np.empty(n, np.uint64)
    columns = np.empty(n, np.int64)
    count = start
    while count < start + how_many:
        if random_solution(n, allowed, budget, rng, columns, free, left, down, right) != 1:
            continue
        for row in range(n):
            cols_t[row, count] = columns[row]
            inverse_t[columns[row], count] = row
        count += 1
    return count
