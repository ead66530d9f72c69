"""Pictures of boards as SVG: a solution with the mandatory queens drawn apart from the found ones, a set of
queens with the cells it attacks shaded and its empty lines marked, and big boards as a density picture.
Every picture carries a legend for each mark and shade it uses.

Pure Python and numpy; the text is built in memory, so its size is bounded before anything is drawn:

- up to ``EXACT_UP_TO`` (128) the picture is exact: the squares are one SVG ``<pattern>``, so the picture
  holds O(n + shaded runs) elements, each queen a ``<use>`` of one queen glyph whose ``data-row``/``data-col``
  name its cell and whose class says ``mandatory`` or ``found``;
- above it the board is a density picture of at most ``DENSITY_BLOCKS`` x ``DENSITY_BLOCKS`` blocks, each
  shaded by the number of queens in it, blocks holding a mandatory queen outlined and marked with a queen
  glyph big enough to see on the page, and empty lines drawn as bands. The counts are taken in chunks of
  ``CHUNK`` queens (their memory estimated first against ``memory_limit``), so n = 10^8 costs a few seconds
  and tens of MB, never an n x n array.

Geometry (user units): ``CELL`` per square, a margin of ``MARGIN`` around the board (row and column
numbers are written there up to ``LABELS_UP_TO``, unless ``coordinates=False``); square (row, col) spans
``MARGIN + col * CELL .. + CELL`` across and ``MARGIN + row * CELL .. + CELL`` down, row 0 on top, the
top-left square light. The legend lies below the board. The options follow python-chess's
``chess.svg.board``: ``size``, ``colors``, highlighted cells (its ``fill``), ``lines`` (its arrows) and
``coordinates``; the default colours are python-chess's.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from html import escape as html_escape
from typing import Any
from xml.sax.saxutils import escape

import numpy as np

from nqcsp.board.problem import Cell, Queens
from nqcsp.board.text import cells_on_board
from nqcsp.runtime.limits import as_memory_limit, format_bytes
from nqcsp.runtime.values import as_int

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
# Legend text is this many pixels high on the page at the picture's default size.
LEGEND_PIXELS = 13
# The longest legend line of an exact picture ("two mandatory queens attacking each other").
LEGEND_CHARS = 41
# A density picture marks at most this many mandatory queens with a glyph (each block is outlined anyway).
MARKED_QUEENS = 200

LIGHT, DARK = "#ffce9e", "#d18b47"
FOUND, MANDATORY, QUEEN_OUTLINE = "#222222", "#c62828", "#ffffff"
ATTACKED, ATTACKED_OPACITY = "#000000", 0.45
EMPTY_LINE = "#1565c0"
# Every colour a picture uses, by the name ``colors=`` overrides it with (python-chess names its own so).
COLORS: dict[str, str] = {
    "square light": LIGHT, "square dark": DARK, "coord": "#555555", "queen found": FOUND,
    "queen mandatory": MANDATORY, "queen outline": QUEEN_OUTLINE, "attacked": ATTACKED,
    "empty line": EMPTY_LINE, "attack": MANDATORY, "highlight": "#fdd835", "line": "#2e7d32",
    "legend": "#333333"}
# The queen glyph on a 40 x 40 square: five points with balls on a crown, a band and a foot. The middle of
# the square is inside the body, where tests/docs/browser.py reads the queen's colour.
QUEEN_GLYPH = ("M9 31 L5 12 L13 20 L12.5 8 L17 18 L20 5 L23 18 L27.5 8 L27 20 L35 12 L31 31 Z "
               "M8.5 32.5 H31.5 V36 H8.5 Z")
QUEEN_BALLS = ((5, 11), (12.5, 7), (20, 4), (27.5, 7), (35, 11))

# A line between the centres of two cells, with a colour of its own or the "line" colour.
Line = tuple[Sequence[int], Sequence[int]] | tuple[Sequence[int], Sequence[int], str]
# python-chess's colour forms: #rgb, #rrggbb (with alpha: #rgba, #rrggbbaa) or a CSS colour name.
COLOR_FORM = re.compile(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})|[a-zA-Z]{3,30}")
# Characters XML 1.0 cannot hold, even escaped (C0 controls but tab and newlines, surrogates, U+FFFE/F).
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


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


def board_svg(n: int, columns: Sequence[int] | np.ndarray | None = None, queens: Queens = (), *,
              shade_attacks: bool = False, title: str = "", size: int | None = None,
              colors: Mapping[str, str] | None = None,
              highlight: Mapping[Cell, str] | Queens = (), lines: Iterable[Line] = (),
              coordinates: bool = True, legend: bool = True, memory_limit: int | None = None,
              exact_up_to: int = EXACT_UP_TO) -> str:
    """The picture of an n x n board.

    Args:
        n: the board size (an integer: ``"8"``, ``8.9`` and ``True`` are refused).
        columns: a solution, ``columns[row] == col``, or None.
        queens: the mandatory queens, ``(row, col)`` pairs or a (k, 2) array, drawn apart (red).
        shade_attacks: shade the cells the mandatory queens attack, mark their empty lines (rows or
            columns left without a cell) and join attacking queens.
        title: the picture's title (its tooltip, and what a screen reader says).
        size: the picture's width on the page in pixels (default: its natural size, at most 640).
        colors: colours by name overriding ``COLORS`` (``{"queen found": "#000080"}``), each ``#rgb``,
            ``#rrggbb`` (or with alpha) or a CSS colour name.
        highlight: cells to fill, a mapping ``{(row, col): colour}`` or cells in the "highlight" colour.
        lines: lines between cell centres, ``((r1, c1), (r2, c2))`` or ``((r1, c1), (r2, c2), colour)``.
        coordinates: write the row and column numbers in the margin (boards up to 32).
        legend: a legend below the board for every mark and shade drawn.
        memory_limit: bytes the counts of a density picture may take (default: the memory available).
        exact_up_to: the largest board drawn square by square; bigger ones are a density picture.

    Returns:
        The SVG document as text.

    Raises:
        TypeError: ``n`` or a size that is not an integer, a title that is not a string.
        ValueError: a column, queen, highlighted cell or line end off the board, a solution of another
            length, a title with a character XML cannot hold, an unknown colour name or form, and counts
            of a density picture that would exceed ``memory_limit``.

    Examples:
        >>> from nqcsp.board.svg import board_svg
        >>> svg = board_svg(4, [1, 3, 0, 2], [(0, 1)], highlight={(3, 2): "#90caf9"}, size=200)
        >>> svg.startswith("<svg") and 'width="200"' in svg
        True
    """
    n = as_int(n, "n")
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    style = _Style(n, title, size, colors, coordinates, legend)
    queen_cells = cells_on_board(n, () if queens is None else queens)
    cols = None if columns is None else _columns(columns, n)
    fills = _highlights(n, highlight, style.colors["highlight"])
    drawn_lines = _lines(n, lines, style.colors["line"])
    if n <= as_int(exact_up_to, "exact_up_to"):
        return _exact(n, cols, queen_cells, shade_attacks, style, fills, drawn_lines)
    return _density(n, cols, queen_cells, shade_attacks, style, fills, drawn_lines,
                    as_memory_limit(memory_limit))


def queen_set_svg(n: int, queens: Queens, title: str = "", memory_limit: int | None = None,
                  **options: Any) -> str:
    """A set of queens (a blocked set, say) with the cells it attacks shaded and its empty lines marked;
    ``options`` as ``board_svg``'s.

    Examples:
        >>> from nqcsp.board.svg import queen_set_svg
        >>> 'data-line="column" data-index="5"' in queen_set_svg(6, [(0, 0), (1, 2), (2, 4)])
        True
    """
    return board_svg(n, None, queens, shade_attacks=True, title=title,
                     memory_limit=memory_limit, **options)


class _Style:
    """The checked options of one picture: title, pixel size, colours, coordinates and legend."""

    def __init__(self, n: int, title: str, size: int | None, colors: Mapping[str, str] | None,
                 coordinates: bool, legend: bool) -> None:
        if not isinstance(title, str):
            raise TypeError(f"title must be a string, got {title!r} ({type(title).__name__})")
        bad = NOT_XML.search(title)
        if bad:
            raise ValueError(f"title holds U+{ord(bad.group()):04X} at position {bad.start()}, a character "
                             f"an SVG (XML) title cannot hold: {title!r}")
        self.title = title
        self.size = None if size is None else as_int(size, "size")
        if self.size is not None and self.size < 1:
            raise ValueError(f"size must be >= 1 pixel, got {self.size}")
        self.colors = dict(COLORS)
        for name, colour in (colors or {}).items():
            if name not in COLORS:
                raise ValueError(f"unknown colour name {name!r}; known: {', '.join(COLORS)}")
            self.colors[name] = _colour(colour, name)
        # One id per colour set: several pictures inline on one page (a notebook) keep their own squares.
        digest = hashlib.sha1(repr(sorted(self.colors.items())).encode()).hexdigest()[:8]
        self.ids = f"nqcsp-{digest}"
        self.coordinates = bool(coordinates) and n <= LABELS_UP_TO
        self.legend = bool(legend)


def _colour(colour: object, what: str) -> str:
    if not isinstance(colour, str) or not COLOR_FORM.fullmatch(colour):
        raise ValueError(f"colour {colour!r} for {what!r} is not #rgb, #rrggbb or a CSS colour name")
    return colour


def _columns(columns: Sequence[int] | np.ndarray, n: int) -> np.ndarray:
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


def _highlights(n: int, highlight: Mapping[Cell, str] | Queens, default: str) -> list[tuple[int, int, str]]:
    cells: list[Sequence[int]] | np.ndarray
    if isinstance(highlight, Mapping):
        cells, colours = list(highlight), [_colour(c, "highlight") for c in highlight.values()]
    else:
        cells = highlight if isinstance(highlight, np.ndarray) else list(highlight or ())
        colours = [default] * len(cells)
    checked = cells_on_board(n, cells)
    return [(int(r), int(c), colour) for (r, c), colour in zip(checked.tolist(), colours, strict=True)]


def _lines(n: int, lines: Iterable[Line], default: str) -> list[tuple[int, int, int, int, str]]:
    out = []
    for line in lines:
        if not isinstance(line, (tuple, list)) or len(line) not in (2, 3) or any(
                isinstance(end, (str, bytes)) or not isinstance(end, Sequence | np.ndarray) or len(end) != 2
                for end in line[:2]):
            raise ValueError(f"a line is ((r1, c1), (r2, c2)) or ((r1, c1), (r2, c2), colour), got {line!r}")
        ends = cells_on_board(n, [line[0], line[1]])
        colour = _colour(line[2], "line") if len(line) == 3 else default
        out.append((int(ends[0, 0]), int(ends[0, 1]), int(ends[1, 0]), int(ends[1, 1]), colour))
    return out


def _centre(index: float, cell: float) -> float:
    return MARGIN + (index + 0.5) * cell


def _head(board_width: float, n: int, kind: str, style: _Style, default_title: str,
          marks: list[tuple[str, str, str]]) -> tuple[list[str], float]:
    """The opening of the document, sized for the board and its legend of ``marks`` (drawn last, by
    ``_finish``); returns the lines and the legend's font size."""
    scale = min(1.0, MAX_PIXELS / max(board_width, 1))
    font = LEGEND_PIXELS / scale
    legend_height = (len(marks) * 1.6 + 0.6) * font if style.legend and marks else 0
    # Room for the longest legend line any exact picture has, whatever this one holds: small boards side
    # by side (a contact sheet, a notebook) are then drawn at one scale.
    longest = max(LEGEND_CHARS, *(len(words) for _, _, words in marks))
    width = max(board_width, 2 * MARGIN + (2.2 + 0.56 * longest) * font) if legend_height else board_width
    height = board_width + legend_height
    shown = style.size / width if style.size is not None else min(1.0, MAX_PIXELS / max(width, height, 1))
    text = escape(style.title or default_title)
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
            f'viewBox="0 0 {width:g} {height:g}" width="{width * shown:.0f}" height="{height * shown:.0f}" '
            f'class="nqcsp-board" data-n="{n}" data-picture="{kind}" role="img">',
            f"<title>{text}</title>",
            f'<defs><symbol id="{style.ids}-queen" viewBox="0 0 40 40" overflow="visible">'
            f'<path d="{QUEEN_GLYPH}" stroke-linejoin="round"/>'
            + "".join(f'<circle cx="{x:g}" cy="{y:g}" r="2.6"/>' for x, y in QUEEN_BALLS)
            + "</symbol></defs>"]
    return head, font


