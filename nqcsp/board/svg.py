"""Pictures of boards as SVG: a solution with the mandatory queens drawn apart from the found ones, a set of
queens with the cells it attacks shaded and its empty lines marked, and big boards as a density picture.

Pure Python and numpy; the text is built in memory, so its size is bounded before anything is drawn:

- up to ``EXACT_UP_TO`` (128) the picture is exact: the squares are one SVG ``<pattern>``, so the picture
  holds O(n + shaded runs) elements, each queen a ``<circle>`` whose ``data-row``/``data-col`` name its cell
  and whose class says ``mandatory`` or ``found``;
- above it the board is a density picture of at most ``DENSITY_BLOCKS`` x ``DENSITY_BLOCKS`` blocks, each
  shaded by the number of queens in it, blocks holding a mandatory queen outlined and empty lines drawn as
  bands. The counts are taken in chunks of ``CHUNK`` queens (their memory estimated first against
  ``memory_limit``), so n = 10^8 costs a few seconds and tens of MB, never an n x n array.

Geometry (user units): ``CELL`` per square, a margin of ``MARGIN`` around the board (row and column
numbers are written there up to ``LABELS_UP_TO``); square (row, col) spans
``MARGIN + col * CELL .. + CELL`` across and ``MARGIN + row * CELL .. + CELL`` down, row 0 on top, the
top-left square light. Colours are python-chess's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any
from xml.sax.saxutils import escape

import numpy as np

from nqcsp.board.text import cells_on_board
from nqcsp.runtime.limits import as_memory_limit, format_bytes

CELL = 40
MARGIN = 20
EXACT_UP_TO = 128
LABELS_UP_TO = 32
DENSITY_BLOCKS = 100
CHUNK = 1 << 20
# The largest width or height the picture asks for on a page (its viewBox keeps the geometry above).
MAX_PIXELS = 640
# The largest free rows x free columns table a density picture looks for empty lines in.
EMPTY_LINE_CELLS = 4_000_000

LIGHT, DARK = "#ffce9e", "#d18b47"
FOUND, MANDATORY, MANDATORY_RING = "#222222", "#c62828", "#ffffff"
ATTACKED, ATTACKED_OPACITY = "#000000", 0.45
EMPTY_LINE = "#1565c0"
QUEEN_RADIUS = 0.36


def problem_lines(n: int, queens: np.ndarray) -> tuple[np.ndarray, list[tuple[str, int]]]:
    """For an exact board: the n x n mask of cells the queens attack (their own cells excluded), and the
    empty lines: each free row or column (no queen on it) whose every cell is attacked, as
    ``("row" | "column", index)``."""
    grid = np.zeros((n, n), dtype=bool)
    if len(queens) == 0:
        return grid, []
    rows, cols = queens[:, 0], queens[:, 1]
    row_taken = np.zeros(n, dtype=bool)
    col_taken = np.zeros(n, dtype=bool)
    diagonal = np.zeros(2 * n - 1, dtype=bool)
    anti = np.zeros(2 * n - 1, dtype=bool)
    row_taken[rows], col_taken[cols] = True, True
    diagonal[rows - cols + n - 1], anti[rows + cols] = True, True
    r = np.arange(n)[:, None]
    c = np.arange(n)[None, :]
    grid = row_taken[:, None] | col_taken[None, :] | diagonal[r - c + n - 1] | anti[r + c]
    grid[rows, cols] = False
    empty = [("row", int(i)) for i in np.flatnonzero(~row_taken & grid.all(axis=1))]
    empty += [("column", int(j)) for j in np.flatnonzero(~col_taken & grid.all(axis=0))]
    return grid, empty


def attacking_pairs(queens: np.ndarray, at_most: int = 64) -> list[tuple[int, int]]:
    """Index pairs of mandatory queens that attack each other (looked for among the first ``at_most``)."""
    pairs = []
    cells = [(int(r), int(c)) for r, c in queens[:at_most]]
    for i, (r1, c1) in enumerate(cells):
        for j in range(i + 1, len(cells)):
            r2, c2 = cells[j]
            if r1 == r2 or c1 == c2 or abs(r1 - r2) == abs(c1 - c2):
                pairs.append((i, j))
    return pairs


def board_svg(n: int, columns: Any = None, queens: Any = (), *, shade_attacks: bool = False,
              title: str = "", memory_limit: int | None = None, exact_up_to: int = EXACT_UP_TO) -> str:
    """The picture of an n x n board: ``columns`` (a solution, ``columns[row] == col``, or None) with the
    mandatory ``queens`` (``(row, col)`` pairs or a (k, 2) array) drawn apart, and with ``shade_attacks``
    the cells the mandatory queens attack shaded and their empty lines marked.

    ValueError for a board the picture cannot show (a column or queen off the board, a solution of
    another length) and when the counts of a density picture would exceed ``memory_limit`` (default: the
    memory available now).
    """
    n = int(n)
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    queen_cells = cells_on_board(n, queens)
    cols = None if columns is None else _columns(columns, n)
    if n <= exact_up_to:
        return _exact(n, cols, queen_cells, shade_attacks, title)
    return _density(n, cols, queen_cells, shade_attacks, title, as_memory_limit(memory_limit))


def queen_set_svg(n: int, queens: Iterable[tuple[int, int]] | np.ndarray, title: str = "",
                  memory_limit: int | None = None) -> str:
    """A set of queens (a blocked set, say) with the cells it attacks shaded and its empty lines marked."""
    return board_svg(n, None, queens, shade_attacks=True, title=title, memory_limit=memory_limit)


def _columns(columns: Any, n: int) -> np.ndarray:
    try:
        cols = np.asarray(columns, dtype=np.int64).reshape(-1)
    except OverflowError:
        raise ValueError("a column is beyond 64 bits, outside every board") from None
    if len(cols) != n:
        raise ValueError(f"a solution of the {n}x{n} board has {n} columns, got {len(cols)}")
    outside = np.flatnonzero((cols < 0) | (cols >= n))
    if len(outside):
        row = int(outside[0])
        raise ValueError(f"column {int(cols[row])} of row {row} is off the {n}x{n} board")
    return cols


def _head(width: float, height: float, n: int, kind: str, title: str) -> list[str]:
    scale = min(1.0, MAX_PIXELS / max(width, height, 1))
    text = escape(title or f"{n} x {n} board")
    return [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:g} {height:g}" '
            f'width="{width * scale:.0f}" height="{height * scale:.0f}" class="nqcsp-board" '
            f'data-n="{n}" data-picture="{kind}" role="img">',
            f"<title>{text}</title>"]


def _exact(n: int, cols: np.ndarray | None, queens: np.ndarray, shade: bool, title: str) -> str:
    side = n * CELL
    width = side + 2 * MARGIN
    out = _head(width, width, n, "exact", title)
    out.append(f'<defs><pattern id="nqcsp-squares" x="{MARGIN}" y="{MARGIN}" width="{2 * CELL}" '
               f'height="{2 * CELL}" patternUnits="userSpaceOnUse"><rect width="{2 * CELL}" '
               f'height="{2 * CELL}" fill="{LIGHT}"/><rect x="{CELL}" width="{CELL}" height="{CELL}" '
               f'fill="{DARK}"/><rect y="{CELL}" width="{CELL}" height="{CELL}" fill="{DARK}"/></pattern>'
               "</defs>")
    out.append(f'<rect x="{MARGIN}" y="{MARGIN}" width="{side}" height="{side}" fill="url(#nqcsp-squares)" '
               f'stroke="{DARK}" stroke-width="1"/>')
    if n <= LABELS_UP_TO:
        out.append(f'<g font-family="sans-serif" font-size="{MARGIN * 0.6:g}" fill="#555555" '
                   'text-anchor="middle" dominant-baseline="central">')
        for i in range(n):
            middle = MARGIN + (i + 0.5) * CELL
            out.append(f'<text x="{middle:g}" y="{MARGIN / 2:g}">{i}</text>'
                       f'<text x="{MARGIN / 2:g}" y="{middle:g}">{i}</text>')
        out.append("</g>")
    if shade:
        grid, empty = problem_lines(n, queens)
        out.append(f'<g class="attacked" fill="{ATTACKED}" fill-opacity="{ATTACKED_OPACITY}">')
        for row in range(n):
            line = grid[row]
            edges = np.flatnonzero(np.diff(np.concatenate(([0], line.astype(np.int8), [0]))))
            for start, stop in zip(edges[::2], edges[1::2], strict=True):
                out.append(f'<rect x="{MARGIN + start * CELL}" y="{MARGIN + row * CELL}" '
                           f'width="{(stop - start) * CELL}" height="{CELL}"/>')
        out.append("</g>")
        for kind, index in empty:
            x, y = (MARGIN, MARGIN + index * CELL) if kind == "row" else (MARGIN + index * CELL, MARGIN)
            w, h = (side, CELL) if kind == "row" else (CELL, side)
            out.append(f'<rect class="empty-line" data-line="{kind}" data-index="{index}" x="{x + 2}" '
                       f'y="{y + 2}" width="{w - 4}" height="{h - 4}" fill="none" stroke="{EMPTY_LINE}" '
                       f'stroke-width="4" stroke-dasharray="8 4"><title>{kind} {index}: every cell is '
                       "attacked, no queen can stand on it</title></rect>")
        for i, j in attacking_pairs(queens):
            (r1, c1), (r2, c2) = queens[i], queens[j]
            out.append(f'<line class="attack" x1="{MARGIN + (c1 + 0.5) * CELL:g}" '
                       f'y1="{MARGIN + (r1 + 0.5) * CELL:g}" x2="{MARGIN + (c2 + 0.5) * CELL:g}" '
                       f'y2="{MARGIN + (r2 + 0.5) * CELL:g}" stroke="{MANDATORY}" stroke-width="4"/>')
    mandatory = {(int(r), int(c)) for r, c in queens}
    radius = QUEEN_RADIUS * CELL
    if cols is not None:
        for row, col in enumerate(cols.tolist()):
            if (row, col) not in mandatory:
                out.append(_queen(row, col, radius, "found"))
    for row, col in sorted(mandatory):
        out.append(_queen(row, col, radius, "mandatory"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _queen(row: int, col: int, radius: float, kind: str) -> str:
    x, y = MARGIN + (col + 0.5) * CELL, MARGIN + (row + 0.5) * CELL
    paint = (f'fill="{MANDATORY}" stroke="{MANDATORY_RING}" stroke-width="{CELL * 0.08:g}"'
             if kind == "mandatory" else f'fill="{FOUND}"')
    return (f'<circle class="queen {kind}" data-row="{row}" data-col="{col}" cx="{x:g}" cy="{y:g}" '
            f'r="{radius:g}" {paint}><title>{kind} queen ({row}, {col})</title></circle>')


def density_bytes(n: int, queens: int) -> int:
    """Memory the density picture's counts take at once: a chunk of block indices and the counts."""
    chunk = min(CHUNK, max(n, queens))
    return 4 * 8 * chunk + 8 * DENSITY_BLOCKS * DENSITY_BLOCKS


