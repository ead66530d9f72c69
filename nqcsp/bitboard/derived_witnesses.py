"""Witnesses named by the set they were found for, and found again from that name (numba): the light form
of threshold evidence (``nqcsp.studies.evidence``, version 3).

The row sweep (``row_sweep_kernels.scan_combo``) completes an uncovered set of k queens with a randomised
depth-first search (``queen_set_kernels.random_solution``). With a derivation seed, the search's random
state is not carried from set to set but made afresh for each one from the seed and the set's *position*
(``hint_state``), so that the solution is a function of (seed, position, node budget) alone. The evidence
then stores the position (about 2.5 bytes once the sorted positions are written as differences and
compressed) where a solution as columns takes 9 bytes as a rank, and the re-check derives the solution
again (``derive``: some 10 to 30 microseconds at n = 26), then verifies it as any witness. Nothing here is
trusted: a position that derives no solution fails the check, and a derived solution counts only for the
sets the re-check's own coverage finds in it.

A position is ``combination * n ** k + index``: the row combination's place among the k-combinations of
rows up to their row mirror, ascending (``plan_combinations``, ``mirrored_row_combinations``), and the
column tuple's base-n index on those rows (``row_sweep_kernels``). The derivation is part of the evidence
format: ``hint_state``, ``random_solution`` and ``allowed_rows`` must not change what they compute, or
published evidence stops deriving its witnesses (tests/studies/test_derived_witnesses.py re-checks a
stored file to catch that).
"""

from __future__ import annotations

import numpy as np

from nqcsp.bitboard.queen_set_kernels import allowed_rows, random_solution
from nqcsp.runtime.jit import njit

# derive's verdict for a position whose search ends without a solution (none exists, or the budget ran out).
NOT_DERIVED = -1


@njit(cache=True, nogil=True)
def hint_state(seed, position):
    """The random state of the search for the set at ``position`` (splitmix64's finaliser of the seed and
    the position; never 0, which xorshift cannot leave)."""
    z = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(position) + np.uint64(0x632BE59BD9B4E019)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return z if z != np.uint64(0) else np.uint64(1)


@njit(cache=True, nogil=True)
def derive(n, k, combinations, positions, seed, budget, out):
    """The solution of each position (``out[i]``, columns by row): the set it names placed, the rest by
    ``random_solution`` from ``hint_state(seed, position)`` within ``budget`` nodes. Returns the index of the
    first position that derives none, or NOT_DERIVED when every one did (the rows after a failure are
    not filled)."""
    size = np.int64(n) ** k
    cells = np.empty(k, np.int64)
    allowed = np.empty(n, np.uint64)
    free = np.empty(n, np.uint64)
    left = np.empty(n, np.uint64)
    down = np.empty(n, np.uint64)
    right = np.empty(n, np.uint64)
    columns = np.empty(n, np.int64)
    rng = np.empty(1, np.uint64)
    for i in range(positions.shape[0]):
        position = positions[i]
        combination = position // size
        if position < 0 or combination >= combinations.shape[0]:
            return i
        index = position % size
        for j in range(k - 1, -1, -1):
            cells[j] = combinations[combination, j] * n + index % n
            index //= n
        allowed_rows(n, cells, k, allowed)
        rng[0] = hint_state(seed, position)
        if random_solution(n, allowed, budget, rng, columns, free, left, down, right) != 1:
            return i
        for row in range(n):
            out[i, row] = columns[row]
    return NOT_DERIVED


def encode_positions(positions: np.ndarray) -> bytes:
    """Sorted, distinct positions as their differences (the first position itself), each in LEB128: seven
    bits a byte, the high bit set on every byte but a number's last."""
    values = np.diff(np.asarray(positions, dtype=np.int64), prepend=0).astype(np.uint64)
    if values.size and (values[1:] == 0).any():
        raise ValueError("positions must be distinct and sorted")
    lengths = np.ones(len(values), dtype=np.int64)
    for shift in range(7, 64, 7):
        lengths += values >= (np.uint64(1) << np.uint64(shift))
    out = np.empty(int(lengths.sum()), dtype=np.uint8)
    starts = np.cumsum(lengths) - lengths
    for byte in range(int(lengths.max(initial=0))):
        has = lengths > byte
        more = lengths[has] > byte + 1
        digit = ((values[has] >> np.uint64(7 * byte)) & np.uint64(0x7F)).astype(np.uint8)
        out[starts[has] + byte] = digit | (more.astype(np.uint8) << 7)
    return out.tobytes()


def decode_positions(data: bytes, count: int, limit: int) -> np.ndarray:
    """The positions ``encode_positions`` wrote: ``count`` of them, each below ``limit``, increasing.
    ValueError saying what is wrong (a number cut short or too long, a repeat, the wrong count)."""
    raw = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(raw < 0x80)
    if len(raw) and raw[-1] >= 0x80:
        raise ValueError("its last number is cut short")
    if len(ends) != count:
        raise ValueError(f"it holds {len(ends)} positions, not count = {count}")
    if count == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.concatenate(([0], ends[:-1] + 1))
    lengths = ends - starts + 1
    if lengths.max() > 9:                   # 63 bits at most: no position needs more
        raise ValueError("a number takes more than 9 bytes")
    values = np.zeros(count, dtype=np.uint64)
    for byte in range(int(lengths.max())):
        has = lengths > byte
        values[has] |= (raw[starts[has] + byte] & np.uint64(0x7F)).astype(np.uint64) << np.uint64(7 * byte)
    if (values[1:] == 0).any():
        raise ValueError("it lists a position twice")
    # Each difference is below the limit, itself below 2^63: a sum that wraps past 2^64 decreases.
    if (values >= np.uint64(limit)).any():
        raise ValueError(f"a difference reaches past the last position ({limit - 1})")
    positions = np.cumsum(values)
    if (positions[1:] <= positions[:-1]).any() or positions[-1] >= np.uint64(limit):
        raise ValueError(f"its positions reach past the last one ({limit - 1})")
    return positions.astype(np.int64)
