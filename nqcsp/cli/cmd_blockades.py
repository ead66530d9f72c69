"""``nqcsp blockades N [M]``: which single mandatory queens leave no solution, proven, for n = N..M;
``nqcsp blockades N --queens K``: which sets of K non-attacking queens leave none
(``nqcsp.studies.queen_sets``), or with ``--search --time-limit S`` a search for such sets on boards too
large to sweep."""

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
    positive_float_arg,
    positive_int_arg,
)


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "blockades", help="sweep every cell of boards N..M",
        description="For every cell (up to the 8 board symmetries) of every board size N..M: a verified "
                    "witness when one queen there leaves a solution, a checked certificate when not. "
                    "On Ctrl-C the boards already finished are written and the exit code is 130.")
    parser.add_argument("first", type=board_size_arg, metavar="N", help="the first board size")
    parser.add_argument("last", type=board_size_arg, metavar="M", nargs="?",
                        help="the last board size (default: N alone)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="a table for people (default) or one JSON document")
    parser.add_argument("--cells", action="store_true", help="with --format json: every cell's verdict")
    add_executor_arguments(parser)
    parser.add_argument("--seed", type=int, default=0, metavar="K",
                        help="seed of the randomised witness search (default 0: every run alike)")
    bar = parser.add_mutually_exclusive_group()
    bar.add_argument("--no-progress", action="store_true",
                     help="no progress bar on stderr (there is none when stderr is not a terminal)")
    bar.add_argument("--progress", action="store_true",
                     help="the progress bar on stderr even when it is not a terminal (a log file)")
    parser.add_argument("--queens", type=positive_int_arg, default=1, metavar="K",
                        help="sets of K mutually non-attacking queens instead of single cells (one board N)")
    parser.add_argument("--checkpoint", metavar="FILE",
                        help="with --queens: keep finished tasks in this JSONL file and resume from it")
    parser.add_argument("--search", action="store_true",
                        help="with --queens: search for blocked sets (local search, each candidate decided "
                             "exactly) for --time-limit seconds instead of sweeping every class")
    parser.add_argument("--time-limit", type=positive_float_arg, metavar="S",
                        help="with --search: seconds to search")
    parser.add_argument("--svg", metavar="DIR",
                        help="draw every blocked class as an SVG picture in DIR (made if missing): its "
                             "queens, the cells they attack shaded, an empty line marked; one file per "
                             "class, nN-R-C.svg for a cell, nN-kK-R1-C1_R2-C2....svg for a set, and "
                             "index.html showing them all")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.svg is not None:
        from nqcsp.runtime.paths import directory_to_write

        directory_to_write(args.svg, "--svg", probe=True)      # before the sweep, not after it
    if args.queens != 1 or args.search:
        return run_sets(args)
    if args.checkpoint is not None or args.time_limit is not None:
        raise UsageError("--checkpoint and --time-limit go with --queens K (K > 1) or --search")
    from tqdm import tqdm

    from nqcsp.board.symmetry import class_count
    from nqcsp.runtime.parallel import SchedulerLost
    from nqcsp.studies.blockades import iter_sweep, load_solvers

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
    if args.svg is not None:
        draw_blocked(args.svg, [(board.n, (cell,)) for board in sorted(boards, key=lambda b: b.n)
                                for cell in board.blocked_classes])
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


def svg_name(n: int, queens: tuple[tuple[int, int], ...]) -> str:
    """The file a blocked class is drawn in: ``nN-R-C.svg`` for one queen, ``nN-kK-R1-C1_R2-C2...svg``."""
    cells = "_".join(f"{r}-{c}" for r, c in sorted(queens))
    return f"n{n}-{cells}.svg" if len(queens) == 1 else f"n{n}-k{len(queens)}-{cells}.svg"


def draw_blocked(directory: str, classes: list[tuple[int, tuple[tuple[int, int], ...]]]) -> None:
    """``--svg DIR``: one picture per blocked class (its canonical queens, the cells they attack shaded,
    an empty line marked), named by ``svg_name``, and ``index.html``, a contact sheet of them all; a note
    on stderr says how many were drawn where."""
    from nqcsp.board.svg import contact_sheet, queen_set_svg
    from nqcsp.runtime.paths import make_directory, write_whole

    folder = make_directory(directory, "--svg")
    sheet = []
    for n, queens in classes:
        where = " ".join(f"({r}, {c})" for r, c in sorted(queens))
        title = f"{n} x {n} board: the queens {where} leave no solution (proven)"
        with write_whole(folder / svg_name(n, queens), "--svg picture") as handle:
            handle.write(queen_set_svg(n, queens, title=title).encode("utf-8"))
        sheet.append((svg_name(n, queens), f"n = {n}: {where}"))
    with write_whole(folder / "index.html", "--svg index") as handle:
        handle.write(contact_sheet(sheet, f"{len(classes)} blocked classes", "Each picture: queens that "
                                   "leave no solution (proven), the squares they attack shaded, a row or "
                                   "column left without a square marked.").encode("utf-8"))
    sys.stderr.write(f"nqcsp: {len(classes)} blocked classes drawn in {directory}\n")


def run_sets(args: argparse.Namespace) -> int:
    """``--queens K``: the sweep of every class of K-sets (or ``--search``) on board N."""
    from nqcsp.studies.queen_sets import check_size, iter_set_sweep, load_queen_set_kernels

    if args.last is not None:
        raise UsageError("--queens K takes one board size N, not a range")
    n, k = check_size(args.first, args.queens)
    if args.search:
        return run_search(args, n, k)
    if args.time_limit is not None:
        raise UsageError("--time-limit goes with --search (a sweep decides every class)")
    from nqcsp.cli.progress import SweepBar

    bar = SweepBar(not args.no_progress, force=args.progress)
    account = None
    try:
        with executor_from_args(args, warm=load_queen_set_kernels) as executor, \
                contextlib.closing(iter_set_sweep(n, k, executor=executor, seed=args.seed,
                                                  checkpoint=args.checkpoint)) as running:
            for account in running:
                bar.update(k, account)
    except KeyboardInterrupt:
        bar.close()
        if account is not None:
            write_sets(account, args)
        kept = f"; rerun with --checkpoint {args.checkpoint} to resume" if args.checkpoint is not None else ""
        sys.stderr.write(f"nqcsp: interrupted: {account.tasks_done if account else 0} tasks finished{kept}\n")
        return EXIT_INTERRUPTED
    bar.close()
    if account is None:
        from nqcsp.studies.queen_sets import SetSweep

        account = SetSweep(n, k)
    write_sets(account, args)
    if args.svg is not None:
        draw_blocked(args.svg, [(n, tuple(found.queens)) for found in account.blocked])
    return EXIT_UNKNOWN if account.undecided else EXIT_OK


def write_sets(account: object, args: argparse.Namespace) -> None:
    from nqcsp.studies.queen_sets import SetSweep

    assert isinstance(account, SetSweep)
    if args.format == "json":
        json.dump(account.to_json(), sys.stdout)
        sys.stdout.write("\n")
        sys.stdout.flush()
        return
    state = "" if account.finished else f" (partial: {account.tasks_done} of {account.tasks} tasks)"
    print(f"n = {account.n}, {account.k} queens{state}: {account.classes} classes ({account.ksets} sets), "
          f"{account.covered} covered by witnesses, {account.searched} decided by search, "
          f"{len(account.blocked)} blocked ({sum(b.size for b in account.blocked)} sets), "
          f"{len(account.undecided)} undecided; {account.seconds:.2f} s of work")
    write_classes(account.blocked, account.undecided)


def write_classes(blocked: list, undecided: list) -> None:
    """One line per blocked class (canonical set, class size, certificate) and per undecided class."""
    for found in sorted(blocked, key=lambda b: b.queens):
        cells = " ".join(f"{r},{c}" for r, c in found.queens)
        checked = ", ".join(found.certificate.get("checked_by", []))
        print(f"blocked  {cells}  x{found.size}  {found.certificate.get('kind')} checked by {checked}")
    for open_class in undecided:
        cells = " ".join(f"{r},{c}" for r, c in open_class.queens)
        print(f"undecided  {cells}  x{open_class.size}  {open_class.reason}")
    sys.stdout.flush()


def run_search(args: argparse.Namespace, n: int, k: int) -> int:
    """``--search``: independent annealing chains, one per worker, for ``--time-limit`` seconds."""
    from nqcsp.runtime.parallel import cpu_count
    from nqcsp.studies.blockade_search import search
    from nqcsp.studies.queen_sets import load_queen_set_kernels

    if args.time_limit is None:
        raise UsageError("--search needs --time-limit S (it runs until then)")
    if args.checkpoint is not None:
        raise UsageError("--checkpoint goes with a sweep, not with --search")
    try:
        with executor_from_args(args, warm=load_queen_set_kernels) as executor:
            report = search(n, k, args.time_limit, seed=args.seed, chains=args.jobs or cpu_count(),
                            executor=executor)
    except KeyboardInterrupt:
        sys.stderr.write("nqcsp: interrupted: the search was cancelled\n")
        return EXIT_INTERRUPTED
    if args.format == "json":
        json.dump(report.to_json(), sys.stdout)
        sys.stdout.write("\n")
    else:
        idle = f" ({report.idle})" if report.idle else ""
        print(f"n = {n}, {k} queens: {report.chains} chains, {report.seconds:.1f} s, {report.moves} moves, "
              f"{report.decided} classes decided exactly: {report.completable} completable, "
              f"{len(report.blocked)} blocked, {len(report.undecided)} undecided{idle}")
        write_classes(report.blocked, report.undecided)
    sys.stdout.flush()
    if args.svg is not None:
        draw_blocked(args.svg, [(n, tuple(found.queens)) for found in report.blocked])
    return EXIT_UNKNOWN if report.undecided and not report.blocked else EXIT_OK