def _queen_use(style: _Style, kind: str, x: float, y: float, side: float, extra: str = "",
               role: str = "queen") -> str:
    """A queen glyph whose square's top-left corner is (x, y); ``role`` is its class: a queen on the board,
    a ``swatch`` of the legend, a ``queen-mark`` over a block of a density picture."""
    fill = style.colors[f"queen {kind}"]
    return (f'<use xlink:href="#{style.ids}-queen" class="{role} {kind}"{extra} x="{x:g}" y="{y:g}" '
            f'width="{side:g}" height="{side:g}" fill="{fill}" stroke="{style.colors["queen outline"]}" '
            f'stroke-width="{side * 0.05:g}"')


def _swatch(style: _Style, x: float, y: float, font: float, kind: str, colour: str = "") -> str:
    """The legend's small picture of one mark: a queen, a shade, a dashed line, a line."""
    side = 1.2 * font
    if kind in ("found", "mandatory"):
        return _queen_use(style, kind, x, y, side, role="swatch") + "/>"
    if kind == "attacked":
        light, dark = style.colors["square light"], style.colors["square dark"]
        shade = (f'fill="{style.colors["attacked"]}" fill-opacity="{ATTACKED_OPACITY}"')
        return (f'<rect x="{x:g}" y="{y:g}" width="{side / 2:g}" height="{side:g}" fill="{light}"/>'
                f'<rect x="{x + side / 2:g}" y="{y:g}" width="{side / 2:g}" height="{side:g}" fill="{dark}"/>'
                f'<rect x="{x:g}" y="{y:g}" width="{side:g}" height="{side:g}" {shade}/>')
    if kind == "empty line":
        return (f'<rect x="{x:g}" y="{y:g}" width="{side:g}" height="{side:g}" fill="none" '
                f'stroke="{style.colors["empty line"]}" stroke-width="{side / 8:g}" '
                f'stroke-dasharray="{side / 4:g} {side / 8:g}"/>')
    if kind == "line":
        return (f'<line x1="{x:g}" y1="{y + side:g}" x2="{x + side:g}" y2="{y:g}" stroke="{colour}" '
                f'stroke-width="{side / 6:g}" stroke-linecap="round"/>')
    if kind == "outline":
        return (f'<rect x="{x:g}" y="{y:g}" width="{side:g}" height="{side:g}" fill="none" '
                f'stroke="{colour}" stroke-width="{side / 8:g}"/>')
    # A filled square: a highlight colour, or a density shade given as "colour opacity".
    paint, _, opacity = colour.partition(" ")
    square = f'<rect x="{x:g}" y="{y:g}" width="{side:g}" height="{side:g}" fill="{paint}"'
    if not opacity:
        return square + "/>"
    # A density shade, shown over the board's colour as on the board.
    under = square.replace(f'fill="{paint}"', f'fill="{style.colors["square light"]}"')
    return f'{under}/>{square} fill-opacity="{opacity}"/>'


