"""Numba kernels of the local-search backends ``qs4`` and ``minconflicts``.

Everything a run needs lives in arrays owned by the caller, so a kernel can stop after ``budget`` units
of work, let Python look at the clock, and be called again to resume exactly where it stopped:

- ``q[row] = col``; ``diag`` counts the queens on every diagonal of both families in 2-bit fields, four
  to a byte: line ``row + col`` (anti-diagonals), then line ``row - col + 3n - 2`` (diagonals, after the
  2n - 1 anti-diagonals); ``cols[col]`` (min-conflicts only: it leaves the permutation) the queens in each
  column, one byte each. Packed counters are what makes big boards fast: the greedy start reads two
  random counters per try, and at n = 10^7 the whole table (n bytes) stays in the last-level cache.
- During the set-up and greedy phases of a greedy attempt ``diag`` is a bitset instead, one bit per line
  in the first half of its bytes (``DIAG_BITS``): no line holds two queens then, and the lines a greedy
  try reads (n of each family) take 25 MB at n = 10^8 instead of 50, which mostly fits the last-level
  cache (greedy: 79 ns a row at 10^8 with the counters, 52 at 5 * 10^7 where they took 25 MB). The
  bits are spread into the counters in place, in one sequential pass, when the greedy phase ends or
  when a row finds no free cell (it is then placed in conflict, which only a counter can record).
- ``fixed`` is a bitset of the mandatory rows; ``mand_rows``/``mand_cols`` list them by row and
  ``mand_cols_sorted`` their columns in order.
- ``work`` (qs4 only) is a list of rows that may be attacked. Invariant: on every line holding two or
  more queens, all of them but at most one are listed, so picking from the list finds every conflict,
  and nobody scans the whole board for attacked queens (at n = 10^8 that scan alone costs seconds).
  Min-conflicts keeps no list: a step costs O(n) anyway, so it finds a uniformly random attacked queen
  by probing random rows (about n / attacked probes), which, unlike the list, also picks the queen that
  was there first, not only the newcomer.
- ``state`` holds the phase, cursors, counters and budgets (indices below); ``rng`` the PRNG state.

A queen is never added to a line already holding ``LIMIT`` queens (such a move is refused), so no counter
wraps into its neighbour. Real runs stay far below: greedy placement leaves at most one queen per diagonal
except for the last few random ones.
"""

from __future__ import annotations

import numpy as np

from nqcsp.runtime.jit import njit, prefetch

# Indices into the int64 state array.
PHASE = 0
CURSOR = 1            # next row of the shuffle, greedy or tail phase
WORK_SIZE = 2
COLLISIONS = 3        # sum over all lines of (queens on it - 1)
FAILED = 4            # qs4: failed swaps of this attempt
ITERATIONS = 5        # repair steps, all attempts
RESTARTS = 6
INITIAL_CONFLICTS = 7  # collisions when the repair of the current attempt started
STALL = 8             # min-conflicts: steps since the best collision count of this attempt improved
BEST = 9
GREEDY_END = 10       # rows from here on are placed at random (Sosic & Gu's last c queens)
MAX_FAILED = 11       # qs4: failed swaps allowed per attempt
STALL_LIMIT = 12      # min-conflicts: steps without improvement allowed per attempt
MAX_RESTARTS = 13
SCAN_LIMIT = 14       # greedy: columns tried per row before it is placed anyway
FREE_ROWS = 15
SCAN_POS = 16         # greedy: where the search for the next row's column resumes
CONSTRUCTED = 17      # the first attempt starts from the caller's q (a near-solution), not from greedy
DIAG_BITS = 18        # 1 while ``diag`` holds one occupancy bit per line instead of the counters
KEYS = 19             # set-up: the keys of this attempt's random permutation of the free columns
ROUNDS = 2
STATE_SIZE = KEYS + 2 * ROUNDS

# Phases.
SETUP, GREEDY, TAIL, REPAIR, SOLVED, EXHAUSTED = range(6)  # the finished ones last

