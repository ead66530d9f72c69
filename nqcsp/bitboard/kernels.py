"""Full-board bitboard kernels for exact counting and enumeration (n <= 64).

Boards are at most 64 wide: a row's columns are the bits of one uint64, bit c standing for column c.
Every kernel works from per-row masks prepared by the Python layer: ``allowed[r]`` (cells a queen in row r
may take: mandatory queens and symmetry restrictions are folded in there) and ``required[r]`` (columns that
no later row allows, so they must be taken by row r at the latest; it prunes dead branches early).
All uint64 arithmetic uses uint64 constants: mixing with Python ints would make numba fall back to floats.
"""

from __future__ import annotations

import numpy as np

from nqcsp.runtime.jit import njit

ONE = np.uint64(1)
ZERO = np.uint64(0)


@njit(cache=True, nogil=True, inline="always")
def _free(allowed_row, required_row, left, down, right):
    """Columns open in a row; nothing when two required columns are still empty (one queen takes one)."""
    free = allowed_row & ~(left | down | right)
    missing = required_row & ~down
    if missing != ZERO:
        if missing & (missing - ONE) != ZERO:
            return ZERO
        free &= missing
    return free


@njit(cache=True, nogil=True)
def _column(bit):
    col = 0
    while bit > ONE:
        bit >>= ONE
        col += 1
    return col


@njit(cache=True, nogil=True)
def _compare_rotation(n, own, image):
    """-1, 0 or 1 as the board ``own`` (columns by row) is lexicographically below, equal to or above."""
    for row in range(n):
        if own[row] != image[row]:
            return -1 if own[row] < image[row] else 1
    return 0


@njit(cache=True, nogil=True)
def _orbit_weight(n, bits, edge):
    """How many boards the leaf ``bits`` stands for in a no-corner search whose nearest edge queen is at
    distance ``edge`` from a corner: 0 unless it is the smallest of its candidate rotations, else the size
    of its symmetry orbit (2 when a quarter turn fixes it, 4 when only a half turn does, else 8).

    Only rotations can be other candidates: every reflection that keeps the top-left corner near the
    top-row queen would put a second queen on that queen's column or diagonal.
    """
    last = n - 1
    quarter_ccw = bits[edge] == (ONE << np.uint64(last))      # the right column's queen sits on row `edge`
    quarter_cw = bits[last - edge] == ONE                      # the left column's queen on row n-1-edge
    half = bits[last] == (ONE << np.uint64(last - edge))       # the bottom queen `edge` from the right
    if not (quarter_ccw or quarter_cw or half):
        return 8
    own = np.empty(n, np.int64)
    for row in range(n):
        own[row] = _column(bits[row])
    image = np.empty(n, np.int64)
    weight = 8
    if half:
        for row in range(n):
            image[row] = last - own[last - row]
        order = _compare_rotation(n, own, image)
        if order > 0:
            return 0
        if order == 0:
            weight = 4
    for clockwise in (False, True):
        if not (quarter_cw if clockwise else quarter_ccw):
            continue
        for row in range(n):
            # (r, c) -> (c, n-1-r) clockwise, (r, c) -> (n-1-c, r) counterclockwise
            if clockwise:
                image[own[row]] = last - row
            else:
                image[last - own[row]] = row
        order = _compare_rotation(n, own, image)
        if order > 0:
            return 0
        if order == 0:
            weight = 2
    return weight


@njit(cache=True, nogil=True, inline="always")
def _completing(board, allowed_last, free, left, down, right):
    """The cells of row n-2 (``free``, masks ``left``/``down``/``right``) that the last row completes.

    Two columns are open there; a queen on one leaves the other for the last row, which only has to be
    allowed and off the diagonals. Worked out in a few bit operations: no push, no loop, and an empty
    ``free`` simply gives nothing, so the caller needs no test first.
    """
    open_cols = board & ~down
    first = free & (~free + ONE)
    second = free ^ first
    done = ZERO
    if allowed_last & (open_cols ^ first) & ~(((left | first) << ONE) | ((right | first) >> ONE)) != ZERO:
        done = first
    if second != ZERO and (allowed_last & (open_cols ^ second)
                           & ~(((left | second) << ONE) | ((right | second) >> ONE))) != ZERO:
        done |= second
    return done


