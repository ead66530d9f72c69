"""The verifier's numba kernel for big boards (used by ``nqcsp.proof.verifier`` only; no solver imports it).

One bit per line of each family (columns, r + c, r - c), a test-and-set per queen and family: 5/8 of a
byte per queen instead of the numpy path's bytes of marks, and the kernel stops at the first line marked
twice. Threads split the families, each family's bits written by one thread only: no locks, no sharing.
"""

from __future__ import annotations

import numpy as np

from nqcsp.runtime.jit import njit, prefetch

# The marks of the queen this many rows ahead are prefetched, so that a dozen or more misses overlap
# (on a random-looking board 3.1 s instead of 4.2 s at n = 10^8; any distance from 8 to 128 did as well).
PREFETCH_ROWS = 16


@njit(cache=True, nogil=True)
def _seen_before(bits, line):
    """Mark ``line``; whether it was marked already."""
    word = line >> 6
    mask = np.uint64(1) << np.uint64(line & 63)
    if bits[word] & mask:
        return True
    bits[word] |= mask
    return False


@njit(cache=True, nogil=True)
def first_repeat(cols, start, stop, columns, ups, downs, column_bits, up_bits, down_bits):
    """The first row of ``start..stop-1`` whose queen sits on a line that an earlier queen already holds,
    in the families asked for (``columns``: line c, ``ups``: r + c, ``downs``: r - c + n - 1), each with
    its bits; -1 if none. The rows before ``start`` are marked by earlier calls, so a caller can look at
    the clock between ranges. The caller has checked that every column is in [0, n)."""
    n = cols.size
    for row in range(start, stop):
        ahead = row + PREFETCH_ROWS
        if ahead < n:
            later = np.int64(cols[ahead])
            if columns:
                prefetch(column_bits, later >> 6)
            if ups:
                prefetch(up_bits, (ahead + later) >> 6)
            if downs:
                prefetch(down_bits, (ahead - later + n - 1) >> 6)
        col = np.int64(cols[row])
        if columns and _seen_before(column_bits, col):
            return row
        if ups and _seen_before(up_bits, row + col):
            return row
        if downs and _seen_before(down_bits, row - col + n - 1):
            return row
    return -1
