"""N-Queens with mandatory queens as CNF: the n x n Boolean grid, cardinality encodings, DIMACS text.

Variable ``row * n + col + 1`` is true when a queen stands on ``(row, col)``; auxiliary variables of an
encoding come after ``n * n``. Every row and column holds exactly one queen (one at-least-one clause plus an
at-most-one encoding), every diagonal at most one, and each mandatory queen is a unit clause.

The lines of the board are grouped by length, so each encoding is a handful of numpy operations per
length instead of a Python loop per clause: rows and columns are one (2n, n) block, the diagonals one
block per length. The encodings written here (``pairwise``, ``seqcounter``, ``commander``) build their
clauses as 2D arrays, one array per clause width; ``cardenc-*`` delegate to PySAT's CardEnc (one C call
per line), and ``native`` keeps the at-most-one constraints for solvers with cardinality support.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from nqcsp.board.problem import Cell, Problem
from nqcsp.board.residual import Residual

# Encodings built here with numpy.
NUMPY_ENCODINGS = ("pairwise", "seqcounter", "commander")
# PySAT CardEnc encodings (pysat.card.EncType names), exposed as "cardenc-<name>".
CARDENC_TYPES = ("pairwise", "seqcounter", "sortnetwrk", "cardnetwrk", "bitwise", "ladder", "totalizer",
                 "mtotalizer", "kmtotalizer")
NATIVE = "native"
ENCODINGS: tuple[str, ...] = (*NUMPY_ENCODINGS, *(f"cardenc-{t}" for t in CARDENC_TYPES), NATIVE)

# The commander encoding splits a line into groups of this size (Klieber & Kwon suggest 3).
COMMANDER_GROUP = 3

Block = np.ndarray  # clauses of one width: shape (count, width), DIMACS literals


def check_encoding(encoding: object) -> str:
    if not isinstance(encoding, str):
        raise TypeError(f"encoding must be a name (str), got {encoding!r}")
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}; known: {', '.join(ENCODINGS)}")
    return encoding


def cell_var(n: int, row: int, col: int) -> int:
    """The DIMACS variable of a cell: row * n + col + 1."""
    return row * n + col + 1


def line_blocks(n: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Rows and columns as one (2n, n) array of variables, and the diagonals with >= 2 cells by length.

    Each diagonal block has shape (count, length); both diagonal directions of one length share a block.
    """
    grid = np.arange(1, n * n + 1, dtype=np.int64).reshape(n, n)
    rows_cols = np.concatenate([grid, grid.T])
    flipped = grid[:, ::-1]
    diagonals = []
    for length in range(2, n + 1):
        # Offsets whose diagonal has this length: n - length above and below the main one.
        offsets = sorted({n - length, -(n - length)})
        lines = [np.diagonal(board, offset=k) for board in (grid, flipped) for k in offsets]
        diagonals.append(np.stack(lines))
    return rows_cols, diagonals


class VarPool:
    """Hands out fresh auxiliary variables in consecutive ranges."""

    def __init__(self, top: int) -> None:
        self.top = top

    def take(self, shape: tuple[int, ...]) -> np.ndarray:
        count = int(np.prod(shape))
        fresh = np.arange(self.top + 1, self.top + 1 + count, dtype=np.int64).reshape(shape)
        self.top += count
        return fresh


def pairs(a: np.ndarray, b: np.ndarray) -> Block:
    """Binary clauses (a_i or b_i) from two equally shaped literal arrays."""
    return np.stack([a.reshape(-1), b.reshape(-1)], axis=1)


def amo_pairwise(lines: np.ndarray) -> list[Block]:
    """Every pair of cells of a line: not both."""
    first, second = np.triu_indices(lines.shape[1], k=1)
    return [pairs(-lines[:, first], -lines[:, second])]


def amo_seqcounter(lines: np.ndarray, pool: VarPool) -> list[Block]:
    """Sinz's sequential counter: s_i says "a queen among the first i + 1 cells"."""
    width = lines.shape[1]
    if width == 2:
        return amo_pairwise(lines)
    s = pool.take((lines.shape[0], width - 1))
    x = lines
    return [
        pairs(-x[:, :-1], s),                # x_i -> s_i
        pairs(-s[:, :-1], s[:, 1:]),         # s_{i-1} -> s_i
        pairs(-x[:, 1:], -s),                # x_i -> not s_{i-1}
    ]


