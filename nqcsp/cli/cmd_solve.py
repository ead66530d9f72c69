"""``nqcsp solve N [--queen R,C]... [--solver NAME] [--format board|columns|json|svg]``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

from nqcsp.cli.batch import add_batch_arguments, run_batch
from nqcsp.cli.common import (
    EXIT_CLAIM,
    EXIT_NO,
    EXIT_OK,
    EXIT_UNKNOWN,
    UsageError,
    add_queen_argument,
    backend_options,
    board_size_arg,
    memory_arg,
    named,
    positive_float_arg,
    queen_arg,
    read_input,
    write_json_record,
)
from nqcsp.runtime.limits import default_memory_limit
from nqcsp.runtime.values import Fields, parse_json

if TYPE_CHECKING:
    import numpy as np

    from nqcsp.board.result import Result

BOARD_TEXT_UP_TO = 100


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("solve", help="solve one problem, or a batch",
                            description="Place N queens, including the mandatory ones.")
    parser.add_argument("n", type=board_size_arg, metavar="N", nargs="?", help="board size")
    add_problem_options(parser)
    parser.add_argument("--queens-file", metavar="FILE",
                        help="mandatory queens from FILE: JSON [[r, c], ...] or "
                             "{\"queens\": [[r, c], ...]} (no other key), or one R,C per line")
    add_batch_arguments(parser)
    parser.set_defaults(run=run)


def add_problem_options(parser: argparse.ArgumentParser) -> None:
    add_queen_argument(parser)
    parser.add_argument("--solver", default="auto",
                        help="backend name, or auto (default); see `nqcsp solvers`")
    parser.add_argument("--format", choices=("board", "columns", "json", "svg"), default=None,
                        help=f"output: board text (default up to N = {BOARD_TEXT_UP_TO}), columns, json, or "
                             "an SVG picture (mandatory queens apart from found ones; without a solution "
                             "the cells they attack shaded; above N = 128 a density picture)")
    parser.add_argument("--time-limit", type=positive_float_arg, default=None, metavar="S",
                        help="seconds before giving up (UNKNOWN); every stage counts, output included")
    parser.add_argument("--memory-limit", type=memory_arg, default=None, metavar="BYTES",
                        help="memory the call may use, e.g. 2G (default: what is available now)")
    parser.add_argument("--seed", type=int, default=None, metavar="K", help="random seed")
    parser.add_argument("--option", "-O", type=option_arg, action="append", default=[], metavar="KEY=VALUE",
                        help="a backend option (repeatable), VALUE read as JSON when it is JSON (2, true, "
                             "null, {...}), else as text: --solver sat --option encoding=pairwise; checked "
                             "like a batch line's (see `nqcsp solvers`)")
    parser.add_argument("--proof-dir", metavar="DIR", default=None,
                        help="write the UNSAT certificate to DIR: certificate.json, and for a proof "
                             "statement.cnf with proof.lrat or proof.drat (check them with 'nqcsp "
                             "check-proof'); a SAT or UNKNOWN answer writes nothing there and says so on "
                             "stderr")


def run(args: argparse.Namespace) -> int:
    from nqcsp.api import solve
    from nqcsp.board.result import Status

    if args.batch is not None:
        if args.n is not None or args.queen or args.queens_file or args.proof_dir is not None:
            raise UsageError("--batch takes its problems from the file: give no N, --queen, --queens-file "
                             "or --proof-dir")
        return run_batch(args)
    if args.n is None:
        raise UsageError("give N, or --batch FILE")
    if args.proof_dir is not None:
        from nqcsp.runtime.paths import directory_to_write

        directory_to_write(args.proof_dir, "proof directory", probe=True)  # before the solve, not after it
    queens = list(args.queen)
    if args.queens_file is not None:
        queens += parse_queens_text(read_input(args.queens_file), args.queens_file)
    fmt = args.format or ("board" if args.n <= BOARD_TEXT_UP_TO else "columns")
    if fmt == "board":
        # Refused before solving: the board text of a big n cannot be held, whatever the answer.
        check_board_fits(args.n, args.memory_limit)
    time_limit = args.time_limit
    writing = 0.0 if time_limit is None else output_seconds(args.n, fmt)
    if time_limit is not None:
        # Writing a solution is a stage of the call like any other: its time is kept back from the solve.
        # When it alone exceeds the limit, a short solve still answers what is small to write (no solution,
        # a memory limit).
        time_limit = time_limit - writing if writing < time_limit else WRITE_LESS_SHARE * time_limit
    result = solve(args.n, queens, solver=args.solver, time_limit=time_limit, seed=args.seed,
                   memory_limit=args.memory_limit, **backend_options(args.option))
    if args.time_limit is not None and writing >= args.time_limit and result.status is Status.SAT:
        sys.stdout.write(f"unknown: time limit: writing the solution for N = {args.n} as {fmt} needs about "
                         f"{writing:.2g} s, over the time limit of {args.time_limit} s\n")
        return EXIT_UNKNOWN
    if args.proof_dir is not None:
        write_proof_dir(result, args.proof_dir)
    return write_result(result, fmt)


def write_proof_dir(result: Result, directory: str) -> None:
    """The certificate of an UNSAT answer into ``directory``; for any other answer a note on stderr, so
    that an empty directory is never mistaken for a missing proof."""
    from nqcsp.proof.certify import write_certificate

    if result.certificate is None:
        what = "a verified solution needs no proof" if result.columns is not None else "there is no answer"
        sys.stderr.write(f"nqcsp: --proof-dir: nothing written to {directory!r}: the answer is "
                         f"{result.status} ({what})\n")
        return
    write_certificate(result.certificate, directory)


# Board text is rendered by numpy at about 1 ns a byte (n (n + 1) bytes); JSON joins the columns text
# once more in Python.
BOARD_S_PER_BYTE = 2e-9
# The share of the time limit a solve gets when writing a solution could not fit in the limit anyway.
WRITE_LESS_SHARE = 0.05
JSON_FACTOR = 2.0
# An SVG picture above 128 counts the queens per block in numpy chunks: about 10 ns a queen, with margin.
SVG_S_PER_QUEEN = 5e-8


def output_seconds(n: int, fmt: str) -> float:
    """About how long writing a SAT answer of size n takes in ``fmt``."""
    from nqcsp.board.text import columns_text_seconds

    if fmt == "board":
        return BOARD_S_PER_BYTE * n * (n + 1)
    if fmt == "svg":
        return SVG_S_PER_QUEEN * n
    return columns_text_seconds(n) * (JSON_FACTOR if fmt == "json" else 1.0)


# Keywords of nqcsp.solve that have their own flags.
_NOT_OPTIONS = ("n", "queens", "solver", "time_limit", "seed", "memory_limit")


def option_arg(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` as (key, value): VALUE as JSON when it parses, else the text itself; a VALUE that
    opens as JSON does (``{``, ``[``, ``"``) must be JSON, so a broken object is never taken for text. The
    registry checks the value, as for a batch line or a keyword of ``nqcsp.solve``."""
    key, equals, raw = text.partition("=")
    key = key.strip()
    if not equals or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"an option is KEY=VALUE, got {text!r}")
    try:
        value = parse_json(raw, f"option {key}")
    except ValueError as exc:
        if raw.lstrip().startswith(("{", "[", '"')):
            raise argparse.ArgumentTypeError(str(exc)) from None
        value = raw
    if key in _NOT_OPTIONS:
        raise argparse.ArgumentTypeError(_not_an_option(key, value, raw))
    from nqcsp.runtime.values import close_names
    from nqcsp.solvers import specs

    # A near miss of a keyword with a flag (timelimit), not of a backend option (sat_solvr: the registry
    # names that one when it refuses it).
    options = {option.name for backend in specs() for option in backend.options}
    near = close_names(key, (*_NOT_OPTIONS, *options))
    if key not in options and near and near[0] in _NOT_OPTIONS:
        flags = " or ".join(f"--{name.replace('_', '-')}" for name in near if name in _NOT_OPTIONS)
        raise argparse.ArgumentTypeError(f"{key} is not a backend option; did you mean {flags}?")
    return key, value


