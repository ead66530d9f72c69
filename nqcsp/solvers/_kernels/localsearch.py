"""Numba kernels of the local-search backends ``qs4`` and ``minconflicts``.

Everything a run needs lives in arrays owned by the caller, so a kernel can stop after ``budget`` units
of work, let Python look at the clock, and be called again to resume exactly where it stopped:

- ``q[row] = col``; ``up[row + col]`` and ``down[row - col + n - 1]`` count the queens on each diagonal,
  ``cols[col]`` (min-conflicts only: it leaves the permutation) the queens in each column.
- ``fixed`` is a bitset of the mandatory rows; ``mand_rows``/``mand_cols`` list them by row and
  ``mand_cols_sorted`` their columns in order.
- ``work`` (qs4 only) is a list of rows that may be attacked. Invariant: on every line holding two or
  more queens, all of them but at most one are listed, so picking from the list finds every conflict,
  and nobody scans the whole board for attacked queens (at n = 10^8 that scan alone costs seconds).
  Min-conflicts keeps no list: a step costs O(n) anyway, so it finds a uniformly random attacked queen
  by probing random rows (about n / attacked probes), which, unlike the list, also picks the queen that
  was there first, not only the newcomer.
- ``state`` holds the phase, cursors, counters and budgets (indices below); ``rng`` the PRNG state.

Counters are uint8: a queen is never added to a line already holding ``LIMIT`` queens (such a move is
refused), so they cannot wrap. Real runs stay far below: greedy placement leaves at most one queen per
diagonal except for the last few random ones.
"""

from __future__ import annotations

import numpy as np
from llvmlite import binding, ir
from numba import njit
from numba.core import cgutils, types
from numba.extending import intrinsic

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
RING = 17             # shuffle: the next RING_SIZE draws, made early so their targets can be prefetched
RING_SIZE = 16
STATE_SIZE = RING + RING_SIZE

# Phases.
SETUP, SHUFFLE, GREEDY, TAIL, REPAIR, SOLVED, EXHAUSTED = range(7)  # the finished ones last

LIMIT = 255  # the most queens a uint8 counter may hold
# Greedy: candidates this far ahead of the scan have their diagonal counters prefetched. Row r + 8 tests
# about the candidate at scan + 24, and its counter sits a few bytes from the prefetched r + col.
PREFETCH_AHEAD = 24

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


