"""Board text and column lists: rendering and parsing, vectorised so large boards stay cheap."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np

EMPTY, QUEEN = ".", "Q"


def render_board(queens: Iterable[int]) -> str:
    """Board text for a full solution given as columns by row."""
    try:
        cols = np.asarray(queens if isinstance(queens, np.ndarray) else list(queens), dtype=np.int64)
    except OverflowError:
        raise ValueError("a column is beyond 64 bits, outside every board") from None
    if cols.ndim != 1:
        raise ValueError(f"columns must be one column per row (1-D), got shape {cols.shape}")
    return render_cells(len(cols), np.column_stack((np.arange(len(cols)), cols)))


def cells_on_board(n: int, cells: Iterable[Sequence[int]] | np.ndarray) -> np.ndarray:
    """The cells as an (m, 2) int64 array; ValueError naming the first one off the n x n board."""
    cell_arr = np.asarray(cells if isinstance(cells, np.ndarray) else list(cells), dtype=np.int64)
    cell_arr = cell_arr.reshape(-1, 2)
    outside = np.flatnonzero(((cell_arr < 0) | (cell_arr >= n)).any(axis=1))
    if len(outside):
        row, col = (int(v) for v in cell_arr[outside[0]])
        raise ValueError(f"cell ({row}, {col}) is off the {n}x{n} board (rows and columns are 0..{n - 1})")
    return cell_arr


def render_cells(n: int, cells: Iterable[tuple[int, int]] | np.ndarray) -> str:
    """Board text with a queen on each given cell and '.' elsewhere (a partial board is allowed)."""
    grid = np.full((n, n + 1), ord(EMPTY), dtype=np.uint8)
    grid[:, n] = ord("\n")
    cell_arr = cells_on_board(n, cells)
    if len(cell_arr):
        grid[cell_arr[:, 0], cell_arr[:, 1]] = ord(QUEEN)
    return grid.tobytes().decode("ascii")


def parse_board(text: str) -> tuple[int, list[tuple[int, int]]]:
    """Parse board text into ``(n, queen cells)``.

    Blank lines and surrounding white space are ignored; every row must hold n characters, each '.' or 'Q'.
    Rows with no queen or several queens are allowed here: deciding validity is the verifier's job.
    """
    rows = [line.strip() for line in text.splitlines() if line.strip()]
    n = len(rows)
    cells: list[tuple[int, int]] = []
    for r, line in enumerate(rows):
        if len(line) != n:
            raise ValueError(f"board row {r} has {len(line)} characters, expected {n}: {line[:40]!r}")
        bad = set(line) - {EMPTY, QUEEN}
        if bad:
            raise ValueError(f"board row {r} has characters other than '.' and 'Q': {sorted(bad)!r}")
        cells.extend((r, c) for c, ch in enumerate(line) if ch == QUEEN)
    return n, cells


def parse_columns(text: str) -> np.ndarray:
    """Parse whitespace-separated column numbers, one per row, into an int64 array."""
    tokens = text.split()
    try:
        return np.array([int(t) for t in tokens], dtype=np.int64)
    except ValueError:
        bad = next(t for t in tokens if not _is_int(t))
        raise ValueError(f"not a column number: {bad!r}") from None
    except OverflowError:
        raise ValueError("a column number is too large") from None


def _is_int(token: str) -> bool:
    try:
        int(token)
    except ValueError:
        return False
    return True


# Up to this many columns Python's str is quicker than loading the numba kernel.
KERNEL_FROM = 1 << 16
# Seconds per column to write columns text: the kernel, measured at 10^8 (1.15 CPU s, 2.2 s wall on the
# loaded 2-core machine) with margin, and
# the seconds to import numba and load the kernel in a fresh process.
COLUMNS_TEXT_S_PER_QUEEN = 2.5e-8
COLUMNS_KERNEL_LOAD_S = 0.8
TEXT_KERNEL = "nqcsp.board._text_kernel"


def columns_text_seconds(n: int) -> float:
    """About how long writing n columns as text takes, loading the kernel included when needed."""
    from nqcsp.runtime.lazy import loaded

    load_s = COLUMNS_KERNEL_LOAD_S if n >= KERNEL_FROM and loaded(TEXT_KERNEL) is None else 0.0
    return load_s + COLUMNS_TEXT_S_PER_QUEEN * n


def column_text_chunks(queens: np.ndarray, chunk: int = 1 << 20) -> Iterator[bytes]:
    """Columns one per line as ASCII, in chunks so writing 10^8 of them needs little memory and time:
    a numba kernel writes the digits (Python's str of 10^8 ints took 13 s)."""
    if len(queens) < KERNEL_FROM:
        for start in range(0, len(queens), chunk):
            yield ("\n".join(map(str, queens[start:start + chunk].tolist())) + "\n").encode("ascii")
        return
    from nqcsp.runtime.lazy import load

    kernel = load(TEXT_KERNEL)
    size = max(1, min(chunk, len(queens)))
    out = np.empty(kernel.MAX_LINE_BYTES * size, dtype=np.uint8)
    for start in range(0, len(queens), size):
        written = kernel.decimal_lines(queens[start:start + size], out, kernel.DIGIT_PAIRS)
        yield out[:written].tobytes()


def format_columns(queens: np.ndarray, chunk: int = 1 << 20) -> Iterator[str]:
    """Columns one per line, yielded in chunks (``column_text_chunks`` as text)."""
    for text in column_text_chunks(queens, chunk):
        yield text.decode("ascii")