FIELD_BITS = 2
FIELD_MASK = (1 << FIELD_BITS) - 1
FIELDS_PER_BYTE = 8 // FIELD_BITS
LIMIT = FIELD_MASK  # the most queens a counter may hold
# Greedy: candidates this far ahead of the scan have their diagonal counters prefetched. Row r + 8 tests
# about the candidate at scan + 24, and its counter sits a few bytes from the prefetched r + col. Every
# candidate is prefetched once, however many a row consumes: prefetching a fixed four a row left the
# candidates of rows that tried more than four unfetched (greedy 6.9 s -> 4.3 s at 10^8, 24.6 -> 13.3 ns
# a try; at 10^9, where two random reads a try are what the memory can serve, 26 -> 25 ns a try late on).
PREFETCH_AHEAD = 24


def diagonal_bytes(n: int) -> int:
    """Bytes of the packed counters of both diagonal families of an n-board."""
    return (2 * (2 * n - 1) + FIELDS_PER_BYTE - 1) // FIELDS_PER_BYTE if n else 0

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True)
def next_random(rng):
    """splitmix64 (Steele, Lea & Flood 2014): one uint64 of state, full period, good enough mixing."""
    z = rng[0] + _GOLDEN
    rng[0] = z
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _below(rng, m):
    """Uniform-enough integer in [0, m) for m < 2**32 (Lemire's multiply-shift, no division)."""
    return np.int64(((next_random(rng) >> np.uint64(32)) * np.uint64(m)) >> np.uint64(32))


@njit(cache=True)
def _is_fixed(fixed, row):
    return (fixed[row >> 3] >> (row & 7)) & 1


@njit(cache=True)
def _free_row_from(fixed, rng, start, n):
    """A random non-mandatory row in [start, n); the caller guarantees one exists."""
    while True:
        row = start + _below(rng, n - start)
        if not _is_fixed(fixed, row):
            return row


@njit(cache=True)
def up_line(n, row, col):
    return row + col


@njit(cache=True)
def down_line(n, row, col):
    return row - col + 3 * n - 2


@njit(cache=True)
def diagonal_count(diag, line):
    return np.int64((diag[line >> 2] >> ((line & 3) << 1)) & FIELD_MASK)


@njit(cache=True)
def _occupied(diag, line):
    """Bit mode: the line holds a queen."""
    return (diag[line >> 3] >> (line & 7)) & 1


@njit(cache=True)
def _occupy(diag, line):
    diag[line >> 3] |= np.uint8(1 << (line & 7))


@njit(cache=True)
def _occupy_cell(diag, n, row, col):
    """Bit mode: both lines of (row, col) hold a queen now (``_drop`` for the counters)."""
    _occupy(diag, up_line(n, row, col))
    _occupy(diag, down_line(n, row, col))


@njit(cache=True)
def _line_free(diag, line, bits):
    return _occupied(diag, line) == 0 if bits else diagonal_count(diag, line) == 0


@njit(cache=True)
def _spread(nibble):
    """Bits 0-3 to bits 0, 2, 4, 6: four one-queen counters."""
    x = (nibble | (nibble << 2)) & 0x33
    return np.uint8((x | (x << 1)) & 0x55)