_PREFETCH_NAME = "llvm.prefetch.p0" if binding.llvm_version_info[0] >= 15 else "llvm.prefetch.p0i8"


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the CPU to fetch array[index] into cache, without waiting (at n = 10^8 nearly every counter
    lookup is a cache and TLB miss, and latency, not bandwidth, bounds the greedy start)."""
    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        byte_ptr = builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(8).as_pointer())
        int32 = ir.IntType(32)
        signature_ir = ir.FunctionType(ir.VoidType(), [byte_ptr.type, int32, int32, int32])
        fn = cgutils.get_or_insert_function(builder.module, signature_ir, _PREFETCH_NAME)
        # read, high temporal locality, data cache
        builder.call(fn, [byte_ptr, ir.Constant(int32, 0), ir.Constant(int32, 3), ir.Constant(int32, 1)])
        return context.get_dummy_value()
    return types.void(array, types.int64), codegen


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
def _leave(counts, line):
    """Take a queen off a line; the change in collisions."""
    c = counts[line]
    counts[line] = c - 1
    return -1 if c >= 2 else 0


@njit(cache=True)
def _enter(counts, line):
    c = counts[line]
    counts[line] = c + 1
    return 1 if c >= 1 else 0


@njit(cache=True)
def swap_queens(q, up, down, i, j):
    """Exchange the columns of rows i and j, updating the diagonal counters; the change in collisions.

    Swapping again undoes it. The caller checks first that no counter would pass LIMIT.
    """
    if i == j:
        return 0
    last = q.size - 1
    a = np.int64(q[i])
    b = np.int64(q[j])
    delta = _leave(up, i + a) + _leave(down, i - a + last) + _leave(up, j + b) + _leave(down, j - b + last)
    q[i] = b
    q[j] = a
    delta += _enter(up, i + b) + _enter(down, i - b + last) + _enter(up, j + a) + _enter(down, j - a + last)
    return delta


@njit(cache=True)
def move_queen(q, cols, up, down, row, col):
    """Move the queen of ``row`` to ``col``, updating all three counters; the change in collisions."""
    last = q.size - 1
    old = np.int64(q[row])
    if old == col:
        return 0
    delta = _leave(cols, old) + _leave(up, row + old) + _leave(down, row - old + last)
    delta += _enter(cols, col) + _enter(up, row + col) + _enter(down, row - col + last)
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
    state[PHASE] = EXHAUSTED if state[RESTARTS] > state[MAX_RESTARTS] else SETUP


@njit(cache=True)
def _place(q, up, down, work, state, row):
    """Add the queen of ``row`` to the diagonal counters; False if it cannot be (overflow, full list)."""
    last = q.size - 1
    col = np.int64(q[row])
    d1 = row + col
    d2 = row - col + last
    if up[d1] >= LIMIT or down[d2] >= LIMIT:
        return False
    hits = (up[d1] > 0) + (down[d2] > 0)
    up[d1] += 1
    down[d2] += 1
    if hits:
        state[COLLISIONS] += hits
        return _push(work, state, row)
    return True


@njit(cache=True)
def _setup(q, up, down, fixed, mand_rows, mand_cols, mand_cols_sorted, state, rng):
    """Counters cleared, mandatory queens placed, free columns given to free rows in order."""
    n = q.size
    up[:] = 0
    down[:] = 0
    m = 0
    s = 0
    col = 0
    for row in range(n):
        if m < mand_rows.size and mand_rows[m] == row:
            q[row] = mand_cols[m]
            m += 1
            up[row + q[row]] += 1
            down[row - q[row] + n - 1] += 1
        else:
            while s < mand_cols_sorted.size and mand_cols_sorted[s] == col:
                col += 1
                s += 1
            q[row] = col
            col += 1
    state[WORK_SIZE] = 0
    state[COLLISIONS] = 0
    state[FAILED] = 0
    state[STALL] = 0
    state[CURSOR] = 0
    state[SCAN_POS] = 0
    for row in range(min(RING_SIZE, n)):
        state[RING + row] = _draw_partner(fixed, rng, row, n)
    state[PHASE] = SHUFFLE


@njit(cache=True)
def _draw_partner(fixed, rng, row, n):
    """Fisher-Yates partner of ``row``: a random free row in [row, n), or -1 for a mandatory row."""
    return -1 if _is_fixed(fixed, row) else _free_row_from(fixed, rng, row, n)


@njit(cache=True)
def _initialise(q, up, down, fixed, mand_rows, mand_cols, mand_cols_sorted, work, state, rng,
                budget):
    """Advance the set-up, shuffle, greedy and tail phases by about ``budget`` units; the units spent.

    Greedy (Sosic & Gu): row by row, the first column of the shuffled unused ones that lies on two free
    diagonals is swapped in. The shuffle comes first so that the candidates are read in memory order and
    only the counter lookups are random accesses: far fewer cache misses than drawing a random unused
    column per try, which is what dominates at n = 10^8.
    """
    n = q.size
    last = n - 1
    spent = 0
    while spent < budget:
        phase = state[PHASE]
        if phase == SETUP:
            _setup(q, up, down, fixed, mand_rows, mand_cols, mand_cols_sorted, state, rng)
            spent += n
        elif phase == SHUFFLE:
            row = state[CURSOR]
            stop = min(n, row + budget - spent)
            while row < stop:
                other = state[RING + (row & (RING_SIZE - 1))]
                later = row + RING_SIZE
                if later < n:
                    drawn = _draw_partner(fixed, rng, later, n)
                    state[RING + (later & (RING_SIZE - 1))] = drawn
                    if drawn >= 0:
                        prefetch(q, drawn)
                if other >= 0:
                    held = q[row]
                    q[row] = q[other]
                    q[other] = held
                row += 1
            spent += stop - state[CURSOR]
            state[CURSOR] = row
            if row == n:
                state[CURSOR] = 0
                state[PHASE] = GREEDY
        elif phase == GREEDY:
            # The scan position goes round the unplaced columns [row, n) instead of starting again at
            # row: a column refused for one row is tried again only after all the others, which keeps
            # the tries at Sosic & Gu's 3.03 n instead of about 8 n.
            row = state[CURSOR]
            end = state[GREEDY_END]
            scan_limit = state[SCAN_LIMIT]
            pos = state[SCAN_POS]
            while row < end and spent < budget:
                if not _is_fixed(fixed, row):
                    pos = max(pos, row)
                    ahead = pos + PREFETCH_AHEAD
                    if ahead + 4 <= n:
                        for x in range(ahead, ahead + 4):
                            col = np.int64(q[x])
                            prefetch(up, row + col)
                            prefetch(down, row - col + last)
                    tries = 0
                    visited = 0
                    while visited < n - row and tries < scan_limit:
                        if not _is_fixed(fixed, pos):
                            col = np.int64(q[pos])
                            tries += 1
                            if up[row + col] == 0 and down[row - col + last] == 0:
                                q[pos] = q[row]
                                q[row] = col
                                break
                        visited += 1
                        pos += 1
                        if pos == n:
                            pos = row
                    pos += 1
                    if pos >= n:
                        pos = row + 1
                    spent += visited + 1
                    if not _place(q, up, down, work, state, row):
                        _restart(state)
                        return spent
                row += 1
            state[CURSOR] = row
            state[SCAN_POS] = pos
            if row >= end:
                state[PHASE] = TAIL
        elif phase == TAIL:
            for row in range(state[GREEDY_END], n):
                if not _is_fixed(fixed, row) and not _place(q, up, down, work, state, row):
                    _restart(state)
                    return spent
            spent += n - state[GREEDY_END]
            state[INITIAL_CONFLICTS] = state[COLLISIONS]
            state[BEST] = state[COLLISIONS]
            state[PHASE] = REPAIR
            return spent
        else:
            return spent
    return spent


@njit(cache=True)
def _diagonally_attacked(q, up, down, row):
    col = np.int64(q[row])
    return up[row + col] > 1 or down[row - col + q.size - 1] > 1


@njit(cache=True)
def run_qs4(q, up, down, fixed, mand_rows, mand_cols, mand_cols_sorted, work, state, rng, budget):
    """Advance a QS4 run by about ``budget`` units of work (a shuffle step, a greedy try, a swap try).

    Repair: take a listed attacked row, swap it with a random free row, keep the swap only when it
    lowers the collisions; after MAX_FAILED refused swaps the attempt restarts from a new shuffle.
    """
    n = q.size
    last = n - 1
    spent = 0
    while spent < budget:
        phase = state[PHASE]
        if phase >= SOLVED:  # solved or given up
            return spent
        if phase != REPAIR:
            spent += _initialise(q, up, down, fixed, mand_rows, mand_cols, mand_cols_sorted,
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
        if not _diagonally_attacked(q, up, down, i):
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
        roomy = (up[i + b] < LIMIT - 1 and down[i - b + last] < LIMIT - 1
                 and up[j + a] < LIMIT - 1 and down[j - a + last] < LIMIT - 1)
        delta = swap_queens(q, up, down, i, j) if roomy else 0
        if delta < 0:
            state[COLLISIONS] += delta
            if not _diagonally_attacked(q, up, down, i):
                work[pick] = work[size - 1]
                state[WORK_SIZE] = size - 1
            if _diagonally_attacked(q, up, down, j) and not _push(work, state, j):
                _restart(state)
        else:
            if roomy:
                swap_queens(q, up, down, i, j)
            state[FAILED] += 1
            if state[FAILED] > state[MAX_FAILED]:
                _restart(state)
    return spent


@njit(cache=True)
def _attacked(q, cols, up, down, row):
    col = np.int64(q[row])
    return cols[col] > 1 or up[row + col] > 1 or down[row - col + q.size - 1] > 1


@njit(cache=True)
def _cost(cols, up, down, row, col, last):
    """Queens that would attack a queen put on (row, col), or -1 when a counter there is full."""
    c = np.int64(cols[col])
    u = np.int64(up[row + col])
    d = np.int64(down[row - col + last])
    if c >= LIMIT or u >= LIMIT or d >= LIMIT:
        return -1
    return c + u + d


@njit(cache=True)
def run_minconflicts(q, cols, up, down, fixed, mand_rows, mand_cols, mand_cols_sorted, state, rng, budget):
    """Advance a min-conflicts run by about ``budget`` units (a step costs n units: it scans a row).

    Step (Minton et al.): a random attacked row moves to its least-conflicted column, ties broken
    uniformly at random, sideways moves allowed. After STALL_LIMIT steps without a new best collision
    count the attempt restarts from a fresh greedy board: the stagnation escape.
    """
    n = q.size
    last = n - 1
    no_list = np.zeros(0, dtype=np.int64)
    spent = 0
    while spent < budget:
        phase = state[PHASE]
        if phase >= SOLVED:  # solved or given up
            return spent
        if phase != REPAIR:
            if phase == SETUP:
                cols[:] = 1  # the greedy start is a permutation
            spent += _initialise(q, up, down, fixed, mand_rows, mand_cols, mand_cols_sorted,
                                 no_list, state, rng, budget - spent)
            continue
        if state[COLLISIONS] == 0:
            state[PHASE] = SOLVED
            continue
        # Mandatory queens never attack each other, so some free row is attacked.
        row = _free_row_from(fixed, rng, 0, n)
        while not _attacked(q, cols, up, down, row):
            row = _free_row_from(fixed, rng, 0, n)
        spent += n
        state[ITERATIONS] += 1
        current = np.int64(q[row])
        best = np.int64(4 * LIMIT)
        ties = 0
        for col in range(n):
            cost = _cost(cols, up, down, row, col, last)
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
            cost = _cost(cols, up, down, row, col, last)
            if col == current:
                cost -= 3
            if cost == best:
                if chosen == 0:
                    target = col
                    break
                chosen -= 1
        state[COLLISIONS] += move_queen(q, cols, up, down, row, target)
        if state[COLLISIONS] < state[BEST]:
            state[BEST] = state[COLLISIONS]
            state[STALL] = 0
        else:
            state[STALL] += 1
            if state[STALL] > state[STALL_LIMIT]:
                _restart(state)
    return spent
