"""``nqcsp verify [FILE|-] [--queen R,C]...``: check a board text or a column list."""

from __future__ import annotations

import argparse

from nqcsp.cli.common import EXIT_NO, EXIT_OK, UsageError, add_queen_argument, read_input


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("verify", help="check a solution",
                            description="Check board text ('.' and 'Q' rows) or whitespace-separated "
                                        "columns, one per row. Exit 0 when valid, 1 when not.")
    parser.add_argument("file", nargs="?", default="-", metavar="FILE", help="input file, '-' for stdin")
    add_queen_argument(parser, help="a mandatory queen the solution must contain (repeatable)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from nqcsp.board.text import parse_board, parse_columns
    from nqcsp.proof.verifier import find_violation

    text = read_input(args.file)
    if not text.strip():
        raise UsageError(f"{args.file!r} holds no board and no columns")
    if set(text.split()[0]) <= {".", "Q"}:
        n, cells = parse_board(text)
        per_row = np.bincount([r for r, _ in cells], minlength=n)
        empty_or_full = np.flatnonzero(per_row != 1)
        if len(empty_or_full):
            row = int(empty_or_full[0])
            print(f"invalid: row {row} has {int(per_row[row])} queens")
            return EXIT_NO
        columns = np.array([c for _, c in sorted(cells)], dtype=np.int64)
    else:
        columns = parse_columns(text)
        n = len(columns)
    violation = find_violation(n, columns, args.queen)
    if violation is not None:
        print(f"invalid: {violation}")
        return EXIT_NO
    print(f"valid: {n} queens")
    return EXIT_OK
