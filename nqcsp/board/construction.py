"""The closed-form solutions, as a library: the construct backend, cpsat and sat (hints) use them.

The closed form (Hoffman, Loessi & Moore 1969; the "evens then odds" rule) solves n = 1 and every n >= 4;
when gcd(n, 6) = 1 the modular family q[r] = (2r + s) mod n is a solution for every shift s. A solution of
m queens and a modular one of k make one of m * k (``composed``): that holds any given cell once a solution
of m holds the cell's block. Everything is vectorised with numpy: no Python loop over n.
"""

from __future__ import annotations

import math

import numpy as np

from nqcsp.board.problem import Problem

# Bytes per queen while a construction and one symmetric image of it are alive (int32 or int64 each).
BYTES_PER_QUEEN = 16
# Seconds per queen, measured at n = 10^8 with margin: the closed form 2.4 ns, its worst symmetric image
# (transposed and flipped) 9 ns, the modular family 6 ns.
CLOSED_FORM_S_PER_QUEEN = 4e-9
IMAGE_S_PER_QUEEN = 1.2e-8
MODULAR_S_PER_QUEEN = 8e-9
# ``near_solution``: the closed form plus the search for the mandatory queens' columns, up to 13 ns per
# queen at n = 10^9 when the columns' memory is new to the machine (about 3 ns when it is not).
NEAR_SOLUTION_S_PER_QUEEN = 1.5e-8
# Rows searched at a time for the columns of mandatory queens (the temporaries are chunk-sized).
_CHUNK = 1 << 22
# Rows of the modular solution worked out at a time in int64: temporaries of half a megabyte stay in the
# L2 cache (10^8 + 7 in 0.27 s, against 0.40 s and 100 MB of temporaries with _CHUNK rows).
_MODULAR_CHUNK = 1 << 16
# Up to this many mandatory queens the search compares each chunk with each column (about 0.7 ns a queen
# and column); beyond it a table of n bytes marks the wanted columns and each chunk looks itself up.
_COMPARED_COLUMNS = 2


def _index_dtype(n: int) -> type[np.signedinteger]:
    return np.int32 if n < 2**31 else np.int64


def closed_form(n: int) -> np.ndarray:
    """Columns by row of the closed-form solution for n = 1 or n >= 4 (0-based).

    1-based, the rule is: the even numbers, then the odd ones; when n mod 6 = 2, swap 1 and 3 and move 5
    to the end; when n mod 6 = 3, move 2 to the end of the evens and 1, 3 to the end of the odds.
    Built in place in one array, since at n = 10^8 every extra pass over memory costs a tenth of a second.
    """
    if n == 1:
        return np.zeros(1, dtype=_index_dtype(n))
    if n < 4:
        raise ValueError(f"no closed form for n = {n}: the board has no solution")
    evens = n // 2
    cols = np.arange(n, dtype=_index_dtype(n))
    head, tail = cols[:evens], cols[evens:]
    head *= 2
    head += 1          # 0-based 1, 3, 5, ...: the 1-based evens
    tail -= evens
    tail *= 2          # 0-based 0, 2, 4, ...: the 1-based odds
    rest = n % 6
    if rest == 2:
        tail[2:-1] = tail[3:].copy()
        tail[:2] = (2, 0)
        tail[-1] = 4
    elif rest == 3:
        head[:] = np.roll(head, -1)
        tail[:] = np.roll(tail, -2)
    return cols


def modular(n: int, shift: int) -> np.ndarray:
    """q[r] = (2r + shift) mod n, a solution exactly when gcd(n, 6) = 1; in the closed form's dtype.

    Worked out a chunk of rows at a time in int64 (2r + shift overflows int32 from n = 2^30 on, for a
    big shift from 2^31 / 3): a whole-board int64 array and its int32 copy took 12 GB at n = 10^9.
    """
    cols = np.empty(n, dtype=_index_dtype(n))
    shift %= n
    doubled = np.arange(min(n, _MODULAR_CHUNK), dtype=np.int64)
    doubled *= 2
    for start in range(0, n, _MODULAR_CHUNK):
        values = doubled[:n - start] + (2 * start + shift)
        values %= n
        cols[start:start + len(values)] = values
    return cols


