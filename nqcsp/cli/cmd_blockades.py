"""``nqcsp blockades N [M]``: which single mandatory queens leave no solution, proven, for n = N..M."""

from __future__ import annotations

import argparse
import json
import sys

from nqcsp.cli.common import EXIT_OK, UsageError, board_size_arg, positive_int_arg


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "blockades", help="sweep every cell of boards N..M",
        description="For every cell (up to the 8 board symmetries) of every board size N..M: a verified "
                    "witness when one queen there leaves a solution, a checked certificate when not.")
    parser.add_argument("first", type=board_size_arg, metavar="N")
    parser.add_argument("last", type=board_size_arg, metavar="M", nargs="?")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--cells", action="store_true", help="with --format json: every cell's verdict")
    parser.add_argument("--jobs", type=positive_int_arg, default=None, metavar="K",
                        help="worker processes (default: one per core)")
    parser.add_argument("--seed", type=int, default=0, metavar="K")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from concurrent.futures import ProcessPoolExecutor

    from tqdm import tqdm

    from nqcsp.blockades import canonical_cells, sweep

    last = args.first if args.last is None else args.last
    if last < args.first:
        raise UsageError(f"M must be >= N, got N = {args.first}, M = {last}")
    sizes = range(args.first, last + 1)
    total = sum(len(canonical_cells(n)) for n in sizes)
    with tqdm(total=total, unit="cell", disable=args.no_progress, file=sys.stderr) as bar, \
            ProcessPoolExecutor(max_workers=args.jobs) as pool:
        boards = sweep(sizes, executor=pool, seed=args.seed, progress=bar.update)
    if args.format == "json":
        json.dump([board.to_json(with_cells=args.cells) for board in boards], sys.stdout)
        sys.stdout.write("\n")
        return EXIT_OK
    print(f"{'n':>5} {'classes':>8} {'blocked':>8} {'seconds':>8}  "
          "witnesses by backend; proofs; blocked cells (one per symmetry class)")
    for board in boards:
        witnesses = ", ".join(f"{name} {count}" for name, count in board.witnesses_by_solver.items()) or "-"
        proofs = ", ".join(f"{kind} {count}" for kind, count in board.proofs_by_kind.items()) or "-"
        cells = " ".join(f"{r},{c}" for r, c in board.blocked_classes) or "-"
        print(f"{board.n:>5} {board.classes:>8} {len(board.blocked):>8} {board.seconds:>8.2f}  "
              f"{witnesses}; {proofs}; {cells}")
    return EXIT_OK