def _not_an_option(key: str, value: Any, raw: str) -> str:
    """Why KEY of ``-O KEY=VALUE`` has a flag of its own, and the flag; for ``solver`` with a VALUE that
    names no backend, the backend options that take VALUE (``-O solver=glucose``: the sat backend's
    ``sat_solver``)."""
    from nqcsp.solvers import options_taking, specs

    flag = f"--{key.replace('_', '-')}"
    if key == "solver" and value not in ("auto", *(backend.name for backend in specs())):
        meant = " or ".join(f"--solver {backend} -O {option}={raw if given == value else given}"
                            for backend, option, given in options_taking(key, value))
        if meant:
            return f"solver is not a backend option, and {raw!r} is not a backend; did you mean {meant}?"
    return f"{key} is not a backend option; use {flag} {raw}"


def check_board_fits(n: int, memory_limit: int | None) -> None:
    from nqcsp.runtime.limits import as_memory_limit, format_bytes

    needed, limit = 2 * n * (n + 1), as_memory_limit(memory_limit)
    if needed > limit:
        raise UsageError(f"--format board for N = {n} needs {format_bytes(needed)} of text, over the memory "
                         f"limit of {format_bytes(limit)}; use --format columns")


def parse_queens_text(text: str, source: str) -> list[tuple[int, int]]:
    """Queens as JSON (a list of [row, col] pairs, or an object whose one field is "queens", that list)
    or as one ``R,C`` per line. The object is held to that schema: ``{"queen": ...}`` or ``{}`` read as
    no queens would answer another question than the one asked."""
    where = f"queens file {named(source)}"
    stripped = text.strip()
    if stripped.startswith(("[", "{")):
        try:
            data = parse_json(stripped, where, default_memory_limit())
            if isinstance(data, dict):
                data = Fields(data, where).keys(("queens",)).items("queens")
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if not isinstance(data, list):
            raise UsageError(f"{where}: expected a list of [row, col] pairs")
        for index, pair in enumerate(data):
            if not (isinstance(pair, list) and len(pair) == 2
                    and all(isinstance(x, int) and not isinstance(x, bool) for x in pair)):
                raise UsageError(f"{where}: queen {index} must be a [row, col] pair of integers, got "
                                 f"{json.dumps(pair)[:60]}")
        return [(pair[0], pair[1]) for pair in data]
    queens = []
    for number, line in enumerate(stripped.splitlines(), 1):
        if line.strip() and not line.lstrip().startswith("#"):
            try:
                queens.append(queen_arg(line.strip()))
            except argparse.ArgumentTypeError as exc:
                raise UsageError(f"{where} line {number}: {exc}") from None
    return queens


