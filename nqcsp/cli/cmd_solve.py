"""``nqcsp solve N [--queen R,C]... [--solver NAME] [--format board|columns|json]``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, TextIO

from nqcsp.cli.batch import add_batch_arguments, run_batch
from nqcsp.cli.common import (
    EXIT_NO,
    EXIT_OK,
    EXIT_UNKNOWN,
    UsageError,
    board_size_arg,
    positive_float_arg,
    queen_arg,
    read_input,
)

if TYPE_CHECKING:
    from nqcsp.result import Result

BOARD_TEXT_UP_TO = 100


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("solve", help="solve one problem, or a batch",
                            description="Place N queens, including the mandatory ones.")
    parser.add_argument("n", type=board_size_arg, metavar="N", nargs="?", help="board size")
    add_problem_options(parser)
    parser.add_argument("--queens-file", metavar="FILE",
                        help="mandatory queens from FILE: JSON [[r, c], ...] or one R,C per line")
    add_batch_arguments(parser)
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

    if args.batch is not None:
        if args.n is not None or args.queen or args.queens_file:
            raise UsageError("--batch takes its problems from the file: give no N, --queen or --queens-file")
        return run_batch(args)
    if args.n is None:
        raise UsageError("give N, or --batch FILE")
    queens = list(args.queen)
    if args.queens_file is not None:
        queens += parse_queens_text(read_input(args.queens_file), args.queens_file)
    result = solve(args.n, queens, solver=args.solver, time_limit=args.time_limit, seed=args.seed)
    return write_result(result, args.format)


def parse_queens_text(text: str, source: str) -> list[tuple[int, int]]:
    """Queens as JSON (a list of pairs, or an object with "queens") or as one ``R,C`` per line."""
    stripped = text.strip()
    if stripped.startswith(("[", "{")):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{source}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
        if isinstance(data, dict):
            data = data.get("queens", [])
        if not isinstance(data, list):
            raise UsageError(f"{source}: expected a list of [row, col] pairs")
        return [tuple(pair) if isinstance(pair, list) else pair for pair in data]
    queens = []
    for number, line in enumerate(stripped.splitlines(), 1):
        if line.strip() and not line.lstrip().startswith("#"):
            try:
                queens.append(queen_arg(line.strip()))
            except argparse.ArgumentTypeError as exc:
                raise UsageError(f"{source} line {number}: {exc}") from None
    return queens


def write_result(result: Result, fmt: str | None, out: TextIO | None = None) -> int:
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