def composition_factors(n: int) -> list[tuple[int, int]]:
    """The ways to write n = outer * inner for ``composed``, smallest outer board first: inner > 1 and
    coprime to 6 (so that 2r + s mod inner solves it for every shift s), outer 1 or at least 4 (a board
    of 2 or 3 has no solution)."""
    smooth = 1
    rest = n
    for prime in (2, 3):
        while rest % prime == 0:
            rest //= prime
            smooth *= prime
    divisors: set[int] = set()
    for low in range(1, math.isqrt(rest) + 1):
        if rest % low == 0:
            divisors.update((low, rest // low))
    outers = sorted(smooth * d for d in divisors if d < rest)
    return [(outer, n // outer) for outer in outers if outer not in (2, 3)]


def composed(outer: np.ndarray, inner: int, cell: tuple[int, int]) -> np.ndarray:
    """The solution of ``len(outer) * inner`` queens holding ``cell``, from ``outer`` (a solution of m
    queens holding the cell's block, ``(row // inner, col // inner)``) and a modular one of ``inner``
    (coprime to 6), in the closed form's dtype.

    Board row i * k + j holds the queen of column outer[i] * k + (2j + s mod k), the shift s chosen so
    that the cell is one of them. It is a solution: two queens of one block differ on every line modulo
    k (the modular solution is one on the torus); two of different blocks share a line r - c only when
    (i - outer[i]) k + (j - b_j) = (i' - outer[i']) k + (j' - b_j'), which forces j - b_j = j' - b_j'
    modulo k, so j = j' and i - outer[i] = i' - outer[i']: the outer solution forbids it (r + c alike).
    """
    n = len(outer) * inner
    shift = _composition_shift(outer, inner, cell)
    if len(outer) == 1:
        return modular(n, shift)
    cols = np.empty(n, dtype=_index_dtype(n))
    _compose_into(cols, outer, inner, shift, 0)
    return cols


def padded(outer: np.ndarray, inner: int, cell: tuple[int, int], n: int) -> np.ndarray:
    """A permutation of n queens holding ``cell`` that attack each other only near one corner, for n
    with no composition of its own, in the closed form's dtype.

    The composition of m = ``len(outer) * inner`` queens (``composed``) fills the m x m corner of the
    board at ``padding_origin`` (one holding ``cell``), with ``cell`` taken relative to that corner; the
    k = n - m rows and columns left cross in the opposite k x k corner, which gets the closed form of k
    (so k is 1 or at least 4: with three queens on one line there, the swaps failed to repair 10 of 12
    boards). The two parts share no row, no column and, on the side of the corner, no diagonal of one
    family; of the other family, only the 2k - 1 lines through the corner square.
    """
    m = len(outer) * inner
    k = n - m
    if k in (2, 3) or not 0 < k < m:
        raise ValueError(f"a padding of {k} queens beside {m}: the corner needs 1 or 4 to {m - 1} queens")
    top, left = padding_origin(n, m, cell)
    inside = (cell[0] - top, cell[1] - left)
    cols = np.empty(n, dtype=_index_dtype(n))
    _compose_into(cols[top:top + m], outer, inner, _composition_shift(outer, inner, inside), left)
    rest = cols[m:] if top == 0 else cols[:k]
    rest[:] = closed_form(k)
    if left == 0:
        rest += m
    return cols


def padding_origin(n: int, m: int, cell: tuple[int, int]) -> tuple[int, int]:
    """The top-left cell of the m x m corner of an n-board that ``padded`` fills with a composition:
    the one nearest (0, 0) that holds ``cell`` (m > n / 2, so one does)."""
    k = n - m
    return (0 if cell[0] < m else k), (0 if cell[1] < m else k)


def _composition_shift(outer: np.ndarray, inner: int, cell: tuple[int, int]) -> int:
    """The modular shift that puts ``cell`` on the composition (which needs outer's queen on its block)."""
    row, col = cell
    if not 0 <= row < len(outer) * inner or int(outer[row // inner]) != col // inner:
        raise ValueError(f"the outer solution has no queen on the block of {cell}")
    return (col % inner - 2 * (row % inner)) % inner


def _compose_into(out: np.ndarray, outer: np.ndarray, inner: int, shift: int, column_offset: int) -> None:
    """``composed`` written into ``out`` (its length m * inner), every column moved by ``column_offset``."""
    dtype = out.dtype.type
    block = modular(inner, shift).astype(dtype, copy=False)
    np.add((np.asarray(outer, dtype=dtype) * dtype(inner) + dtype(column_offset))[:, None], block[None, :],
           out=out.reshape(len(outer), inner))


def near_solution(n: int, queens: np.ndarray) -> np.ndarray:
    """A permutation holding the mandatory queens (``(k, 2)`` cells) and otherwise the closed-form
    solution (the identity for n = 2, 3), in the closed form's dtype: ``swap_in`` on the closed form."""
    cols = closed_form(n) if n == 1 or n >= 4 else np.arange(n, dtype=_index_dtype(n))
    return swap_in(cols, queens)


def swap_in(cols: np.ndarray, queens: np.ndarray) -> np.ndarray:
    """The permutation ``cols``, changed in place so that it holds the mandatory queens (``(k, 2)``
    cells), and returned. Of queens sharing a row or a column (an UNSAT problem, given a hint all the
    same) only the first is placed.

    Each mandatory row takes its column from the free row holding it, which gets a column the mandatory rows
    gave up; only the few queens moved can attack. Memory: a chunk, never an inverse (at n = 10^9 an int64
    inverse alone would be 8 GB).
    """
    n = len(cols)
    if len(queens) == 0:
        return cols
    rows, wanted = queens[_first_of_each(queens[:, 0]) & _first_of_each(queens[:, 1])].T
    # A queen the board holds already needs no swap (the first, on a composition built around it): only
    # the others are looked for, and with none left the board is not read at all.
    moved = cols[rows] != wanted
    rows, wanted = rows[moved], wanted[moved]
    if len(wanted) == 0:
        return cols
    if len(wanted) <= _COMPARED_COLUMNS:
        def is_wanted(chunk: np.ndarray) -> np.ndarray:
            return np.isin(chunk, wanted)
    else:
        table = np.zeros(n, dtype=np.bool_)
        table[wanted] = True

        def is_wanted(chunk: np.ndarray) -> np.ndarray:
            return table[chunk]
    holders = np.concatenate([np.flatnonzero(is_wanted(cols[start:start + _CHUNK])) + start
                              for start in range(0, n, _CHUNK)])
    given_up = np.setdiff1d(cols[rows], wanted, assume_unique=True)
    cols[rows] = wanted
    # As many rows as columns: both sets miss the same queens.
    cols[np.setdiff1d(holders, rows, assume_unique=True)] = given_up
    return cols


def _first_of_each(values: np.ndarray) -> np.ndarray:
    """Which entries are the first of their value (np.unique's hashing took 0.7 s for 10^6 queens)."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    first = np.empty(len(values), dtype=np.bool_)
    first[order] = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    return first


def permutation_near(problem: Problem) -> np.ndarray:
    """A permutation holding every mandatory queen and close to a solution: a hint for complete backends
    (``near_solution`` as int64). Never trusted."""
    return near_solution(problem.n, problem.queen_array).astype(np.int64, copy=False)
