"""The independent checker. It shares no code with any solver: every answer passes through it.

O(n) time, vectorised, and lean on memory: five bytes of marks per queen (all three families of lines in
one pass), or above ``_FUSED_MAX_N`` two (a pass per family), plus a fixed-size chunk.

From ``KERNEL_MIN_N`` queens on, a numba kernel of its own (``nqcsp.proof._verify_kernel``) marks one bit per
line instead, a thread per family up to the cores at hand: numpy's scattered byte writes cost about 18 ns
a queen at n = 10^9, and its marks there take 2 GB per family beside the 4 GB of the columns, against
625 MB of bits for all three. Only when the kernel finds a shared line does the numpy path run, to name
the two queens.

Given a ``deadline`` (a ``time.perf_counter()`` value) the check looks at the clock between chunks of
rows and raises ``VerificationTimeout`` once it has passed, so a caller with a time limit need not guess
the check's speed beforehand (a board with locality, such as a constructed one, is checked 4 to 8 times
faster than a random-looking one).
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable

import numpy as np

from nqcsp.board.problem import as_board_size, queen_array
from nqcsp.runtime.lazy import load, loaded
from nqcsp.runtime.parallel import cpu_count

_CHUNK = 1 << 20
# Rows the kernel checks between looks at the clock: 0.1 s at the slowest (25 ns a row, random-looking
# board far beyond the cache).
_KERNEL_ROWS = 1 << 22
_FUSED_MAX_N = 1 << 28
# Below this the numpy path is faster than importing numba (half a second) and loading the kernel; once
# numba is imported (a numba solver found the answer), the kernel is faster from about 10^6 queens on.
KERNEL_MIN_N = 1 << 24
KERNEL_MIN_N_NUMBA_LOADED = 1 << 20
# Seconds before the kernel's first check in a process, which no deadline can interrupt: importing numba
# and building its CPU target (0.5 to 0.7 s measured), or only loading the cached kernel (under 0.1 s);
# compiling it when numba's cache has no copy (a fresh install): 0.4 s measured once numba is imported,
# with margin.
KERNEL_LOAD_S = 0.8
KERNEL_LOAD_NUMBA_LOADED_S = 0.2
KERNEL_COMPILE_S = 1.0
_KERNEL = "nqcsp.proof._verify_kernel"

# Each family of lines a queen sits on: its index from (row, col), written into ``out`` when one is given,
# and how many lines there are.
_LineOf = Callable[..., np.ndarray]
_LINES: tuple[tuple[str, _LineOf, Callable[[int], int]], ...] = (
    ("a column", lambda rows, cols, n, out=None: cols, lambda n: n),
    ("an anti-diagonal (r + c)", lambda rows, cols, n, out=None: np.add(rows, cols, out=out),
     lambda n: 2 * n - 1),
    ("a diagonal (r - c)",
     lambda rows, cols, n, out=None: np.add(np.subtract(rows, cols, out=out), n - 1, out=out),
     lambda n: 2 * n - 1),
)


class VerificationTimeout(TimeoutError):
    """The deadline passed before the check ended: nothing is known about the columns."""


def _check_clock(deadline: float | None) -> None:
    if deadline is not None and time.perf_counter() >= deadline:
        raise VerificationTimeout("the deadline passed before the check ended")


def _kernel_pays(size: int) -> bool:
    return size >= KERNEL_MIN_N or (size >= KERNEL_MIN_N_NUMBA_LOADED and "numba" in sys.modules)


def startup_s(n: int) -> float:
    """Seconds the check of n queens may spend before it first looks at a deadline: loading its kernel,
    once per process (0 when it is loaded or will not run). Compiling it, on a cold cache, is known
    only once numba is imported: the check itself then refuses a deadline too close for it."""
    if not _kernel_pays(n) or loaded(_KERNEL) is not None:
        return 0.0
    return KERNEL_LOAD_NUMBA_LOADED_S if "numba" in sys.modules else KERNEL_LOAD_S


def marks_bytes(n: int) -> int:
    """Bytes of marks the check of n queens needs beside the columns (the numpy path's within 6 a queen,
    the kernel's bits 5/8 of a byte)."""
    return (5 * n + 7) // 8 + 3 * 8 if n >= KERNEL_MIN_N else 6 * n


def verify(n: int, columns: Iterable[int] | np.ndarray, queens: Iterable[tuple[int, int]] = ()) -> bool:
    """True when ``columns[row] == col`` places n non-attacking queens that include the mandatory
    ``queens`` (cells ``(row, col)``, as given to ``nqcsp.solve``)."""
    return find_violation(n, columns, queens) is None


def find_violation(
    n: int, columns: Iterable[int] | np.ndarray, queens: Iterable[tuple[int, int]] = (), *,
    deadline: float | None = None,
) -> str | None:
    """None for a valid solution, else a sentence naming the first violation found; raises
    ``VerificationTimeout`` when ``deadline`` (``time.perf_counter()`` seconds) passes first."""
    size = as_board_size(n)
    cells = queen_array(queens, size)
    if deadline is not None and (isinstance(deadline, bool) or not isinstance(deadline, (int, float))
                                 or math.isnan(deadline)):
        raise TypeError(f"deadline must be a time.perf_counter() value in seconds or None, got {deadline!r}")
    try:
        cols = _column_array(columns)
    except OverflowError as exc:
        return str(exc)
    if len(cols) != size:
        return f"{len(cols)} columns given for n = {size}"
    if size == 0:
        return None
    low, high = int(cols.min()), int(cols.max())
    if low < 0 or high >= size:
        row = int(np.flatnonzero((cols < 0) | (cols >= size))[0])
        return f"row {row} has column {int(cols[row])}, outside 0..{size - 1}"
    if _kernel_pays(size) and not _shares_a_line(cols, size, deadline=deadline):
        return _missing_queen(cols, cells)
    width = min(_CHUNK, size)
    offsets = np.arange(width, dtype=np.int64)
    # The chunk's rows, columns and line numbers live in buffers made once: fresh 8 MB temporaries per
    # chunk cost as much in page faults (system time) as the marking itself.
    rows_buffer, cols_buffer, lines_buffer = (np.empty(width, dtype=np.int64) for _ in range(3))
    # One pass marking all three families is fastest; past _FUSED_MAX_N the 5 bytes of marks per queen
    # would not fit beside the columns, so each family gets a pass of its own (2 bytes per queen).
    passes = [_LINES] if size <= _FUSED_MAX_N else [[family] for family in _LINES]
    for families in passes:
        marks = [np.zeros(line_count(size), dtype=np.bool_) for _, _, line_count in families]
        for start in range(0, size, _CHUNK):
            _check_clock(deadline)
            stop = min(start + _CHUNK, size)
            rows = np.add(offsets[: stop - start], start, out=rows_buffer[: stop - start])
            chunk = cols_buffer[: stop - start]
            chunk[:] = cols[start:stop]
            lines = lines_buffer[: stop - start]
            for family_marks, (_, line_of, _) in zip(marks, families, strict=True):
                family_marks[line_of(rows, chunk, size, lines)] = True
        for family_marks, (name, line_of, _) in zip(marks, families, strict=True):
            # n distinct lines are marked exactly when no two queens share one.
            if int(np.count_nonzero(family_marks)) != size:
                a, b = _first_shared(line_of(np.arange(size, dtype=np.int64), cols.astype(np.int64), size))
                return f"queens in rows {a} and {b} share {name}"
        del marks
    return _missing_queen(cols, cells)


def _missing_queen(cols: np.ndarray, cells: np.ndarray) -> str | None:
    missing = np.flatnonzero(cols[cells[:, 0]] != cells[:, 1])
    if len(missing):
        row, col = (int(v) for v in cells[missing[0]])
        return f"mandatory queen ({row}, {col}) is missing: row {row} has column {int(cols[row])}"
    return None


def _idle_cores() -> int:
    """Cores no other process is using: the usable ones less the 1-minute load average, this process
    excepted. On the shared 2-core machine at load 3, a second thread made the check at n = 10^9 slower
    (7.5-9.7 s against 5.6-6.5 s): it only ran in turn with the first."""
    try:
        others = max(0.0, os.getloadavg()[0] - 1.0)
    except OSError:  # no load average on this platform
        others = 0.0
    return max(1, cpu_count() - round(others))


def _shares_a_line(cols: np.ndarray, size: int, threads: int | None = None,
                   deadline: float | None = None) -> bool:
    """Whether two queens share a column or diagonal, by the bit-mark kernel on up to three threads (one
    per family; with two, one thread takes the columns and the diagonals r - c; by default as many as
    there are idle cores); every column is already known to be in [0, size). Each thread checks
    ``_KERNEL_ROWS`` rows at a time, and stops when another has found a shared line or the deadline has
    passed (then ``VerificationTimeout``)."""
    kernel = load(_KERNEL)
    if deadline is not None:
        from nqcsp.runtime.jit import needs_compiling  # numba is imported by now

        if needs_compiling(kernel.first_repeat) and time.perf_counter() + KERNEL_COMPILE_S > deadline:
            raise VerificationTimeout("compiling the check's kernel (numba's cache has no copy) would pass "
                                      "the deadline")
    threads = max(1, min(threads or _idle_cores(), 3))
    counts = (size, 2 * size - 1, 2 * size - 1)
    bits = [np.zeros((count + 63) // 64, dtype=np.uint64) for count in counts]
    owner = (0, 1 % threads, 2 % threads)  # the thread checking each family
    native = cols if cols.dtype.isnative else cols.astype(cols.dtype.newbyteorder("="))
    columns = np.ascontiguousarray(native)
    answered = [False] * threads  # False: a thread that failed before it answered
    shared = threading.Event()
    late = threading.Event()

    def check(t: int) -> None:
        families = tuple(owner[f] == t for f in range(3))
        for start in range(0, size, _KERNEL_ROWS):
            if shared.is_set() or late.is_set():
                break
            if deadline is not None and time.perf_counter() >= deadline:
                late.set()
                break
            if kernel.first_repeat(columns, start, min(start + _KERNEL_ROWS, size), *families, *bits) >= 0:
                shared.set()
                break
        answered[t] = True

    helpers = [threading.Thread(target=check, args=(t,), daemon=True) for t in range(1, threads)]
    for helper in helpers:
        helper.start()
    check(0)
    for helper in helpers:
        helper.join()
    if not all(answered):
        raise RuntimeError("a thread of the verifier's kernel failed: nothing was checked")
    if late.is_set() and not shared.is_set():
        raise VerificationTimeout("the deadline passed before the check ended")
    return shared.is_set()


def _column_array(columns: Iterable[int] | np.ndarray) -> np.ndarray:
    if isinstance(columns, np.ndarray):
        arr = columns
    else:
        if isinstance(columns, (str, bytes)):
            raise TypeError(f"columns must be a sequence of column numbers, got {columns!r}")
        items = list(columns)
        bad = next((x for x in items if isinstance(x, bool) or not isinstance(x, (int, np.integer))), None)
        if bad is not None:
            raise TypeError(f"column numbers must be integers, got {bad!r} ({type(bad).__name__})")
        try:
            arr = np.array(items, dtype=np.int64)
        except OverflowError:
            row = next(i for i, x in enumerate(items) if not -(2**63) <= x < 2**63)
            raise OverflowError(f"row {row} has column {items[row]}, outside every board") from None
    if arr.ndim != 1:
        raise ValueError(f"columns must be one column per row (1-D), got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise TypeError(f"column numbers must be integers, got dtype {arr.dtype}")
    return arr


def _first_shared(keys: np.ndarray) -> tuple[int, int]:
    order = np.argsort(keys, kind="stable")
    same = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    i = int(same[0])
    return tuple(sorted((int(order[i]), int(order[i + 1]))))  # type: ignore[return-value]