def exit_code(result: Result) -> int:
    """0 SAT, 1 UNSAT with a checked certificate, 5 UNSAT claimed without one, 3 UNKNOWN."""
    from nqcsp.board.result import Status

    if result.status is Status.SAT:
        return EXIT_OK
    if result.status is Status.UNSAT:
        checked = result.certificate is not None and result.certificate.checked
        return EXIT_NO if checked else EXIT_CLAIM
    return EXIT_UNKNOWN


def write_result(result: Result, fmt: str | None, out: TextIO | None = None) -> int:
    from nqcsp.api import TRIVIAL
    from nqcsp.board.result import Status
    from nqcsp.solvers.base import REASON

    out = out or sys.stdout
    fmt = fmt or ("board" if result.n <= BOARD_TEXT_UP_TO else "columns")
    if fmt == "json":
        write_json(result, out)
    elif fmt == "svg":
        # Every answer is a picture: the solution, or the problem (an UNSAT's attacked cells shaded).
        out.write(result.to_svg())
    elif result.status is Status.SAT:
        if fmt == "board":
            out.write(result.board())
        elif result.columns is not None:
            write_columns(result.columns, out)
    elif result.status is Status.UNSAT:
        certificate = result.certificate
        summary = certificate.summary() if certificate is not None else "no certificate"
        claim = "" if certificate is not None and certificate.checked else " - a claim, not a proof"
        # Every call answers the trivial cases before any backend runs, whichever one was named.
        source = "; found by the pre-check, before any backend" if result.solver == TRIVIAL else ""
        out.write(f"no solution ({summary}{claim}{source})\n")
    else:
        out.write(f"unknown: {result.stats.get(REASON, 'gave up')}\n")
    out.flush()
    return exit_code(result)


def write_columns(columns: np.ndarray, out: TextIO) -> None:
    """Columns text, as bytes straight to the binary stream under ``out`` when it has one."""
    from nqcsp.board.text import column_text_chunks, format_columns

    binary = getattr(out, "buffer", None)
    if binary is None:
        for text in format_columns(columns):
            out.write(text)
        return
    out.flush()
    for chunk in column_text_chunks(columns):
        binary.write(chunk)
    binary.flush()


def write_json(result: Result, out: TextIO) -> None:
    """One JSON object; the columns are streamed in chunks, so n = 10^8 needs no giant string."""
    write_json_record(result.to_json(with_columns=False), result.columns, out)
