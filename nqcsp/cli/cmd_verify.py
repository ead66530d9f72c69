"""``nqcsp verify [FILE|-] [--queen R,C]...``: check a board text or a column list."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from nqcsp.cli.common import EXIT_NO, EXIT_OK, UsageError, add_queen_argument, named, read_input

if TYPE_CHECKING:
    import numpy as np


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("verify", help="check a solution",
                            description="Check board text ('.' and 'Q' rows) or whitespace-separated "
                                        "columns, one per row. Exit 0 when valid, 1 when not.")
    parser.add_argument("file", nargs="?", default="-", metavar="FILE", help="input file, '-' for stdin")
    add_queen_argument(parser, help="a mandatory queen the solution must contain (repeatable)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from nqcsp.proof.verifier import find_violation

    text = read_input(args.file)
    if not text.strip():
        raise UsageError(f"{named(args.file)} holds no board and no columns")
    try:
        n, columns, invalid = parsed(text)
    except ValueError as exc:
        # The reader's message says what is wrong and where in the text; the file is named here.
        raise UsageError(f"{named(args.file)}: {exc}") from None
    if invalid:
        print(f"invalid: {invalid}")
        return EXIT_NO
    violation = find_violation(n, columns, args.queen)
    if violation is not None:
        print(f"invalid: {violation}")
        return EXIT_NO
    print(f"valid: {n} queens")
    return EXIT_OK


def parsed(text: str) -> tuple[int, np.ndarray, str]:
    """Board text or columns as (n, columns, ""), or with the reason a board is invalid before any check
    (a row without its one queen); ValueError for text that is neither."""
    import numpy as np

    from nqcsp.board.text import parse_board, parse_columns

    if set(text.split()[0]) <= {".", "Q"}:
        n, cells = parse_board(text)
        per_row = np.bincount([r for r, _ in cells], minlength=n)
        empty_or_full = np.flatnonzero(per_row != 1)
        if len(empty_or_full):
            row = int(empty_or_full[0])
            return n, np.zeros(0, dtype=np.int64), f"row {row} has {int(per_row[row])} queens"
        return n, np.array([c for _, c in sorted(cells)], dtype=np.int64), ""
    columns = parse_columns(text)
    return len(columns), columns, ""
