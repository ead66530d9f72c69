"""``nqcsp export N [--queen R,C]... --format dimacs [--encoding E] [-o FILE]``: CNF for any solver."""

from __future__ import annotations

import argparse
import sys

from nqcsp.cli.common import EXIT_OK, UsageError, board_size_arg, queen_arg


def register(sub: argparse._SubParsersAction) -> None:
    from nqcsp.cnf import ENCODINGS

    parser = sub.add_parser(
        "export", help="write the problem as DIMACS CNF",
        description="Write the CNF of the problem in DIMACS, with a comment header giving n, the queens, "
                    "the encoding and the variable mapping (cell (row, col) is variable row*N + col + 1).")
    parser.add_argument("n", type=board_size_arg, metavar="N", help="board size")
    parser.add_argument("--queen", "-q", type=queen_arg, action="append", default=[], metavar="R,C",
                        help="a mandatory queen, 0-based row and column (repeatable)")
    parser.add_argument("--format", choices=("dimacs",), default="dimacs", help="output format (dimacs)")
    clausal = [e for e in ENCODINGS if e != "native"]
    parser.add_argument("--encoding", choices=clausal, default="commander", metavar="E",
                        help=f"cardinality encoding (default commander): {', '.join(clausal)}")
    parser.add_argument("--output", "-o", default="-", metavar="FILE", help="output file, '-' for stdout")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from nqcsp.cnf import encode, write_dimacs
    from nqcsp.problem import Problem

    formula = encode(Problem(args.n, args.queen), args.encoding)
    if args.output == "-":
        write_dimacs(formula, sys.stdout)
        sys.stdout.flush()
        return EXIT_OK
    try:
        with open(args.output, "w", encoding="ascii") as out:
            write_dimacs(formula, out)
    except OSError as exc:
        raise UsageError(f"cannot write {args.output!r}: {exc.strerror}") from None
    return EXIT_OK