@njit(cache=True, nogil=True)
def _weigh_completions(n, bits, edge, done, open_cols):
    """Total weight and number of counted leaves among ``done`` (row n-2 cells); ``bits`` holds rows
    0..n-3. A leaf whose orbit weight is 0 is another leaf's rotation and is not counted."""
    if edge == 0:
        leaves = 1 + (done & (done - ONE) != ZERO)
        return leaves, leaves
    total = 0
    leaves = 0
    while done != ZERO:
        cell = done & (~done + ONE)
        done ^= cell
        bits[n - 2] = cell
        bits[n - 1] = open_cols ^ cell
        weight = _orbit_weight(n, bits, edge)
        total += weight
        leaves += weight != 0
    return total, leaves


@njit(cache=True, nogil=True)
def _replay(n, prefix, allowed, required, bits):
    """Masks after placing ``prefix`` (columns of the first rows); all ones in ``down`` if it is invalid."""
    left = ZERO
    down = ZERO
    right = ZERO
    for row in range(prefix.shape[0]):
        bit = ONE << np.uint64(prefix[row])
        if _free(allowed[row], required[row], left, down, right) & bit == ZERO:
            return ZERO, ~ZERO, ZERO
        bits[row] = bit
        left = (left | bit) << ONE
        down |= bit
        right = (right | bit) >> ONE
    return left, down, right


@njit(cache=True, nogil=True)
def count_completions(n, allowed, required, prefix, edge):
    """Solutions extending ``prefix``, as (weight, leaves): plain leaves weigh 1, with ``edge`` > 0 their
    orbit weight; ``leaves`` counts the leaves of non-zero weight (one per symmetry class searched).

    The hot loop of ``count``. The current row's masks stay in locals and a row is entered only when it has
    a free cell, so a dead end costs no push and pop; the last two rows are never entered: from row n-3
    each child is finished by ``_completing``, which cut the CPU time by about 8% (rows n-2 were ~7% of
    all pushes, and their two-cell loops mispredicted).
    """
    bits = np.zeros(n, np.uint64)
    start = prefix.shape[0]
    left, down, right = _replay(n, prefix, allowed, required, bits)
    if down == ~ZERO:
        return 0, 0
    if start == n:
        return _leaf(n, bits, edge)
    free = _free(allowed[start], required[start], left, down, right)
    if start == n - 1:
        if free == ZERO:
            return 0, 0
        bits[start] = free
        return _leaf(n, bits, edge)
    board = ~ZERO >> np.uint64(64 - n)
    if start == n - 2:
        done = _completing(board, allowed[n - 1], free, left, down, right)
        return (0, 0) if done == ZERO else _weigh_completions(n, bits, edge, done, board & ~down)
    # One row of (free, left, down, right) per level. Indexed with unsigned ints: a signed index makes
    # numba emit Python's negative-index wraparound on every access, and that cost the hot loop ~20%.
    saved = np.empty((n, 4), np.uint64)
    # Prefix rows have their queens in ``bits`` already; record the columns taken before each one so
    # that a leaf can recover every row's queen from ``saved_down`` (cheaper than storing each bit).
    taken = ZERO
    for r in range(start):
        saved[r, 2] = taken
        taken |= bits[r]
    # Columns that must be taken by some row exist only near the bottom; check them only from there.
    first_required = n
    for r in range(n - 1, start, -1):
        if required[r] != ZERO:
            first_required = r
    third_last = n - 3
    last_allowed = allowed[n - 1]
    total = 0
    leaves = 0
    row = start
    while True:
        if free == ZERO:
            if row == start:
                break
            row -= 1
            level = saved[np.uint64(row)]
            free, left, down, right = level[0], level[1], level[2], level[3]
            continue
        bit = free & (~free + ONE)
        free ^= bit
        next_left = (left | bit) << ONE
        next_down = down | bit
        next_right = (right | bit) >> ONE
        next_free = allowed[np.uint64(row + 1)] & ~(next_left | next_down | next_right)
        if row + 1 >= first_required:
            missing = required[np.uint64(row + 1)] & ~next_down
            if missing != ZERO:
                next_free = ZERO if missing & (missing - ONE) != ZERO else next_free & missing
        if row == third_last:
            done = _completing(board, last_allowed, next_free, next_left, next_down, next_right)
            if done != ZERO:
                if edge > 0:
                    saved[row, 2] = down
                    for r in range(start, row):
                        bits[r] = saved[r + 1, 2] ^ saved[r, 2]
                    bits[row] = bit
                weight, found = _weigh_completions(n, bits, edge, done, board & ~next_down)
                total += weight
                leaves += found
            continue
        if next_free == ZERO:
            continue
        level = saved[np.uint64(row)]
        level[0], level[1], level[2], level[3] = free, left, down, right
        row += 1
        free, left, down, right = next_free, next_left, next_down, next_right
    return total, leaves


