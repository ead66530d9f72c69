"""Kernels for sets of k mutually non-attacking queens on an n x n board (n <= 64): their symmetry classes,
the classes a solution covers, and a randomised first-solution search with a node budget (numba).

A cell is the code ``row * n + col``; a set is its codes in ascending order, and its key the number whose
base-``n * n`` digits are those codes, so keys order sets lexicographically. A class (a set under the
board's 8 symmetries) is named by its least key, its canonical set. The Python layer checks that
``(n * n) ** k`` fits in 63 bits.

Work is split by prefix: a task holds the canonical sets whose first cell is ``first`` and, for k >= 2,
whose second cell lies in ``second_lo .. second_hi - 1``. Every queen of a canonical set whose first cell
is on row r0 lies within ``r0`` rows and columns of no edge (its images would otherwise start earlier),
which bounds every loop here.
"""

from __future__ import annotations

import numpy as np

from nqcsp.bitboard.kernels import _next_random, popcount
from nqcsp.runtime.jit import njit

ONE = np.uint64(1)
ZERO = np.uint64(0)

# States of a class during a sweep.
OPEN = 0            # not decided yet
WITNESSED = 1       # some solution contains it
EXHAUSTED = 2       # the randomised search proved it has no solution (a claim, certified elsewhere)
BUDGET = 3          # the randomised search gave up: the residual search decides it
CONFLICT = -1       # returned by cover when a solution contains a class said to have none: a bug


@njit(cache=True, nogil=True, inline="always")
def _image(n, symmetry, row, col):
    """The image of (row, col) under symmetry 0..7, in the order of
    ``nqcsp.board.symmetry.canonical_codes``."""
    m = n - 1
    if symmetry == 0:
        return row, col
    if symmetry == 1:
        return col, row
    if symmetry == 2:
        return m - row, col
    if symmetry == 3:
        return row, m - col
    if symmetry == 4:
        return m - row, m - col
    if symmetry == 5:
        return col, m - row
    if symmetry == 6:
        return m - col, row
    return m - col, m - row


@njit(cache=True, nogil=True)
def _sort_prefix(codes, count):
    """Sort ``codes[:count]`` in place (insertion sort: count is at most a handful)."""
    for i in range(1, count):
        value = codes[i]
        j = i - 1
        while j >= 0 and codes[j] > value:
            codes[j + 1] = codes[j]
            j -= 1
        codes[j + 1] = value


@njit(cache=True, nogil=True)
def _sorted_key(codes, count, base):
    """Key of ``codes[:count]`` once sorted."""
    _sort_prefix(codes, count)
    key = np.int64(0)
    for i in range(count):
        key = key * base + codes[i]
    return key


