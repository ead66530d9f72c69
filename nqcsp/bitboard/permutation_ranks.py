"""Permutations of range(n) as their ranks in lexicographic order, and back (numba): the compact form of
a long list of solutions.

A permutation's rank is its Lehmer code read as a mixed-radix number, sum(d[i] * (n - 1 - i)!) where d[i]
counts the later entries smaller than entry i, so that ranks order permutations as lexicographic order does.
A sorted list of distinct permutations is stored as the differences of consecutive ranks (the first rank
itself), each as ``rank_bytes(n)`` big-endian bytes: millions of solutions of the 24 x 24 board are about 57
bits apart, so the leading bytes are zeros that xz all but removes, where their columns take 24 bytes that
xz brings down to 12 only. Ranks of up to 64! (296 bits) are held as 32-bit limbs, least significant first.
"""

from __future__ import annotations

import math

import numpy as np

from nqcsp.bitboard.kernels import popcount
from nqcsp.runtime.jit import njit

ONE = np.uint64(1)
MASK32 = np.uint64(0xFFFFFFFF)
# gaps_to_permutations' verdicts.
DECODED = 0
TOO_LARGE = 1       # a rank at or beyond n!: no permutation
NOT_INCREASING = 2  # a difference of 0 after the first: a permutation listed twice


def rank_bytes(n: int) -> int:
    """Bytes of a rank of a permutation of range(n): enough for n! - 1."""
    return max(1, -(-(math.factorial(n) - 1).bit_length() // 8))


def _limbs(n: int) -> int:
    return -(-rank_bytes(n) // 4) + 1


@njit(cache=True, nogil=True)
def _select(mask, index):
    """The position of the ``index``-th set bit of ``mask`` (from the least significant, 0-based)."""
    for _ in range(index):
        mask &= mask - ONE
    low = mask & (~mask + ONE)
    return np.int64(popcount(low - ONE))


@njit(cache=True, nogil=True)
def _rank(permutation, n, limbs):
    """The rank of ``permutation`` into ``limbs`` (cleared first)."""
    limbs[:] = 0
    remaining = ~np.uint64(0) >> np.uint64(64 - n)
    for i in range(n):
        bit = ONE << np.uint64(permutation[i])
        digit = popcount(remaining & (bit - ONE))
        remaining ^= bit
        # limbs = limbs * (n - i) + digit (Horner's rule over the radices n, n - 1, ..., 1).
        carry = digit
        for j in range(limbs.shape[0]):
            value = limbs[j] * np.uint64(n - i) + carry
            limbs[j] = value & MASK32
            carry = value >> np.uint64(32)


@njit(cache=True, nogil=True)
def permutations_to_gaps(rows, width, out):
    """The rank differences of the sorted, distinct permutations ``rows`` (shape (count, n)) as ``width``
    big-endian bytes each into ``out`` (shape (count, width)). Returns False when ``rows`` is not strictly
    increasing."""
    count, n = rows.shape
    size = (width + 3) // 4 + 1
    previous = np.zeros(size, np.uint64)
    current = np.zeros(size, np.uint64)
    for w in range(count):
        _rank(rows[w], n, current)
        borrow = np.uint64(0)
        zero = True
        for j in range(size):
            value = current[j] - previous[j] - borrow
            if current[j] < previous[j] + borrow:
                value += ONE << np.uint64(32)
                borrow = ONE
            else:
                borrow = np.uint64(0)
            previous[j] = current[j]
            current[j] = value & MASK32
            zero &= current[j] == 0
        if borrow or (zero and w > 0):
            return False
        for b in range(width):
            limb = current[b // 4]
            out[w, width - 1 - b] = np.uint8((limb >> np.uint64(8 * (b % 4))) & np.uint64(0xFF))
    return True


@njit(cache=True, nogil=True)
def gaps_to_permutations(gaps, n, rows):
    """``permutations_to_gaps`` undone: the permutations into ``rows`` (shape (count, n)). Returns
    (DECODED, -1), or (TOO_LARGE or NOT_INCREASING, the index of the first bad entry)."""
    count, width = gaps.shape
    size = (width + 3) // 4 + 1
    total = np.zeros(size, np.uint64)
    work = np.zeros(size, np.uint64)
    digits = np.zeros(n, np.int64)
    for w in range(count):
        carry = np.uint64(0)
        zero = True
        for j in range(size):
            add = np.uint64(0)
            for b in range(4):
                byte = 4 * j + b
                if byte < width:
                    add |= np.uint64(gaps[w, width - 1 - byte]) << np.uint64(8 * b)
            zero &= add == 0
            value = total[j] + add + carry
            total[j] = value & MASK32
            carry = value >> np.uint64(32)
        if zero and w > 0:
            return NOT_INCREASING, w
        # The digits by dividing by 1, 2, ..., n: the last digit first.
        work[:] = total
        for radix in range(1, n + 1):
            remainder = np.uint64(0)
            for j in range(size - 1, -1, -1):
                value = (remainder << np.uint64(32)) | work[j]
                work[j] = value // np.uint64(radix)
                remainder = value % np.uint64(radix)
            digits[n - radix] = np.int64(remainder)
        if carry or work.any():
            return TOO_LARGE, w
        remaining = ~np.uint64(0) >> np.uint64(64 - n)
        for i in range(n):
            column = _select(remaining, digits[i])
            rows[w, i] = column
            remaining ^= ONE << np.uint64(column)
    return DECODED, -1


def encode(rows: np.ndarray) -> bytes:
    """Sorted, distinct permutations of range(n) (shape (count, n)) as their rank differences (see the
    module); ValueError if they are not."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    count, n = rows.shape
    width = rank_bytes(n)
    out = np.zeros((count, width), dtype=np.uint8)
    if not permutations_to_gaps(rows, width, out):
        raise ValueError("the permutations to encode must be sorted and distinct")
    return out.tobytes()


def decode(data: bytes, count: int, n: int) -> tuple[np.ndarray, str | None]:
    """The permutations ``encode`` wrote: (rows (count, n) uint8, None), or (the rows before the first bad
    entry, why it is bad) when ``data`` is not ``count`` differences of increasing ranks below n!."""
    width = rank_bytes(n)
    if len(data) != count * width:
        return np.zeros((0, n), dtype=np.uint8), f"holds {len(data)} bytes, not count x {width} = " \
                                                  f"{count * width}"
    rows = np.zeros((count, n), dtype=np.uint8)
    verdict, index = gaps_to_permutations(np.frombuffer(data, dtype=np.uint8).reshape(count, width), n, rows)
    if verdict == TOO_LARGE:
        return rows[:index], f"entry {index} is a rank beyond {n}! - 1"
    if verdict == NOT_INCREASING:
        return rows[:index], f"entry {index} repeats the permutation before it"
    return rows, None