def _finish(out: list[str], style: _Style, board_width: float, font: float,
            marks: list[tuple[str, str, str]]) -> str:
    """The legend below the board (one line per mark: swatch and words), then the closing tag."""
    if style.legend and marks:
        out.append(f'<g class="legend" font-family="sans-serif" font-size="{font:g}" '
                   f'fill="{style.colors["legend"]}" dominant-baseline="central">')
        for index, (kind, colour, words) in enumerate(marks):
            y = board_width + (0.3 + 1.6 * index) * font
            out.append(_swatch(style, MARGIN, y, font, kind, colour))
            out.append(f'<text x="{MARGIN + 1.8 * font:g}" y="{y + 0.6 * font:g}">{escape(words)}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _exact(n: int, cols: np.ndarray | None, queens: np.ndarray, shade: bool, style: _Style,
           fills: list[tuple[int, int, str]], lines: list[tuple[int, int, int, int, str]]) -> str:
    side = n * CELL
    width = side + 2 * MARGIN
    mandatory = {(int(r), int(c)) for r, c in queens}
    found = [] if cols is None else [(row, col) for row, col in enumerate(cols.tolist())
                                     if (row, col) not in mandatory]
    grid, empty = problem_lines(n, queens) if shade else (None, [])
    pairs = attacking_pairs(queens) if shade else []
    marks: list[tuple[str, str, str]] = []
    if found:
        marks.append(("found", "", "queen of the solution (verified)"))
    if mandatory:
        marks.append(("mandatory", "", "mandatory queen (given)"))
    if grid is not None and grid.any():
        marks.append(("attacked", "", "square a mandatory queen attacks"))
    if empty:
        marks.append(("empty line", "", "row or column with no free square left"))
    if pairs:
        marks.append(("line", style.colors["attack"], "two mandatory queens attacking each other"))
    for colour in dict.fromkeys(colour for _, _, colour in fills):
        marks.append(("fill", colour, "highlighted square"))
    for colour in dict.fromkeys(line[4] for line in lines):
        marks.append(("line", colour, "line drawn between squares"))
    out, font = _head(width, n, "exact", style, f"{n} x {n} board", marks)
    light, dark = style.colors["square light"], style.colors["square dark"]
    out.append(f'<defs><pattern id="{style.ids}-squares" x="{MARGIN}" y="{MARGIN}" width="{2 * CELL}" '
               f'height="{2 * CELL}" patternUnits="userSpaceOnUse"><rect width="{2 * CELL}" '
               f'height="{2 * CELL}" fill="{light}"/><rect x="{CELL}" width="{CELL}" height="{CELL}" '
               f'fill="{dark}"/><rect y="{CELL}" width="{CELL}" height="{CELL}" fill="{dark}"/></pattern>'
               "</defs>")
    out.append(f'<rect x="{MARGIN}" y="{MARGIN}" width="{side}" height="{side}" '
               f'fill="url(#{style.ids}-squares)" stroke="{dark}" stroke-width="1"/>')
    if fills:
        out.append('<g class="highlight">')
        out += [f'<rect x="{MARGIN + c * CELL}" y="{MARGIN + r * CELL}" width="{CELL}" height="{CELL}" '
                f'fill="{colour}" data-row="{r}" data-col="{c}"/>' for r, c, colour in fills]
        out.append("</g>")
    if style.coordinates:
        out.append(f'<g font-family="sans-serif" font-size="{MARGIN * 0.6:g}" fill="{style.colors["coord"]}" '
                   'text-anchor="middle" dominant-baseline="central">')
        for i in range(n):
            middle = _centre(i, CELL)
            out.append(f'<text x="{middle:g}" y="{MARGIN / 2:g}">{i}</text>'
                       f'<text x="{MARGIN / 2:g}" y="{middle:g}">{i}</text>')
        out.append("</g>")
    if grid is not None:
        out.append(f'<g class="attacked" fill="{style.colors["attacked"]}" '
                   f'fill-opacity="{ATTACKED_OPACITY}">')
        for row in range(n):
            edges = np.flatnonzero(np.diff(np.concatenate(([0], grid[row].astype(np.int8), [0]))))
            for start, stop in zip(edges[::2], edges[1::2], strict=True):
                out.append(f'<rect x="{MARGIN + start * CELL}" y="{MARGIN + row * CELL}" '
                           f'width="{(stop - start) * CELL}" height="{CELL}"/>')
        out.append("</g>")
    for kind, index in empty:
        x, y = (MARGIN, MARGIN + index * CELL) if kind == "row" else (MARGIN + index * CELL, MARGIN)
        w, h = (side, CELL) if kind == "row" else (CELL, side)
        out.append(f'<rect class="empty-line" data-line="{kind}" data-index="{index}" x="{x + 2}" '
                   f'y="{y + 2}" width="{w - 4}" height="{h - 4}" fill="none" '
                   f'stroke="{style.colors["empty line"]}" stroke-width="4" stroke-dasharray="8 4"><title>'
                   f"{kind} {index}: every cell is attacked, no queen can stand on it</title></rect>")
    for i, j in pairs:
        (r1, c1), (r2, c2) = queens[i], queens[j]
        out.append(f'<line class="attack" x1="{_centre(c1, CELL):g}" y1="{_centre(r1, CELL):g}" '
                   f'x2="{_centre(c2, CELL):g}" y2="{_centre(r2, CELL):g}" stroke="{style.colors["attack"]}" '
                   'stroke-width="4"/>')
    for row, col in found:
        out.append(_queen(style, row, col, "found"))
    for row, col in sorted(mandatory):
        out.append(_queen(style, row, col, "mandatory"))
    # Lines last: an arrow of python-chess's is drawn over the pieces too.
    for r1, c1, r2, c2, colour in lines:
        out.append(f'<line class="drawn" x1="{_centre(c1, CELL):g}" y1="{_centre(r1, CELL):g}" '
                   f'x2="{_centre(c2, CELL):g}" y2="{_centre(r2, CELL):g}" stroke="{colour}" '
                   f'stroke-width="{CELL * 0.15:g}" stroke-linecap="round" stroke-opacity="0.8"/>')
    return _finish(out, style, width, font, marks)


