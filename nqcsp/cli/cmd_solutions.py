"""``nqcsp solutions N [--queen R,C]... [--limit K]``: every solution, one line of columns each."""

from __future__ import annotations

import argparse
import itertools
import sys

from nqcsp.cli.common import EXIT_OK, add_queen_argument, board_size_arg, positive_int_arg


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("solutions", help="list solutions in lexicographic order (n <= 64)",
                            description="Print the solutions containing the mandatory queens, one per "
                                        "line as the column of each row, in lexicographic order.")
    parser.add_argument("n", type=board_size_arg, metavar="N", help="board size")
    add_queen_argument(parser)
    parser.add_argument("--limit", type=positive_int_arg, default=None, metavar="K",
                        help="stop after K solutions")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from nqcsp.bitboard import solutions

    found = solutions(args.n, args.queen)
    out = sys.stdout
    for cols in itertools.islice(found, args.limit):
        out.write(" ".join(map(str, cols)) + "\n")
    out.flush()
    return EXIT_OK