@njit(cache=True)
def _bits_to_counters(diag, state):
    """Turn the occupancy bits into 2-bit counters in place. Going down from the last byte, byte b of
    bits becomes bytes 2b and 2b + 1, which are never still to be read (2b >= b + 1 for b >= 1)."""
    size = diag.size
    for b in range((size + 1) // 2 - 1, -1, -1):
        x = np.int64(diag[b])
        if 2 * b + 1 < size:
            diag[2 * b + 1] = _spread(x >> 4)
        diag[2 * b] = _spread(x & 15)
    state[DIAG_BITS] = 0


@njit(cache=True)
def _field(line):
    return np.uint8(1 << ((line & 3) << 1))


@njit(cache=True)
def _leave_diagonal(diag, line):
    """Take a queen off a diagonal; the change in collisions."""
    c = diagonal_count(diag, line)
    diag[line >> 2] -= _field(line)
    return -1 if c >= 2 else 0


@njit(cache=True)
def _enter_diagonal(diag, line):
    c = diagonal_count(diag, line)
    diag[line >> 2] += _field(line)
    return 1 if c >= 1 else 0


@njit(cache=True)
def _leave_column(cols, col):
    c = cols[col]
    cols[col] = c - 1
    return -1 if c >= 2 else 0


@njit(cache=True)
def _enter_column(cols, col):
    c = cols[col]
    cols[col] = c + 1
    return 1 if c >= 1 else 0


@njit(cache=True)
def _lift(q, diag, row, col):
    n = q.size
    return _leave_diagonal(diag, up_line(n, row, col)) + _leave_diagonal(diag, down_line(n, row, col))


@njit(cache=True)
def _drop(q, diag, row, col):
    n = q.size
    return _enter_diagonal(diag, up_line(n, row, col)) + _enter_diagonal(diag, down_line(n, row, col))


@njit(cache=True)
def swap_queens(q, diag, i, j):
    """Exchange the columns of rows i and j, updating the diagonal counters; the change in collisions.

    Swapping again undoes it. The caller checks first that no counter would pass LIMIT.
    """
    if i == j:
        return 0
    a = np.int64(q[i])
    b = np.int64(q[j])
    delta = _lift(q, diag, i, a) + _lift(q, diag, j, b)
    q[i] = b
    q[j] = a
    return delta + _drop(q, diag, i, b) + _drop(q, diag, j, a)


@njit(cache=True)
def move_queen(q, cols, diag, row, col):
    """Move the queen of ``row`` to ``col``, updating all counters; the change in collisions."""
    old = np.int64(q[row])
    if old == col:
        return 0
    delta = _leave_column(cols, old) + _lift(q, diag, row, old)
    delta += _enter_column(cols, col) + _drop(q, diag, row, col)
    q[row] = col
    return delta


@njit(cache=True)
def _push(work, state, row):
    """List a possibly attacked row; False when the list is full (the attempt is then abandoned)."""
    if work.size == 0:
        return True
    size = state[WORK_SIZE]
    if size >= work.size:
        return False
    work[size] = row
    state[WORK_SIZE] = size + 1
    return True


@njit(cache=True)
def _restart(state):
    state[RESTARTS] += 1
    state[CURSOR] = 0  # the set-up starts from row 0, where it clears the counters
    state[CONSTRUCTED] = 0  # later attempts start from a fresh random greedy board
    state[PHASE] = EXHAUSTED if state[RESTARTS] > state[MAX_RESTARTS] else SETUP


@njit(cache=True)
def _place_rows(q, diag, fixed, work, state, start, stop):
    """Add the free queens of rows [start, stop) to the diagonal counters, listing those in conflict; the
    first row that cannot be placed (overflow, full list), or -1.

    One call for a range, not one per row: a call per row made the placement of a constructed start (all
    n rows) four times slower, numba passing every array field by field.
    """
    n = q.size
    for row in range(start, stop):
        if _is_fixed(fixed, row):
            continue
        col = np.int64(q[row])
        up = up_line(n, row, col)
        down = down_line(n, row, col)
        on_up = diagonal_count(diag, up)
        on_down = diagonal_count(diag, down)
        if on_up >= LIMIT or on_down >= LIMIT:
            return row
        _enter_diagonal(diag, up)
        _enter_diagonal(diag, down)
        hits = (on_up > 0) + (on_down > 0)
        if hits:
            state[COLLISIONS] += hits
            if not _push(work, state, row):
                return row
    return -1


@njit(cache=True)
def _draw_keys(state, rng):
    """Odd multipliers and offsets of this attempt's permutation (62 bits: they fit the int64 state)."""
    for k in range(ROUNDS):
        state[KEYS + 2 * k] = np.int64((next_random(rng) >> np.uint64(2)) | np.uint64(1))
        state[KEYS + 2 * k + 1] = np.int64(next_random(rng) >> np.uint64(2))


@njit(cache=True)
def _scramble(x, state, bits, mask):
    """A bijection of [0, 2**bits): rounds of an odd multiply (carries bits up), a xor-shift (down) and
    an offset, as in a hash finaliser (two rounds measured as good as a Fisher-Yates shuffle for the
    greedy start: 2.985 tries per row either way at n = 10^7)."""
    shift = np.uint64((bits + 1) // 2)
    for k in range(ROUNDS):
        x = (x * np.uint64(state[KEYS + 2 * k])) & mask
        x ^= x >> shift
        x = (x + np.uint64(state[KEYS + 2 * k + 1])) & mask
    return x ^ (x >> shift)


@njit(cache=True)
def _permuted(i, size, state, bits, mask):
    """The image of ``i`` under a random bijection of [0, size): the scramble, cycle-walked back into
    range (Black & Rogaway 2002; fewer than two rounds of walking on average, as size > 2**bits / 2)."""
    x = _scramble(np.uint64(i), state, bits, mask)
    while x >= np.uint64(size):
        x = _scramble(x, state, bits, mask)
    return np.int64(x)


@njit(cache=True)
def _count_at_most(ascending, value):
    """How many entries of the ascending array are <= value (a scan for the usual few entries)."""
    if ascending.size > 16:
        return np.searchsorted(ascending, value, side="right")
    count = 0
    while count < ascending.size and ascending[count] <= value:
        count += 1
    return count


@njit(cache=True)
def _setup(q, diag, mand_rows, mand_cols, mand_cols_sorted, state, rng, budget):
    """Rows [CURSOR, CURSOR + budget) get their columns: a mandatory row its own, the free rows a random
    permutation of the free columns; the units spent. The first call also clears the counters.

    The permutation is computed, not shuffled: row by row in memory order, no random access at all (a
    Fisher-Yates shuffle of 10^8 columns is a cache miss per row), and any row's column is known without
    its predecessors, so a chunk starts anywhere.

    A constructed attempt keeps the caller's q (mandatory queens in place) and goes straight to the tail
    phase from row 0, which lists every free queen in conflict.
    """
    n = q.size
    row = state[CURSOR]
    if row == 0:
        diag[:] = 0
        _draw_keys(state, rng)
        state[WORK_SIZE] = 0
        state[COLLISIONS] = 0
        state[FAILED] = 0
        state[STALL] = 0
        state[SCAN_POS] = 0
        state[DIAG_BITS] = 0 if state[CONSTRUCTED] else 1
        if state[CONSTRUCTED]:
            for k in range(mand_rows.size):
                _drop(q, diag, mand_rows[k], mand_cols[k])
            state[PHASE] = TAIL
            return mand_rows.size + 1
    free = state[FREE_ROWS]
    bits = 1
    while (1 << bits) < free:
        bits += 1
    mask = np.uint64((1 << bits) - 1)
    # Free columns below mandatory column s_k: s_k - k; the free column of rank r is r plus the number of
    # mandatory columns whose count is <= r.
    free_below = mand_cols_sorted - np.arange(mand_cols_sorted.size)
    m = np.searchsorted(mand_rows, row)
    stop = min(n, row + budget)
    for r in range(row, stop):
        if m < mand_rows.size and mand_rows[m] == r:
            col = np.int64(mand_cols[m])
            m += 1
            q[r] = col
            _occupy_cell(diag, n, r, col)  # mandatory queens never share a line
        else:
            rank = _permuted(r - m, free, state, bits, mask)
            q[r] = rank + _count_at_most(free_below, rank)
    state[CURSOR] = stop
    if stop == n:
        state[CURSOR] = 0
        state[PHASE] = GREEDY
    return max(stop - row, 1)


@njit(cache=True)
def _initialise(q, diag, fixed, mand_rows, mand_cols, mand_cols_sorted, work, state, rng, budget):
    """Advance the set-up, greedy and tail phases by about ``budget`` units; the units spent.

    Greedy (Sosic & Gu): row by row, the first column of the permuted unused ones that lies on two free
    diagonals is swapped in. The permutation comes first so that the candidates are read in memory order
    and only the counter lookups are random accesses: far fewer cache misses than drawing a random unused
    column per try, which is what dominates at n = 10^8.
    """
    n = q.size
    spent = 0
    while spent < budget:
        phase = state[PHASE]
        if phase == SETUP:
            spent += _setup(q, diag, mand_rows, mand_cols, mand_cols_sorted, state, rng, budget - spent)
        elif phase == GREEDY:
            # The scan position goes round the unplaced columns [row, n) instead of starting again at
            # row: a column refused for one row is tried again only after all the others, which keeps
            # the tries at Sosic & Gu's 3.03 n instead of about 8 n.
            row = state[CURSOR]
            end = state[GREEDY_END]
            scan_limit = state[SCAN_LIMIT]
            pos = state[SCAN_POS]
            bits = state[DIAG_BITS]
            fetched = pos  # candidates below this position have had their lines prefetched
            while row < end and spent < budget:
                if not _is_fixed(fixed, row):
                    pos = max(pos, row)
                    if fetched < pos or fetched > pos + PREFETCH_AHEAD:  # a new chunk, or the scan wrapped
                        fetched = pos
                    shift = 3 if bits else 2
                    for x in range(fetched, min(pos + PREFETCH_AHEAD, n)):
                        col = np.int64(q[x])
                        prefetch(diag, up_line(n, row, col) >> shift)
                        prefetch(diag, down_line(n, row, col) >> shift)
                    fetched = max(fetched, min(pos + PREFETCH_AHEAD, n))
                    tries = 0
                    visited = 0
                    found = False
                    while visited < n - row and tries < scan_limit:
                        if not _is_fixed(fixed, pos):
                            col = np.int64(q[pos])
                            tries += 1
                            if (_line_free(diag, up_line(n, row, col), bits)
                                    and _line_free(diag, down_line(n, row, col), bits)):
                                q[pos] = q[row]
                                q[row] = col
                                found = True
                                break
                        visited += 1
                        pos += 1
                        if pos == n:
                            pos = row
                    pos += 1
                    if pos >= n:
                        pos = row + 1
                    spent += visited + 1
                    if bits and found:
                        _occupy_cell(diag, n, row, np.int64(q[row]))
                    else:
                        if bits:
                            _bits_to_counters(diag, state)
                            bits = 0
                        if _place_rows(q, diag, fixed, work, state, row, row + 1) >= 0:
                            _restart(state)
                            return spent
                row += 1
            state[CURSOR] = row
            state[SCAN_POS] = pos
            if row >= end:
                if bits:
                    _bits_to_counters(diag, state)
                state[PHASE] = TAIL
        elif phase == TAIL:
            # From where the greedy phase stopped (row 0 for a constructed start), in chunks: a tail of
            # 10^9 rows takes seconds.
            row = state[CURSOR]
            stop = min(n, row + max(budget - spent, 1))
            if _place_rows(q, diag, fixed, work, state, row, stop) >= 0:
                _restart(state)
                return spent
            spent += stop - row
            state[CURSOR] = stop
            if stop == n:
                state[CURSOR] = 0
                state[INITIAL_CONFLICTS] = state[COLLISIONS]
                state[BEST] = state[COLLISIONS]
                state[PHASE] = REPAIR
                return spent
        else:
            return spent
    return spent


@njit(cache=True)
def _diagonally_attacked(q, diag, row):
    n = q.size
    col = np.int64(q[row])
    return diagonal_count(diag, up_line(n, row, col)) > 1 or diagonal_count(diag, down_line(n, row, col)) > 1


@njit(cache=True)
def _roomy(diag, n, row, col):
    """Both diagonals of (row, col) can take a queen even if another swapped queen enters one of them."""
    return (diagonal_count(diag, up_line(n, row, col)) < LIMIT - 1
            and diagonal_count(diag, down_line(n, row, col)) < LIMIT - 1)


@njit(cache=True)
def run_qs4(q, diag, fixed, mand_rows, mand_cols, mand_cols_sorted, work, state, rng, budget):
    """Advance a QS4 run by about ``budget`` units of work (a set-up row, a greedy try, a swap try).

    Repair: take a listed attacked row, swap it with a random free row, keep the swap only when it
    lowers the collisions; after MAX_FAILED refused swaps the attempt restarts from a new permutation.
    """
    n = q.size
    spent = 0
    while spent < budget:
        phase = state[PHASE]
        if phase >= SOLVED:  # solved or given up
            return spent
        if phase != REPAIR:
            spent += _initialise(q, diag, fixed, mand_rows, mand_cols, mand_cols_sorted,
                                 work, state, rng, budget - spent)
            continue
        size = state[WORK_SIZE]
        if size == 0:
            if state[COLLISIONS] == 0:
                state[PHASE] = SOLVED
            else:
                _restart(state)  # only mandatory queens attack: nothing can move
            continue
        if state[FREE_ROWS] < 2:
            _restart(state)
            continue
        pick = _below(rng, size)
        i = np.int64(work[pick])
        if not _diagonally_attacked(q, diag, i):
            work[pick] = work[size - 1]
            state[WORK_SIZE] = size - 1
            continue
        j = i
        while j == i:
            j = _free_row_from(fixed, rng, 0, n)
        spent += 1
        state[ITERATIONS] += 1
        a = np.int64(q[i])
        b = np.int64(q[j])
        # Two of the four lines entered may coincide (i + b == j + a), hence LIMIT - 1.
        roomy = _roomy(diag, n, i, b) and _roomy(diag, n, j, a)
        delta = swap_queens(q, diag, i, j) if roomy else 0
        if delta < 0:
            state[COLLISIONS] += delta
            if not _diagonally_attacked(q, diag, i):
                work[pick] = work[size - 1]
                state[WORK_SIZE] = size - 1
            if _diagonally_attacked(q, diag, j) and not _push(work, state, j):
                _restart(state)
        else:
            if roomy:
                swap_queens(q, diag, i, j)
            state[FAILED] += 1
            if state[FAILED] > state[MAX_FAILED]:
                _restart(state)
    return spent


@njit(cache=True)
def _attacked(q, cols, diag, row):
    return cols[q[row]] > 1 or _diagonally_attacked(q, diag, row)


@njit(cache=True)
def _cost(cols, diag, row, col, n):
    """Queens that would attack a queen put on (row, col), or -1 when a counter there is full."""
    c = np.int64(cols[col])
    u = diagonal_count(diag, up_line(n, row, col))
    d = diagonal_count(diag, down_line(n, row, col))
    if c >= LIMIT or u >= LIMIT or d >= LIMIT:
        return -1
    return c + u + d


@njit(cache=True)
def run_minconflicts(q, cols, diag, fixed, mand_rows, mand_cols, mand_cols_sorted, state, rng, budget):
    """Advance a min-conflicts run by about ``budget`` units (a step costs n units: it scans a row).

    Step (Minton et al.): a random attacked row moves to its least-conflicted column, ties broken
    uniformly at random, sideways moves allowed. After STALL_LIMIT steps without a new best collision
    count the attempt restarts from a fresh greedy board: the stagnation escape.
    """
    n = q.size
    no_list = np.zeros(0, dtype=np.int64)
    spent = 0
    while spent < budget:
        phase = state[PHASE]
        if phase >= SOLVED:  # solved or given up
            return spent
        if phase != REPAIR:
            if phase == SETUP and state[CURSOR] == 0:
                cols[:] = 1  # the greedy start is a permutation
            spent += _initialise(q, diag, fixed, mand_rows, mand_cols, mand_cols_sorted,
                                 no_list, state, rng, budget - spent)
            continue
        if state[COLLISIONS] == 0:
            state[PHASE] = SOLVED
            continue
        # Mandatory queens never attack each other, so some free row is attacked.
        row = _free_row_from(fixed, rng, 0, n)
        while not _attacked(q, cols, diag, row):
            row = _free_row_from(fixed, rng, 0, n)
        spent += n
        state[ITERATIONS] += 1
        current = np.int64(q[row])
        best = np.int64(4 * LIMIT)
        ties = 0
        for col in range(n):
            cost = _cost(cols, diag, row, col, n)
            if col == current:
                cost -= 3  # the queen itself; a full counter there (-1) stays negative: skipped
            if cost < 0:
                continue
            if cost < best:
                best = cost
                ties = 1
            elif cost == best:
                ties += 1
        chosen = _below(rng, ties)
        target = current
        for col in range(n):
            cost = _cost(cols, diag, row, col, n)
            if col == current:
                cost -= 3
            if cost == best:
                if chosen == 0:
                    target = col
                    break
                chosen -= 1
        state[COLLISIONS] += move_queen(q, cols, diag, row, target)
        if state[COLLISIONS] < state[BEST]:
            state[BEST] = state[COLLISIONS]
            state[STALL] = 0
        else:
            state[STALL] += 1
            if state[STALL] > state[STALL_LIMIT]:
                _restart(state)
    return spent
