"""``nqcsp export N [--queen R,C]... --format dimacs [--encoding E] [-o FILE]``: CNF for any solver."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Callable
from typing import BinaryIO

from nqcsp.board.problem import Problem
from nqcsp.cli.common import (
    EXIT_OK,
    UsageError,
    add_queen_argument,
    board_size_arg,
    memory_arg,
)

REFERENCE = "reference"
# Bytes per cell of the full-grid encodings while built and written (numpy blocks, lists, text).
GRID_BYTES_PER_CELL = 400


def register(sub: argparse._SubParsersAction) -> None:
    from nqcsp.solvers.cnf import ENCODINGS

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
    parser.add_argument("--max-size", type=memory_arg, default=None, metavar="BYTES",
                        help="refuse a CNF whose text would exceed BYTES, e.g. 10G (a file is also refused "
                             "when it would not fit on its disk)")
    parser.set_defaults(run=run)


def text_of(problem: Problem, encoding: str) -> str:
    """The DIMACS text, after checking that building it fits in the memory available."""
    from nqcsp.board.residual import estimated_bytes, residual_of
    from nqcsp.proof.statement import REFERENCE_BYTES_PER_CLAUSE, reference_cnf, reference_size
    from nqcsp.runtime.limits import Limits, Unfinished
    from nqcsp.solvers.cnf import dimacs_text, encode

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
        raise UsageError(f"cannot export: {exc.reason}") from None


def check_room(text_bytes: int, args: argparse.Namespace) -> None:
    """Refuse, naming the size, a CNF over ``--max-size`` or larger than the free space of its disk."""
    from nqcsp.runtime.limits import format_bytes

    size = f"the {args.encoding} CNF of N = {args.n} is about {format_bytes(text_bytes)} ({text_bytes} bytes)"
    if args.max_size is not None and text_bytes > args.max_size:
        raise UsageError(f"{size}, over --max-size {format_bytes(args.max_size)}")
    if args.output != "-":
        from nqcsp.runtime.paths import file_to_write

        file_to_write(args.output, "output")
        folder = os.path.dirname(os.path.abspath(args.output))
        try:
            free = shutil.disk_usage(folder).free
        except OSError as exc:
            raise UsageError(f"cannot write {args.output!r}: {exc.strerror}") from None
        if text_bytes > free:
            raise UsageError(f"{size}, more than the {format_bytes(free)} free on the disk of {folder!r}")


def run(args: argparse.Namespace) -> int:
    problem = Problem(args.n, args.queen)
    if args.encoding == "pairwise":
        # Cubic in N (n = 600 is about 6 GB of text): sized in closed form, streamed a chunk at a time.
        from nqcsp.runtime.limits import Limits, Unfinished
        from nqcsp.solvers.cnf import pairwise_grid_bytes, pairwise_grid_text_bytes, stream_pairwise_dimacs

        check_room(pairwise_grid_text_bytes(problem), args)
        try:
            Limits.unlimited().need_memory("build", pairwise_grid_bytes(problem.n),
                                           f"streaming the pairwise CNF of {problem.n} x {problem.n} cells")
        except Unfinished as exc:
            raise UsageError(f"cannot export: {exc.reason}") from None
        write_bytes(args.output, lambda out: stream_pairwise_dimacs(problem, out))
        return EXIT_OK
    text = text_of(problem, args.encoding).encode("ascii")
    check_room(len(text), args)
    write_bytes(args.output, lambda out: out.write(text))
    return EXIT_OK


def write_bytes(path: str, write: Callable[[BinaryIO], object]) -> None:
    """The CNF to stdout, or to FILE whole or not at all: Ctrl-C or a full disk leaves FILE as it was
    (a truncated CNF is still DIMACS to a reader that ignores the header's counts)."""
    from nqcsp.runtime.paths import write_whole

    if path == "-":
        sys.stdout.flush()
        write(sys.stdout.buffer)
        sys.stdout.buffer.flush()
        return
    with write_whole(path, "output", follow_link=True) as out:
        write(out)
