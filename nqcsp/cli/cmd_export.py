"""``nqcsp export N [--queen R,C]... --format dimacs [--encoding E] [-o FILE]``: CNF for any solver."""

from __future__ import annotations

import argparse
import sys

from nqcsp.cli.common import (
    EXIT_OK,
    EXIT_UNKNOWN,
    UsageError,
    add_queen_argument,
    board_size_arg,
    fail,
)
from nqcsp.problem import Problem

REFERENCE = "reference"
# Bytes per cell of the full-grid encodings while built and written (numpy blocks, lists, text).
GRID_BYTES_PER_CELL = 400


def register(sub: argparse._SubParsersAction) -> None:
    from nqcsp.cnf import ENCODINGS

    parser = sub.add_parser(
        "export", help="write the problem as DIMACS CNF",
        description="Write the CNF of the problem in DIMACS, with a comment header giving n, the queens, "
                    "the encoding and the variable mapping. The grid encodings number cell (row, col) as "
                    "variable row*N + col + 1; 'reference' writes the auditable statement every nqcsp DRAT "
                    "proof refutes (the residual board, pairwise, its variable map in the header).")
    parser.add_argument("n", type=board_size_arg, metavar="N", help="board size")
    add_queen_argument(parser)
    parser.add_argument("--format", choices=("dimacs",), default="dimacs", help="output format (dimacs)")
    clausal = [REFERENCE, *(e for e in ENCODINGS if e != "native")]
    parser.add_argument("--encoding", choices=clausal, default="commander", metavar="E",
                        help=f"cardinality encoding (default commander): {', '.join(clausal)}")
    parser.add_argument("--output", "-o", default="-", metavar="FILE", help="output file, '-' for stdout")
    parser.set_defaults(run=run)


def text_of(problem: Problem, encoding: str) -> str:
    """The DIMACS text, after checking that building it fits in the memory available."""
    from nqcsp.cnf import REFERENCE_BYTES_PER_CLAUSE, dimacs_text, encode, reference_size
    from nqcsp.limits import Limits, Unfinished
    from nqcsp.residual import estimated_bytes, residual_of
    from nqcsp.statement import reference_cnf

    limits = Limits.unlimited()
    try:
        if encoding == REFERENCE:
            if problem.attack is not None:
                raise UsageError(f"{problem}: the mandatory queens attack each other; there is no residual "
                                 f"board to state")
            limits.need_memory("build", estimated_bytes(problem), "the residual board")
            clauses = reference_size(residual_of(problem))[1]
            limits.need_memory("build", REFERENCE_BYTES_PER_CLAUSE * clauses, f"{clauses} clauses")
            return reference_cnf(problem).dimacs().decode("ascii")
        n = problem.n
        limits.need_memory("build", GRID_BYTES_PER_CELL * n * n, f"the {encoding} CNF of {n} x {n} cells")
        return dimacs_text(encode(problem, encoding))
    except Unfinished as exc:
        fail(f"cannot export: {exc.reason}", EXIT_UNKNOWN)


def run(args: argparse.Namespace) -> int:
    text = text_of(Problem(args.n, args.queen), args.encoding)
    if args.output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return EXIT_OK
    try:
        with open(args.output, "w", encoding="ascii") as out:
            out.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write {args.output!r}: {exc.strerror}") from None
    return EXIT_OK