def _queen(style: _Style, row: int, col: int, kind: str) -> str:
    return (_queen_use(style, kind, MARGIN + col * CELL, MARGIN + row * CELL, CELL,
                       f' data-row="{row}" data-col="{col}"')
            + f"><title>{kind} queen ({row}, {col})</title></use>")


def density_bytes(n: int, queens: int) -> int:
    """Memory the density picture's counts take at once: a chunk of block indices and the counts."""
    chunk = min(CHUNK, max(n, queens))
    return 4 * 8 * chunk + 8 * DENSITY_BLOCKS * DENSITY_BLOCKS


def _density(n: int, cols: np.ndarray | None, queens: np.ndarray, shade: bool, style: _Style,
             fills: list[tuple[int, int, str]], lines: list[tuple[int, int, int, int, str]],
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
    empty = _empty_lines_big(n, queens) if shade and len(queens) and len(queens) <= CHUNK else []
    top = int(counts.max()) if len(counts) else 0
    found = style.colors["queen found"]
    marks: list[tuple[str, str, str]] = []
    if top:
        few = "1 queen" if top > 1 else "1 queen in a block"
        marks.append(("fill", f"{found} 0.25", few))
        if top > 1:
            marks.append(("fill", f"{found} 1", f"{top} queens in a block of {size} x {size} squares"))
    if len(queens):
        marks.append(("mandatory", "", "block holding a mandatory queen (outlined)"))
    if empty:
        marks.append(("empty line", "", "band holding a row or column with no free square"))
    for colour in dict.fromkeys(colour for _, _, colour in fills):
        marks.append(("fill", colour, "block holding a highlighted square"))
    for colour in dict.fromkeys(line[4] for line in lines):
        marks.append(("line", colour, "line drawn between squares"))
    out, font = _head(width, n, "density", style, f"{n} x {n} board, {size} x {size} squares a block",
                        marks)
    out.append(f"<desc>Density picture: each block is {size} x {size} squares, darker for more queens in "
               "it; blocks holding a mandatory queen are outlined and marked with a queen.</desc>")
    out.append(f'<rect x="{MARGIN}" y="{MARGIN}" width="{side:g}" height="{side:g}" '
               f'fill="{style.colors["square light"]}" stroke="{style.colors["square dark"]}" '
               'stroke-width="1"/>')
    if fills:
        out.append('<g class="highlight">')
        out += [f'<rect x="{MARGIN + (c // size) * cell:g}" y="{MARGIN + (r // size) * cell:g}" '
                f'width="{cell:g}" height="{cell:g}" fill="{colour}" data-row="{r}" data-col="{c}"/>'
                for r, c, colour in fills]
        out.append("</g>")
    out.append(f'<g class="density" fill="{found}">')
    for index in np.flatnonzero(counts):
        r, c = divmod(int(index), blocks)
        share = 0.25 + 0.75 * int(counts[index]) / top
        out.append(f'<rect x="{MARGIN + c * cell:g}" y="{MARGIN + r * cell:g}" width="{cell:g}" '
                   f'height="{cell:g}" fill-opacity="{share:.2f}" data-queens="{int(counts[index])}"/>')
    out.append("</g>")
    if len(queens):
        marked = np.unique((queens[:, 0] // size) * blocks + queens[:, 1] // size)
        out.append(f'<g class="mandatory" fill="none" stroke="{style.colors["queen mandatory"]}" '
                   'stroke-width="2">')
        for index in marked[:DENSITY_BLOCKS * DENSITY_BLOCKS]:
            r, c = divmod(int(index), blocks)
            out.append(f'<rect x="{MARGIN + c * cell:g}" y="{MARGIN + r * cell:g}" width="{cell:g}" '
                       f'height="{cell:g}"/>')
        out.append("</g>")
    for kind, line in empty:
        band = MARGIN + (line // size) * cell
        x, y, w, h = (MARGIN, band, side, cell) if kind == "row" else (band, MARGIN, cell, side)
        out.append(f'<rect class="empty-line" data-line="{kind}" data-index="{line}" x="{x:g}" '
                   f'y="{y:g}" width="{w:g}" height="{h:g}" fill="none" '
                   f'stroke="{style.colors["empty line"]}" stroke-width="3">'
                   f"<title>{kind} {line}: every cell is attacked</title></rect>")
    for r1, c1, r2, c2, colour in lines:
        out.append(f'<line class="drawn" x1="{_centre(c1 // size, cell):g}" '
                   f'y1="{_centre(r1 // size, cell):g}" x2="{_centre(c2 // size, cell):g}" '
                   f'y2="{_centre(r2 // size, cell):g}" stroke="{colour}" '
                   f'stroke-width="{cell * 0.3:g}" stroke-linecap="round" stroke-opacity="0.8"/>')
    if len(queens):
        # A block is a few pixels on the page (n = 1000: 6 px): each mandatory queen gets a glyph of at
        # least 1/20 of the picture, centred on its block, so it is seen at any size.
        glyph = max(cell, width / 20)
        out.append('<g class="mandatory-marks">')
        for row, col in queens[:MARKED_QUEENS].tolist():
            x, y = _centre(col // size, cell) - glyph / 2, _centre(row // size, cell) - glyph / 2
            out.append(_queen_use(style, "mandatory", x, y, glyph, f' data-row="{row}" data-col="{col}"',
                                  role="queen-mark")
                       + f"><title>mandatory queen ({row}, {col})</title></use>")
        out.append("</g>")
    return _finish(out, style, width, font, marks)


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


def contact_sheet(pictures: Sequence[tuple[str, str]], heading: str, note: str = "") -> str:
    """An HTML page showing pictures in a grid (``nqcsp blockades --svg DIR`` writes its ``index.html``
    so): each ``(file name, caption)`` a figure that links to its file.

    Examples:
        >>> from nqcsp.board.svg import contact_sheet
        >>> page = contact_sheet([("n4-0-0.svg", "n = 4: (0, 0)")], "1 blocked class")
        >>> '<img src="n4-0-0.svg" alt="n = 4: (0, 0)">' in page
        True
    """
    figures = "\n".join(
        f'<figure><a href="{html_escape(name)}"><img src="{html_escape(name)}" alt="{html_escape(caption)}">'
        f"</a><figcaption>{html_escape(caption)}</figcaption></figure>" for name, caption in pictures)
    about = f"<p>{html_escape(note)}</p>\n" if note else ""
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{html_escape(heading)}</title><style>body{{font-family:sans-serif;margin:1em}}"
            ".sheet{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:1em}"
            "figure{margin:0}img{width:100%;height:auto}figcaption{font-size:90%}</style></head><body>\n"
            f'<h1>{html_escape(heading)}</h1>\n{about}<div class="sheet">\n{figures}\n</div>\n'
            "</body></html>\n")