def amo_commander(lines: np.ndarray, pool: VarPool, group: int = COMMANDER_GROUP) -> list[Block]:
    """Klieber & Kwon's commander encoding, at-most-one form, applied recursively.

    Cells are split into groups of ``group``; each group has at most one queen (pairwise) and a commander
    that any queen of the group implies; the commanders then have at most one true, recursively.
    A short last group is padded with 0, a non-variable whose clauses are dropped.
    """
    count, width = lines.shape
    if width <= group + 1:
        return amo_pairwise(lines)
    groups = -(-width // group)
    padded = np.zeros((count, groups * group), dtype=lines.dtype)
    padded[:, :width] = lines
    cells = padded.reshape(count, groups, group)
    commanders = pool.take((count, groups))
    first, second = np.triu_indices(group, k=1)
    within = pairs(-cells[:, :, first], -cells[:, :, second])
    implied = pairs(-cells, np.broadcast_to(commanders[:, :, None], cells.shape))
    real = [within[(within != 0).all(axis=1)], implied[implied[:, 0] != 0]]
    return real + amo_commander(commanders, pool, group)


def amo_cardenc(lines: np.ndarray, pool: VarPool, enc_type: str) -> list[list[int]]:
    from pysat.card import CardEnc, EncType

    kind = getattr(EncType, enc_type)
    clauses: list[list[int]] = []
    for line in lines.tolist():
        encoded = CardEnc.atmost(line, bound=1, top_id=pool.top, encoding=kind)
        pool.top = max(pool.top, encoded.nv)
        clauses.extend(encoded.clauses)
    return clauses


def amo_blocks(lines: np.ndarray, pool: VarPool, encoding: str) -> list:
    """At most one queen on each of ``lines`` (one row per line), under the named clausal encoding."""
    if encoding == "pairwise":
        return amo_pairwise(lines)
    if encoding == "seqcounter":
        return amo_seqcounter(lines, pool)
    if encoding == "commander":
        return amo_commander(lines, pool)
    return [amo_cardenc(lines, pool, encoding.removeprefix("cardenc-"))]


@dataclass(frozen=True)
class Formula:
    """The CNF of one problem (plus native at-most-one lines for ``encoding="native"``).

    ``blocks`` hold clauses: 2D arrays of one width each, or lists of clauses (from CardEnc).
    ``atmost_lines`` (native only) are arrays of lines, each line allowing at most one queen.
    """

    n: int
    queens: tuple[Cell, ...]
    encoding: str
    num_vars: int
    blocks: tuple[Block | list[list[int]], ...]
    atmost_lines: tuple[np.ndarray, ...] = ()
    # For a residual-board formula: ``cells[v - 1]`` is the board cell of variable v (None: the full grid).
    cells: np.ndarray | None = None

    @property
    def num_clauses(self) -> int:
        return sum(len(block) for block in self.blocks)

    @property
    def clausal(self) -> bool:
        return not self.atmost_lines

    def clauses(self) -> list[list[int]]:
        """All clauses as Python lists, the form SAT solvers take (and the one a DRAT proof refers to)."""
        out: list[list[int]] = []
        for block in self.blocks:
            out.extend(block.tolist() if isinstance(block, np.ndarray) else block)
        return out

    def atmosts(self) -> Iterator[list[int]]:
        for lines in self.atmost_lines:
            yield from lines.tolist()


def encode(problem: Problem, encoding: str = "seqcounter") -> Formula:
    """The formula of ``problem`` under the named cardinality ``encoding`` (see ``ENCODINGS``)."""
    encoding = check_encoding(encoding)
    n = problem.n
    pool = VarPool(n * n)
    rows_cols, diagonals = line_blocks(n)
    blocks: list = []
    if problem.queens:
        blocks.append(np.array([[cell_var(n, r, c)] for r, c in problem.queens], dtype=np.int64))
    if n > 0:
        blocks.append(rows_cols)  # at least one queen per row and per column
    amo_lines = [rows_cols, *diagonals] if n > 1 else []
    if encoding == NATIVE:
        return Formula(n, problem.queens, encoding, pool.top, tuple(blocks), tuple(amo_lines))
    for lines in amo_lines:
        blocks.extend(amo_blocks(lines, pool, encoding))
    return Formula(n, problem.queens, encoding, pool.top, tuple(b for b in blocks if len(b)))


# --- the residual board -------------------------------------------------------------------------------

# Bytes of a formula per literal while it is built and loaded (the numpy blocks, the Python lists the
# SAT solver takes and its own copy): 7 GB were measured for the 25 M cells of n = 5000, 6 literals each.
BYTES_PER_LITERAL = 50
# Seconds per literal to encode and turn the blocks into Python lists, and to load them into a PySAT
# solver (uninterruptible C calls), measured at n = 300 with one queen on the shared, loaded 2-core
# machine: 0.57 us and 1.1-1.6 us (2.3 M literals of the commander encoding took 1.3 s + 3.6 s).
SECONDS_PER_LITERAL = 6e-7
LOAD_S_PER_LITERAL = 1.5e-6


def _line_groups(keys: np.ndarray) -> list[np.ndarray]:
    """The variables sharing each key (cells are row-major, so a line's variables come out ascending),
    as one (count, length) array per line length."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]]) if len(keys) else keys[:0]
    lengths = np.diff(np.r_[starts, len(keys)])
    variables = order + 1
    groups = []
    for length in np.unique(lengths):
        first = starts[lengths == length]
        groups.append(variables[first[:, None] + np.arange(length)])
    return groups


def residual_lines(residual: Residual) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Rows and columns of the residual board (exactly one each) and its diagonals with >= 2 cells (at
    most one each), as variables grouped by line length; variable v is ``residual.cells()[v - 1]``."""
    i, j = np.nonzero(residual.allowed)
    r, c = residual.rows[i], residual.cols[j]
    exactly = _line_groups(i) + _line_groups(j)
    diagonals = [g for g in _line_groups(r + c) + _line_groups(r - c) if g.shape[1] >= 2]
    return exactly, diagonals


def residual_literals(residual: Residual) -> int:
    """Literals of the residual formula under ``native``; the clausal encodings are within a small factor
    (commander, seqcounter) or the reference size (pairwise)."""
    return 6 * residual.cell_count


def encode_residual(residual: Residual, encoding: str = NATIVE) -> Formula:
    """The residual board under a fast cardinality ``encoding``: the search formula, never a statement.

    Variables 1..cells are the cells of ``residual.cells()``, in that order (the reference CNF's order);
    auxiliary variables follow. Free lines without a cell are refused: they are the empty-line case.
    """
    encoding = check_encoding(encoding)
    empty = residual.empty_line()
    if empty is not None:
        raise ValueError(f"the residual board has an empty {empty[0]}; nothing to encode")
    cells = residual.cells()
    pool = VarPool(len(cells))
    exactly, diagonals = residual_lines(residual)
    blocks: list = list(exactly)  # at least one per free row and column
    amo = [*exactly, *diagonals]
    if encoding == NATIVE:
        return Formula(residual.n, residual.problem.queens, encoding, pool.top, tuple(blocks), tuple(amo),
                       cells)
    for lines in amo:
        if lines.shape[1] >= 2:
            blocks.extend(amo_blocks(lines, pool, encoding))
    return Formula(residual.n, residual.problem.queens, encoding, pool.top,
                   tuple(b for b in blocks if len(b)), (), cells)


# --- DIMACS -------------------------------------------------------------------------------------------

# Clauses per chunk when the pairwise grid CNF is streamed.
STREAM_CLAUSES = 1 << 18


def pairwise_grid_size(problem: Problem) -> tuple[int, int]:
    """Variables and clauses of ``encode(problem, "pairwise")``, in closed form (without building it)."""
    n = problem.n
    pairs_per_line = n * (n - 1) // 2
    # Diagonals of lengths 2 .. n - 1 come twice per direction, the main ones once: 2 C(n, 3) + C(n, 2).
    diagonal_pairs = 2 * (2 * (n * (n - 1) * (n - 2) // 6) + pairs_per_line)
    rows_cols = 2 * n if n > 0 else 0
    return n * n, len(problem.queen_array) + rows_cols + 2 * n * pairs_per_line + diagonal_pairs


def pairwise_grid_text_bytes(problem: Problem) -> int:
    """An upper bound on the DIMACS text of the pairwise grid CNF: every literal as long as the longest."""
    n = problem.n
    literal = len(str(n * n)) + 2  # sign and separator
    _, clauses = pairwise_grid_size(problem)
    return clauses * (2 * literal + 2) + 2 * n * n * literal + 1024


def pairwise_grid_bytes(n: int) -> int:
    """Memory while streaming: the grid and its lines (about 40 bytes per cell), a line's pair indices and
    the chunk buffers."""
    return 40 * n * n + 16 * (n * (n - 1) // 2) + 64 * STREAM_CLAUSES


def stream_pairwise_dimacs(problem: Problem, out: BinaryIO) -> None:
    """Write ``encode(problem, "pairwise")`` as DIMACS, clause for clause the same, in bounded memory:
    the cubic number of pair clauses is made and written a chunk at a time."""
    from nqcsp.runtime.lazy import load

    kernel = load("nqcsp.board._text_kernel")
    n = problem.n
    num_vars, num_clauses = pairwise_grid_size(problem)
    head = Formula(n, problem.queens, "pairwise", num_vars, ())
    out.write("".join(f"c {line}\n" for line in header_comments(head)).encode("ascii"))
    out.write(f"p cnf {num_vars} {num_clauses}\n".encode("ascii"))
    buffer = np.empty((kernel.MAX_LINE_BYTES * 2 + 3) * STREAM_CLAUSES, dtype=np.uint8)

    def write(block: np.ndarray) -> None:
        for start in range(0, len(block), STREAM_CLAUSES):
            part = np.ascontiguousarray(block[start:start + STREAM_CLAUSES])
            needed = ((kernel.MAX_LINE_BYTES + 1) * part.shape[1] + 3) * len(part)
            target = buffer if needed <= len(buffer) else np.empty(needed, dtype=np.uint8)
            out.write(target[:kernel.clause_lines(part, target, kernel.DIGIT_PAIRS)].tobytes())

    queens = problem.queen_array
    if len(queens):
        write((queens[:, 0] * n + queens[:, 1] + 1).reshape(-1, 1))
    if n == 0:
        return
    rows_cols, diagonals = line_blocks(n)
    write(rows_cols)
    if n < 2:
        return
    for lines in [rows_cols, *diagonals]:
        first, second = np.triu_indices(lines.shape[1], k=1)
        batch = max(1, STREAM_CLAUSES // len(first))
        for start in range(0, len(lines), batch):
            chunk = lines[start:start + batch]
            write(pairs(-chunk[:, first], -chunk[:, second]))


def header_comments(formula: Formula) -> list[str]:
    queens = " ".join(f"{r},{c}" for r, c in formula.queens) or "none"
    n = formula.n
    return [
        "nqcsp: N-Queens with mandatory queens",
        f"n {n}",
        f"queens {queens}",
        f"encoding {formula.encoding}",
        f"variables: cell (row, col), 0-based, is variable row*{n} + col + 1 (1..{n * n}); "
        f"{n * n + 1}..{formula.num_vars} are auxiliary" if formula.cells is None else
        f"variables: 1..{len(formula.cells)} are the unattacked cells of the residual board, row-major; "
        f"{len(formula.cells) + 1}..{formula.num_vars} are auxiliary",
        "a model's true cell variables are the queens",
    ]


def write_dimacs(formula: Formula, out: io.TextIOBase, comments: Sequence[str] | None = None) -> None:
    """DIMACS CNF text; ``native`` has no clausal form and is refused."""
    if not formula.clausal:
        raise ValueError("encoding 'native' has no DIMACS form; choose a clausal encoding")
    for line in header_comments(formula) if comments is None else comments:
        out.write(f"c {line}\n")
    out.write(f"p cnf {formula.num_vars} {formula.num_clauses}\n")
    for block in formula.blocks:
        rows = block.tolist() if isinstance(block, np.ndarray) else block
        out.write("".join(" ".join(map(str, clause)) + " 0\n" for clause in rows))


def dimacs_text(formula: Formula, comments: Sequence[str] | None = None) -> str:
    buffer = io.StringIO()
    write_dimacs(formula, buffer, comments)
    return buffer.getvalue()


def clauses_dimacs(clauses: Sequence[Sequence[int]], num_vars: int) -> str:
    """Plain DIMACS text of a clause list (what a certificate stores next to its proof)."""
    body = "".join(" ".join(map(str, clause)) + " 0\n" for clause in clauses)
    return f"p cnf {num_vars} {len(clauses)}\n{body}"