def _density(n: int, cols: np.ndarray | None, queens: np.ndarray, shade: bool, title: str,
             memory_limit: int) -> str:
    needed = density_bytes(n, len(queens))
    if needed > memory_limit:
        raise ValueError(f"the picture of the {n}x{n} board needs {format_bytes(needed)}, over the memory "
                         f"limit of {format_bytes(memory_limit)}")
    size = math.ceil(n / DENSITY_BLOCKS)           # rows and columns per block
    blocks = math.ceil(n / size)
    counts = np.zeros(blocks * blocks, dtype=np.int64)
    if cols is not None:
        for start in range(0, n, CHUNK):
            part = cols[start:start + CHUNK]
            rows = np.arange(start, start + len(part), dtype=np.int64)
            counts += np.bincount((rows // size) * blocks + part // size, minlength=blocks * blocks)
    else:
        for start in range(0, len(queens), CHUNK):
            part = queens[start:start + CHUNK]
            counts += np.bincount((part[:, 0] // size) * blocks + part[:, 1] // size,
                                  minlength=blocks * blocks)
    cell = CELL / 2
    side = blocks * cell
    width = side + 2 * MARGIN
    out = _head(width, width, n, "density", title or f"{n} x {n} board, {size} x {size} squares a block")
    out.append(f"<desc>Density picture: each block is {size} x {size} squares, darker for more queens in "
               "it; blocks holding a mandatory queen are outlined.</desc>")
    out.append(f'<rect x="{MARGIN}" y="{MARGIN}" width="{side:g}" height="{side:g}" fill="{LIGHT}" '
               f'stroke="{DARK}" stroke-width="1"/>')
    top = int(counts.max()) if len(counts) else 0
    out.append(f'<g class="density" fill="{FOUND}">')
    for index in np.flatnonzero(counts):
        r, c = divmod(int(index), blocks)
        share = 0.25 + 0.75 * int(counts[index]) / top
        out.append(f'<rect x="{MARGIN + c * cell:g}" y="{MARGIN + r * cell:g}" width="{cell:g}" '
                   f'height="{cell:g}" fill-opacity="{share:.2f}" data-queens="{int(counts[index])}"/>')
    out.append("</g>")
    if len(queens):
        marked = np.unique((queens[:, 0] // size) * blocks + queens[:, 1] // size)
        out.append(f'<g class="mandatory" fill="none" stroke="{MANDATORY}" stroke-width="2">')
        for index in marked[:DENSITY_BLOCKS * DENSITY_BLOCKS]:
            r, c = divmod(int(index), blocks)
            out.append(f'<rect x="{MARGIN + c * cell:g}" y="{MARGIN + r * cell:g}" width="{cell:g}" '
                       f'height="{cell:g}"/>')
        out.append("</g>")
    if shade and len(queens) and len(queens) <= CHUNK:
        for kind, line in _empty_lines_big(n, queens):
            band = MARGIN + (line // size) * cell
            x, y, w, h = (MARGIN, band, side, cell) if kind == "row" else (band, MARGIN, cell, side)
            out.append(f'<rect class="empty-line" data-line="{kind}" data-index="{line}" x="{x:g}" '
                       f'y="{y:g}" width="{w:g}" height="{h:g}" fill="none" stroke="{EMPTY_LINE}" '
                       f'stroke-width="3"><title>{kind} {line}: every cell is attacked</title></rect>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _empty_lines_big(n: int, queens: np.ndarray) -> list[tuple[str, int]]:
    """Empty lines of a big board, looked for on the free rows x free columns when that table is small
    (``EMPTY_LINE_CELLS``); a free line can only be empty when 3 k >= n (a queen attacks at most 3 cells
    of a line it is not on)."""
    if 3 * len(queens) < n:
        return []
    row_free = np.ones(n, dtype=bool)
    col_free = np.ones(n, dtype=bool)
    row_free[queens[:, 0]], col_free[queens[:, 1]] = False, False
    free_rows, free_cols = np.flatnonzero(row_free), np.flatnonzero(col_free)
    if len(free_rows) * len(free_cols) > EMPTY_LINE_CELLS:
        return []
    diagonal = np.zeros(2 * n - 1, dtype=bool)
    anti = np.zeros(2 * n - 1, dtype=bool)
    diagonal[queens[:, 0] - queens[:, 1] + n - 1], anti[queens[:, 0] + queens[:, 1]] = True, True
    grid = (diagonal[free_rows[:, None] - free_cols[None, :] + n - 1]
            | anti[free_rows[:, None] + free_cols[None, :]])
    empty = [("row", int(free_rows[i])) for i in np.flatnonzero(grid.all(axis=1))]
    return empty + [("column", int(free_cols[j])) for j in np.flatnonzero(grid.all(axis=0))]
