"""``nqcsp count N [--queen R,C]... [--no-symmetry]``: the exact number of solutions."""

from __future__ import annotations

import argparse
import sys
import threading

from nqcsp.cli.common import EXIT_OK, board_size_arg, queen_arg

# Below this n a count takes well under a second and a bar would only flicker.
PROGRESS_FROM_N = 15


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("count", help="count every solution (n <= 64; exact)",
                            description="Count the solutions of N queens containing the mandatory ones.")
    parser.add_argument("n", type=board_size_arg, metavar="N", help="board size")
    parser.add_argument("--queen", "-q", type=queen_arg, action="append", default=[], metavar="R,C",
                        help="a mandatory queen, 0-based row and column (repeatable)")
    parser.add_argument("--no-symmetry", action="store_true",
                        help="search every board instead of one per symmetry class (for cross-checks)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from nqcsp.counting import count

    show = sys.stderr.isatty() and args.n >= PROGRESS_FROM_N
    if not show:
        print(count(args.n, args.queen, symmetry=not args.no_symmetry))
        return EXIT_OK
    from tqdm import tqdm

    lock = threading.Lock()
    with tqdm(total=0, unit="task", file=sys.stderr, delay=0.5, leave=False) as bar:
        def progress(done: int, total: int) -> None:
            with lock:
                bar.total = total
                bar.update(done - bar.n)   # update(), not a set n: only update() honours `delay`

        result = count(args.n, args.queen, symmetry=not args.no_symmetry, progress=progress)
    print(result)
    return EXIT_OK