@njit(cache=True, nogil=True)
def class_of(n, cells, count, scratch):
    """(least image key, key of the set itself, class size) of the set ``cells[:count]`` (codes)."""
    base = n * n
    own = np.int64(-1)
    least = np.int64(-1)
    same = 0
    keys = np.empty(8, np.int64)
    for s in range(8):
        for i in range(count):
            r, c = _image(n, s, cells[i] // n, cells[i] % n)
            scratch[i] = r * n + c
        keys[s] = _sorted_key(scratch, count, base)
    own = keys[0]
    least = keys[0]
    for s in range(8):
        if keys[s] < least:
            least = keys[s]
        if keys[s] == own:
            same += 1
    return least, own, 8 // same


@njit(cache=True, nogil=True, inline="always")
def _attacks(n, a, b):
    ra, ca = a // n, a % n
    rb, cb = b // n, b % n
    return ra == rb or ca == cb or ra + ca == rb + cb or ra - ca == rb - cb


@njit(cache=True, nogil=True)
def task_classes(n, k, first, second_lo, second_hi):
    """The canonical sets of the task, ascending by key, and their class sizes (k-sets each stands for)."""
    base = n * n
    r0 = first // n
    lo_line, hi_line = r0, n - 1 - r0
    capacity = 1024
    keys = np.empty(capacity, np.int64)
    sizes = np.empty(capacity, np.int8)
    found = 0
    chosen = np.empty(k, np.int64)
    scratch = np.empty(k, np.int64)
    following = np.empty(k, np.int64)     # next code to try at each position
    chosen[0] = first
    if k == 1:
        least, own, size = class_of(n, chosen, 1, scratch)
        if least == own:
            keys[0] = own
            sizes[0] = size
            found = 1
        return keys[:found].copy(), sizes[:found].copy()
    position = 1
    following[1] = max(second_lo, (r0 + 1) * n)
    while position >= 1:
        code = following[position]
        limit = second_hi if position == 1 else base
        if code >= limit or code // n > hi_line:
            position -= 1
            continue
        following[position] = code + 1
        col = code % n
        if col < lo_line or col > hi_line:
            continue
        clash = False
        for i in range(position):
            if _attacks(n, chosen[i], code):
                clash = True
                break
        if clash:
            continue
        chosen[position] = code
        if position < k - 1:
            position += 1
            # Queens are on distinct rows: the next one starts on the next row.
            following[position] = (code // n + 1) * n
            continue
        least, own, size = class_of(n, chosen, k, scratch)
        if least != own:
            continue
        if found == capacity:
            capacity *= 2
            grown_keys = np.empty(capacity, np.int64)
            grown_sizes = np.empty(capacity, np.int8)
            grown_keys[:found] = keys[:found]
            grown_sizes[:found] = sizes[:found]
            keys, sizes = grown_keys, grown_sizes
        keys[found] = own
        sizes[found] = size
        found += 1
    return keys[:found].copy(), sizes[:found].copy()


@njit(cache=True, nogil=True, inline="always")
def _witnessed(keys, state, key):
    """Mark class ``key`` (when it is one of ``keys``) as contained in a solution: 1 when newly marked, 0
    when absent or marked already, CONFLICT when it was said to have no solution."""
    index = np.searchsorted(keys, key)
    if index < keys.shape[0] and keys[index] == key and state[index] != WITNESSED:
        if state[index] == EXHAUSTED:
            return CONFLICT
        state[index] = WITNESSED
        return 1
    return 0


@njit(cache=True, nogil=True)
def cover(n, k, first, second_lo, second_hi, keys, state, witness, image, rows):
    """Mark WITNESSED every class of the task that some k-subset of the solution ``witness`` (columns by
    row), or of one of its 8 images, stands for. Returns how many were newly marked, or CONFLICT when the
    solution contains a class marked EXHAUSTED.

    An image is a solution, one queen per row, so the rows of a subset in ascending order give its cells in
    ascending order: the key comes without sorting, and a key found among the task's keys is canonical.
    """
    base = n * n
    r0 = first // n
    c0 = first % n
    lo_line, hi_line = r0, n - 1 - r0
    marked = 0
    for s in range(8):
        for row in range(n):
            r, c = _image(n, s, row, witness[row])
            image[r] = c
        if image[r0] != c0:
            continue
        if k == 1:
            found = _witnessed(keys, state, first)
            if found == CONFLICT:
                return CONFLICT
            marked += found
            continue
        # rows[1..k-1]: the subset's other rows, ascending, between r0 + 1 and n - 1 - r0.
        position = 1
        rows[1] = r0
        while position >= 1:
            rows[position] += 1
            row = rows[position]
            if row > hi_line - (k - 1 - position):
                position -= 1
                continue
            col = image[row]
            if col < lo_line or col > hi_line:
                continue
            code = row * n + col
            if position == 1 and (code < second_lo or code >= second_hi):
                continue
            if position < k - 1:
                position += 1
                rows[position] = row
                continue
            key = np.int64(first)
            for i in range(1, k):
                key = key * base + rows[i] * n + image[rows[i]]
            found = _witnessed(keys, state, key)
            if found == CONFLICT:
                return CONFLICT
            marked += found
    return marked


@njit(cache=True, nogil=True)
def allowed_rows(n, cells, count, allowed):
    """Per row, the columns a queen may take with the queens ``cells[:count]`` (codes) placed."""
    full = ~ZERO >> np.uint64(64 - n)
    allowed[:n] = full
    for i in range(count):
        qr, qc = cells[i] // n, cells[i] % n
        for row in range(n):
            if row == qr:
                allowed[row] &= ONE << np.uint64(qc)
                continue
            distance = abs(row - qr)
            attacked = ONE << np.uint64(qc)
            if qc + distance < n:
                attacked |= ONE << np.uint64(qc + distance)
            if qc - distance >= 0:
                attacked |= ONE << np.uint64(qc - distance)
            allowed[row] &= ~attacked


@njit(cache=True, nogil=True)
def random_solution(n, allowed, budget, rng, columns, free, left, down, right):
    """Depth-first search row by row for a solution within ``allowed``, trying each row's cells in a random
    order (``rng``: xorshift state): 1 found (``columns``), -1 none exists, 0 the node budget ran out.

    Random order makes consecutive witnesses differ, so each covers classes the previous ones did not.
    """
    left[0] = ZERO
    down[0] = ZERO
    right[0] = ZERO
    free[0] = allowed[0]
    nodes = 0
    row = 0
    while row >= 0:
        options = free[row]
        if options == ZERO:
            row -= 1
            continue
        pick = _next_random(rng) % popcount(options)
        while pick > ZERO:
            options &= options - ONE
            pick -= ONE
        bit = options & (~options + ONE)
        free[row] ^= bit
        columns[row] = np.int64(popcount(bit - ONE))
        nodes += 1
        if nodes > budget:
            return 0
        if row == n - 1:
            return 1
        left[row + 1] = (left[row] | bit) << ONE
        down[row + 1] = down[row] | bit
        right[row + 1] = (right[row] | bit) >> ONE
        free[row + 1] = allowed[row + 1] & ~(left[row + 1] | down[row + 1] | right[row + 1])
        row += 1
    return -1


@njit(cache=True, nogil=True)
def decode(n, k, key, cells):
    base = n * n
    for i in range(k - 1, -1, -1):
        cells[i] = key % base
        key //= base


@njit(cache=True, nogil=True)
def witness_pass(n, k, first, second_lo, second_hi, keys, state, start, stop, budget, rng, witnesses,
                 gains):
    """For each OPEN class in ``start .. stop - 1``: a randomised search with the class's queens placed;
    a solution is stored in ``witnesses`` (its new classes in ``gains``) and covers every class of the task
    it contains; otherwise the class becomes EXHAUSTED or BUDGET.

    Returns (next class index, witnesses written, conflict flag); it stops early when ``witnesses`` is full,
    so that the caller can keep them and call again.
    """
    cells = np.empty(k, np.int64)
    allowed = np.empty(n, np.uint64)
    free = np.empty(n, np.uint64)
    left = np.empty(n, np.uint64)
    down = np.empty(n, np.uint64)
    right = np.empty(n, np.uint64)
    image = np.empty(n, np.int64)
    rows = np.empty(k, np.int64)
    written = 0
    index = start
    while index < stop:
        if written == witnesses.shape[0]:
            return index, written, False
        if state[index] != OPEN:
            index += 1
            continue
        decode(n, k, keys[index], cells)
        allowed_rows(n, cells, k, allowed)
        found = random_solution(n, allowed, budget, rng, witnesses[written], free, left, down, right)
        if found == 1:
            marked = cover(n, k, first, second_lo, second_hi, keys, state, witnesses[written], image, rows)
            if marked < 0 or state[index] != WITNESSED:
                return index, written, True
            gains[written] = marked
            written += 1
        elif found == -1:
            state[index] = EXHAUSTED
        else:
            state[index] = BUDGET
        index += 1
    return index, written, False


@njit(cache=True, nogil=True)
def cover_many(n, k, first, second_lo, second_hi, keys, state, witnesses, gains):
    """``cover`` for each row of ``witnesses``; ``gains[i]`` = classes newly marked by witness i, or
    CONFLICT."""
    image = np.empty(n, np.int64)
    rows = np.empty(max(k, 1), np.int64)
    for i in range(witnesses.shape[0]):
        gains[i] = cover(n, k, first, second_lo, second_hi, keys, state, witnesses[i], image, rows)


@njit(cache=True, nogil=True)
def estimate_completions(n, allowed, probes, rng, work, placed):
    """Knuth's estimate of the number of solutions within ``allowed`` (per-row masks): the mean over
    ``probes`` random descents of the product of the branching factors, 0 for a descent that dies. Each
    descent fills the row with the fewest open cells first and dies as soon as a row, or an open column,
    has no cell left, so constrained boards die early and cheaply: a small estimate means constrained."""
    full = ~ZERO >> np.uint64(64 - n)
    total = 0.0
    for _ in range(probes):
        for r in range(n):
            work[r] = allowed[r]
            placed[r] = False
        open_cols = full
        product = 1.0
        alive = True
        for _step in range(n):
            best = -1
            best_count = np.uint64(65)
            union = ZERO
            for r in range(n):
                if placed[r]:
                    continue
                options = work[r] & open_cols
                union |= options
                count = popcount(options)
                if count < best_count:
                    best, best_count = r, count
            if best_count == ZERO or union != open_cols:
                alive = False
                break
            options = work[best] & open_cols
            pick = _next_random(rng) % best_count
            while pick > ZERO:
                options &= options - ONE
                pick -= ONE
            bit = options & (~options + ONE)
            col = np.int64(popcount(bit - ONE))
            product *= float(best_count)
            placed[best] = True
            open_cols &= ~bit
            for r in range(n):
                if placed[r]:
                    continue
                distance = abs(r - best)
                mask = ZERO
                if col + distance < n:
                    mask |= ONE << np.uint64(col + distance)
                if col - distance >= 0:
                    mask |= ONE << np.uint64(col - distance)
                work[r] &= ~mask
        if alive:
            total += product
    return total / probes


# --- sets known covered, across tasks: a bit per k-set of the board --------------------------------------
# A k-set's bit is its colex rank: the sum over its codes c_0 < ... < c_{k-1} of C(c_i, i + 1), taken from
# ``binom[i + 1, c_i]``. A witness marks the k-subsets of itself only, not of its 7 other images: a class is
# then covered when the bit of one of its canonical set's 8 images is set, which a task asks once per class
# (8 ranks computed in registers), where marking every image cost 8 scattered bit writes per subset of
# every witness (at n = 23, 1.6 ms a witness against 0.2 ms). Marking goes row-combination by
# row-combination with the largest row outermost, so the innermost loop moves the rank by the smallest code
# only and the bits it sets lie close together.


@njit(cache=True, nogil=True)
def mark_known(n, k, witnesses, binom, bits):
    """Set the bit of every k-subset of every witness (columns by row): sets known to extend to a
    solution. Returns how many bits were newly set."""
    rows = np.empty(k + 1, np.int64)
    partial = np.zeros(k + 1, np.int64)
    new = 0
    for w in range(witnesses.shape[0]):
        position = k - 1
        rows[position] = position - 1
        rows[k] = n
        while position < k:
            rows[position] += 1
            if rows[position] >= rows[position + 1]:
                position += 1
                continue
            row = rows[position]
            partial[position] = partial[position + 1] + binom[position + 1, row * n + witnesses[w, row]]
            if position > 0:
                position -= 1
                rows[position] = position - 1
                continue
            rank = partial[0]
            bit = np.uint8(1) << np.uint8(rank & 7)
            if bits[rank >> 3] & bit == 0:
                bits[rank >> 3] |= bit
                new += 1
    return new


@njit(cache=True, nogil=True)
def take_known(n, k, keys, binom, bits, state):
    """Mark WITNESSED every OPEN class among ``keys`` one of whose 8 images has its bit set (a witness of
    a recorded task contains it). Returns how many were marked."""
    base = n * n
    cells = np.empty(k, np.int64)
    scratch = np.empty(k, np.int64)
    marked = 0
    for index in range(keys.shape[0]):
        if state[index] != OPEN:
            continue
        key = keys[index]
        for i in range(k - 1, -1, -1):
            cells[i] = key % base
            key //= base
        for s in range(8):
            for i in range(k):
                r, c = _image(n, s, cells[i] // n, cells[i] % n)
                scratch[i] = r * n + c
            _sort_prefix(scratch, k)
            rank = np.int64(0)
            for i in range(k):
                rank += binom[i + 1, scratch[i]]
            if bits[rank >> 3] & (np.uint8(1) << np.uint8(rank & 7)):
                state[index] = WITNESSED
                marked += 1
                break
    return marked
