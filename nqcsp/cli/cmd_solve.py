"""``nqcsp solve N [--queen R,C]... [--solver NAME] [--format board|columns|json]``."""

from __future__ import annotations

import argparse
import json
import sys

from nqcsp.cli.common import (
    EXIT_NO,
    EXIT_OK,
    EXIT_UNKNOWN,
    board_size_arg,
    positive_float_arg,
    queen_arg,
)

BOARD_TEXT_UP_TO = 100


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("solve", help="solve one problem",
                            description="Place N queens, including the mandatory ones.")
    parser.add_argument("n", type=board_size_arg, metavar="N", help="board size")
    add_problem_options(parser)
    parser.set_defaults(run=run)


def add_problem_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--queen", "-q", type=queen_arg, action="append", default=[], metavar="R,C",
                        help="a mandatory queen, 0-based row and column (repeatable)")
    parser.add_argument("--solver", default="auto",
                        help="backend name, or auto (default); see `nqcsp solvers`")
    parser.add_argument("--format", choices=("board", "columns", "json"), default=None,
                        help=f"output: board text (default up to N = {BOARD_TEXT_UP_TO}), columns, json")
    parser.add_argument("--time-limit", type=positive_float_arg, default=None, metavar="S",
                        help="seconds before giving up (UNKNOWN)")
    parser.add_argument("--seed", type=int, default=None, metavar="K", help="random seed")


def run(args: argparse.Namespace) -> int:
    from nqcsp.api import solve

    result = solve(args.n, args.queen, solver=args.solver, time_limit=args.time_limit, seed=args.seed)
    return write_result(result, args.format)


def write_result(result, fmt: str | None, out=None) -> int:  # noqa: ANN001
    from nqcsp.board import format_columns
    from nqcsp.result import Status

    out = out or sys.stdout
    fmt = fmt or ("board" if result.n <= BOARD_TEXT_UP_TO else "columns")
    if fmt == "json":
        out.write(json.dumps(result.to_json(), default=str) + "\n")
    elif result.status is Status.SAT:
        if fmt == "board":
            out.write(result.board())
        else:
            for chunk in format_columns(result.queens):
                out.write(chunk)
    elif result.status is Status.UNSAT:
        out.write(f"no solution ({result.certificate.summary()})\n")
    else:
        out.write(f"unknown: {result.stats.get('reason', 'gave up')}\n")
    out.flush()
    return {Status.SAT: EXIT_OK, Status.UNSAT: EXIT_NO, Status.UNKNOWN: EXIT_UNKNOWN}[result.status]
