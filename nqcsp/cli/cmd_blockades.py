"""``nqcsp blockades N [M]``: which single mandatory queens leave no solution, proven, for n = N..M."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys

from nqcsp.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNKNOWN,
    UsageError,
    add_executor_arguments,
    board_size_arg,
    executor_from_args,
)


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "blockades", help="sweep every cell of boards N..M",
        description="For every cell (up to the 8 board symmetries) of every board size N..M: a verified "
                    "witness when one queen there leaves a solution, a checked certificate when not. "
                    "On Ctrl-C the boards already finished are written and the exit code is 130.")
    parser.add_argument("first", type=board_size_arg, metavar="N")
    parser.add_argument("last", type=board_size_arg, metavar="M", nargs="?")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--cells", action="store_true", help="with --format json: every cell's verdict")
    add_executor_arguments(parser)
    parser.add_argument("--seed", type=int, default=0, metavar="K")
    bar = parser.add_mutually_exclusive_group()
    bar.add_argument("--no-progress", action="store_true",
                     help="no progress bar on stderr (there is none when stderr is not a terminal)")
    bar.add_argument("--progress", action="store_true",
                     help="the progress bar on stderr even when it is not a terminal (a log file)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from nqcsp.blockades import class_count, iter_sweep, load_solvers
    from nqcsp.parallel import SchedulerLost

    last = args.first if args.last is None else args.last
    if last < args.first:
        raise UsageError(f"M must be >= N, got N = {args.first}, M = {last}")
    sizes = range(args.first, last + 1)
    total = sum(class_count(n) for n in sizes)
    boards = []
    try:
        # The executor before the bar: the bar's monitor thread would keep a local cluster from forking.
        with executor_from_args(args, warm=load_solvers) as executor, \
                tqdm(total=total, unit="cell", file=sys.stderr,
                     disable=args.no_progress or not (args.progress or sys.stderr.isatty())) as bar, \
                contextlib.closing(iter_sweep(sizes, executor=executor, seed=args.seed)) as finished:
            for board in finished:
                boards.append(board)
                bar.update(board.classes)
    except (KeyboardInterrupt, SchedulerLost) as stopped:
        # The pending tasks are cancelled (and the local workers killed) by the context managers above;
        # what is finished is verified and worth keeping.
        write_boards(sorted(boards, key=lambda b: b.n), args)
        if isinstance(stopped, SchedulerLost):
            raise                 # the command's one line on stderr
        sys.stderr.write(f"nqcsp: interrupted: {len(boards)} of {len(sizes)} boards finished and written\n")
        return EXIT_INTERRUPTED
    write_boards(sorted(boards, key=lambda b: b.n), args)
    undecided = sum(len(board.undecided_classes) for board in boards)
    if undecided:
        # A board with an undecided class has no proven blocked count: a script must not take it for one.
        sys.stderr.write(f"nqcsp: {undecided} cell classes undecided (no checked proof and no witness; "
                         "install pysat or ortools for a second complete backend): their boards' blocked "
                         "counts are not proven\n")
        return EXIT_UNKNOWN
    return EXIT_OK


def write_boards(boards: list, args: argparse.Namespace) -> None:
    if args.format == "json":
        json.dump([board.to_json(with_cells=args.cells) for board in boards], sys.stdout)
        sys.stdout.write("\n")
        sys.stdout.flush()
        return
    print(f"{'n':>5} {'classes':>8} {'blocked':>8} {'seconds':>8}  "
          "witnesses by backend; proofs; blocked cells (one per symmetry class)")
    for board in boards:
        witnesses = ", ".join(f"{name} {count}" for name, count in board.witnesses_by_solver.items()) or "-"
        proofs = ", ".join(f"{kind} {count}" for kind, count in board.proofs_by_kind.items()) or "-"
        cells = " ".join(f"{r},{c}" for r, c in board.blocked_classes) or "-"
        undecided = " ".join(f"{r},{c}" for r, c in board.undecided_classes)
        blocked = f"{len(board.blocked)}{'?' if undecided else ''}"
        print(f"{board.n:>5} {board.classes:>8} {blocked:>8} {board.seconds:>8.2f}  "
              f"{witnesses}; {proofs}; {cells}" + (f"; UNDECIDED {undecided}" if undecided else ""))
    sys.stdout.flush()
