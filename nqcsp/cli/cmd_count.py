"""``nqcsp count N [--queen R,C]... [--no-symmetry] [--unique] [--jobs K | --scheduler A | --dask]``:
the exact number of solutions, or of fundamental solutions (one per symmetry class) with ``--unique``."""

from __future__ import annotations

import argparse
import contextlib
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Executor

from nqcsp.cli.common import (
    EXIT_OK,
    EXIT_USAGE,
    add_executor_arguments,
    add_queen_argument,
    board_size_arg,
    executor_from_args,
)

# Below this n a count takes well under a second and a bar would only flicker.
PROGRESS_FROM_N = 15


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("count", help="count every solution (n <= 64; exact)",
                            description="Count the solutions of N queens containing the mandatory ones.")
    parser.add_argument("n", type=board_size_arg, metavar="N", help="board size")
    add_queen_argument(parser)
    parser.add_argument("--no-symmetry", action="store_true",
                        help="search every board instead of one per symmetry class (for cross-checks)")
    parser.add_argument("--unique", action="store_true",
                        help="count fundamental solutions, one per class under the 8 board symmetries "
                             "(OEIS A002562); takes no --queen")
    add_executor_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from nqcsp.bitboard import count, count_unique
    from nqcsp.bitboard.counting import load_kernels

    if args.unique and (args.queen or args.no_symmetry):
        print("nqcsp count: --unique counts classes of the empty board; it takes no --queen or "
              "--no-symmetry", file=sys.stderr)
        return EXIT_USAGE

    def count_here(progress: Callable[[int, int], None] | None, executor: Executor | None) -> int:
        if args.unique:
            return count_unique(args.n, executor=executor, progress=progress)
        return count(args.n, args.queen, symmetry=not args.no_symmetry, executor=executor, progress=progress)

    show = sys.stderr.isatty() and args.n >= PROGRESS_FROM_N
    with contextlib.ExitStack() as stack:
        executor = None
        if args.jobs is not None or args.scheduler is not None or args.dask:
            # Before the progress bar: its monitor thread would keep a local cluster from forking its workers.
            executor = stack.enter_context(executor_from_args(args, warm=load_kernels))
        # Without flags: threads of this process, no pool to start for a short count.
        progress: Callable[[int, int], None] | None = None
        if show:
            from tqdm import tqdm

            bar = stack.enter_context(tqdm(total=0, unit="task", file=sys.stderr, delay=0.5, leave=False))
            lock = threading.Lock()

            def report(done: int, total: int) -> None:
                with lock:
                    bar.total = total
                    bar.update(done - bar.n)   # update(), not a set n: only update() honours `delay`

            progress = report
        result = count_here(progress, executor)
    print(result)
    return EXIT_OK