@njit(cache=True, nogil=True)
def _leaf(n, bits, edge):
    if edge == 0:
        return 1, 1
    weight = _orbit_weight(n, bits, edge)
    return weight, int(weight != 0)


@njit(cache=True, nogil=True)
def count_many(n, allowed, required, prefixes, edge, counts):
    """``counts[i]`` = (weight, leaves) of the completions of ``prefixes[i]``; one call per batch keeps
    Python overhead small."""
    for i in range(prefixes.shape[0]):
        counts[i, 0], counts[i, 1] = count_completions(n, allowed, required, prefixes[i], edge)


@njit(cache=True, nogil=True, inline="always")
def _next_random(state):
    """xorshift64*: the caller's seeded ``state[0]`` advances, so estimates repeat run to run."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@njit(cache=True, nogil=True)
def estimate_nodes(n, allowed, required, prefixes, probes, state, out):
    """``out[i]``: Knuth's estimate of the search nodes below ``prefixes[i]``, the mean over ``probes``
    random descents of the sum of the products of the branching factors met on the way down. Unbiased, and
    cheap next to the search (a descent costs one node per row): it sizes counting tasks."""
    bits = np.zeros(n, np.uint64)
    start = prefixes.shape[1]
    for i in range(prefixes.shape[0]):
        left0, down0, right0 = _replay(n, prefixes[i], allowed, required, bits)
        if down0 == ~ZERO:
            out[i] = 0.0
            continue
        total = 0.0
        for _ in range(probes):
            left, down, right = left0, down0, right0
            product = 1.0
            nodes = 1.0
            for row in range(start, n):
                free = _free(allowed[row], required[row], left, down, right)
                options = popcount(free)
                if options == ZERO:
                    break
                product *= float(options)
                nodes += product
                for _ in range(np.int64(_next_random(state) % options)):
                    free &= free - ONE
                bit = free & (~free + ONE)
                left = (left | bit) << ONE
                down |= bit
                right = (right | bit) >> ONE
            total += nodes
        out[i] = total / probes


@njit(cache=True, nogil=True)
def start_enumeration(n, allowed, required, state):
    """Reset ``state`` (rows x 5: remaining, left, down, right, column; plus the row in ``state[n, 0]``)."""
    state[:, :] = ZERO
    state[0, 0] = _free(allowed[0], required[0], ZERO, ZERO, ZERO)
    state[n, 0] = ZERO


@njit(cache=True, nogil=True)
def enumerate_batch(n, allowed, required, depth, state, out, budget):
    """Fill ``out`` with the next placements of the first ``depth`` rows, in lexicographic order, in at
    most ``budget`` steps of the search.

    Resumable: the DFS stack lives in ``state``; a call returns how many rows of ``out`` it wrote. The
    tree is exhausted when ``state[n, 0]`` is all ones (``enumeration_done``).
    """
    row = np.int64(state[n, 0])
    last = depth - 1
    written = 0
    steps = 0
    while row >= 0 and written < out.shape[0] and steps < budget:
        steps += 1
        free = state[row, 0]
        if free == ZERO:
            row -= 1
            continue
        bit = free & (~free + ONE)
        state[row, 0] = free ^ bit
        state[row, 4] = bit
        if row == last:
            for r in range(depth):
                out[written, r] = _column(state[r, 4])
            written += 1
            continue
        left = (state[row, 1] | bit) << ONE
        down = state[row, 2] | bit
        right = (state[row, 3] | bit) >> ONE
        row += 1
        state[row, 1], state[row, 2], state[row, 3] = left, down, right
        state[row, 0] = _free(allowed[row], required[row], left, down, right)
    # A negative row marks exhaustion; stored as all ones since the state is unsigned.
    state[n, 0] = np.uint64(row) if row >= 0 else ~ZERO
    return written


@njit(cache=True, nogil=True, inline="always")
def popcount(x):
    """Set bits of a uint64 (SWAR: numba has no popcount intrinsic)."""
    x = x - ((x >> ONE) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)
