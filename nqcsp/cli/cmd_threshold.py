"""``nqcsp threshold N``: the completion threshold a(n) (OEIS A374013) with its evidence, and
``nqcsp check-threshold FILE``: re-check saved evidence without running the search again."""

from __future__ import annotations

import argparse
import json
import sys

from nqcsp.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_NO,
    EXIT_OK,
    EXIT_UNKNOWN,
    UsageError,
    add_executor_arguments,
    board_size_arg,
    executor_from_args,
    memory_arg,
    named,
    positive_float_arg,
    read_bounded,
)


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "threshold", help="the completion threshold a(n) (OEIS A374013), with evidence",
        description="The largest a(n) such that every placement of a(n) or fewer non-attacking queens on "
                    "the N x N board extends to a solution: every class of k-sets for k <= a(n) covered by "
                    "a verified witness, and a set of a(n) + 1 queens with a checked certificate that it "
                    "has none. --evidence writes the evidence (xz-compressed for a .xz name), which "
                    "'nqcsp check-threshold' re-checks. Exit 0 done, 3 when a class stayed undecided, 130 "
                    "on Ctrl-C (resume with the same --checkpoint).")
    parser.add_argument("n", type=board_size_arg, metavar="N", help="board size")
    parser.add_argument("--json", action="store_true", help="print the evidence document as JSON")
    parser.add_argument("--evidence", metavar="FILE", help="also write the evidence document to FILE")
    parser.add_argument("--checkpoint", metavar="DIR",
                        help="keep each level's finished tasks in DIR (n{N}-k{K}.jsonl) and resume from them")
    parser.add_argument("--search-first", type=positive_float_arg, default=0.0, metavar="S",
                        help="search S seconds for a blocked set before each level's sweep (k >= 2); one "
                             "found ends the run there (for large boards)")
    parser.add_argument("--up-to", type=board_size_arg, default=None, metavar="K",
                        help="sweep no level past K: without a blocked set of K + 1 queens found by "
                             "--search-first, the answer is the proven bound a(N) >= K")
    parser.add_argument("--memory-limit", type=memory_arg, default=None, metavar="BYTES",
                        help="memory for the sweep's cover caches, e.g. 4G (default: the memory available)")
    parser.add_argument("--engine", choices=("classes", "rows"), default="classes",
                        help="sweep the levels from 2 queens on by classes of sets (default) or by row "
                             "combinations (the levels of 5 queens from n = 24 on)")
    parser.add_argument("--derived", action="store_true",
                        help="with --engine rows: store each witness the sweep finds as the position of "
                             "its set, which the check derives again (evidence version 3, a third the "
                             "size or less)")
    add_executor_arguments(parser)
    parser.add_argument("--seed", type=int, default=0, metavar="K",
                        help="seed of the randomised witness search (default 0: every run alike)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.set_defaults(run=run)

    check = sub.add_parser(
        "check-threshold", help="re-check saved threshold evidence",
        description="Re-check the evidence of 'nqcsp threshold --evidence' (JSON, or xz-compressed JSON) "
                    "without the search: every field read and checked first; the blocked set's "
                    "certificate (its proof checked again, and by every --checker given); every witness "
                    "verified as a solution; every level's sets counted and matched with the sets the "
                    "witnesses cover, by code the sweep does not use. Exit 0 valid, 1 not, 2 bad input, 3 "
                    "the check does not fit the time or memory limit.")
    check.add_argument("file", metavar="FILE", help="evidence, JSON or .json.xz ('-' for stdin)")
    check.add_argument("--time-limit", type=positive_float_arg, metavar="S",
                       help="seconds for the whole check (default: none)")
    check.add_argument("--memory-limit", type=memory_arg, default=None, metavar="BYTES",
                       help="memory budget, e.g. 4G (default: the memory available)")
    check.add_argument("--checker", action="append", default=[], metavar="NAME=PATH",
                       help="also check the blocked set's LRAT proof with an outside checker: cake_lpr=PATH")
    add_executor_arguments(check)
    check.set_defaults(run=run_check)


def run(args: argparse.Namespace) -> int:
    from nqcsp.cli.progress import SweepBar
    from nqcsp.runtime.paths import file_to_write
    from nqcsp.studies.evidence import write_evidence
    from nqcsp.studies.queen_sets import load_queen_set_kernels
    from nqcsp.studies.threshold import UndecidedError, completion_threshold

    if args.n < 4:
        raise UsageError(f"N must be at least 4 (OEIS A374013 starts at n = 4), got {args.n}")
    if args.up_to is not None and args.up_to >= args.n:
        raise UsageError(f"--up-to must be below N = {args.n}, got {args.up_to}")
    if args.derived and args.engine != "rows":
        raise UsageError("--derived needs --engine rows: only the sweep by rows derives its witnesses")
    if args.evidence is not None:
        # Before the computation, which may take hours: a path it cannot write is bad input now.
        file_to_write(args.evidence, "evidence file", probe=True)
    bar = SweepBar(not args.no_progress)
    try:
        with executor_from_args(args, warm=load_queen_set_kernels) as executor:
            found = completion_threshold(args.n, executor=executor, seed=args.seed,
                                         checkpoint_dir=args.checkpoint, search_first=args.search_first,
                                         up_to=args.up_to, memory_limit=args.memory_limit,
                                         progress=bar.update, engine=args.engine, derived=args.derived)
    except KeyboardInterrupt:
        bar.close()
        kept = f"; rerun with --checkpoint {args.checkpoint} to resume" if args.checkpoint else ""
        sys.stderr.write(f"nqcsp: interrupted{kept}\n")
        return EXIT_INTERRUPTED
    except UndecidedError as exc:
        bar.close()
        sys.stderr.write(f"nqcsp: unknown: {exc}\n")
        return EXIT_UNKNOWN
    bar.close()
    if args.evidence is not None:
        write_evidence(found.evidence(), args.evidence)
    if args.json:
        json.dump(found.to_json(), sys.stdout)
        sys.stdout.write("\n")
        sys.stdout.flush()
        return EXIT_OK
    print(found.evidence().claim)
    if found.exact and found.certificate is not None:
        queens = " ".join(f"{r},{c}" for r, c in found.blocked)
        print(f"blocked: {len(found.blocked)} queens {queens}: {found.certificate.summary()}")
    print(f"{'k':>3} {'classes':>10} {'sets':>12} {'witnessed':>10} {'searched':>9} {'witnesses':>9} "
          f"{'seconds':>8}")
    for level in found.levels:
        print(f"{level.k:>3} {level.classes:>10} {level.ksets:>12} {level.covered:>10} {level.searched:>9} "
              f"{level.witnesses:>9} {level.seconds:>8.2f}")
    stop = found.blocked_level
    if found.exact:
        how = (f"after {stop.get('tasks_done')} of {stop.get('tasks')} tasks of the sweep"
               if stop.get("found_by") == "sweep" else f"found by the search, {stop.get('search_seconds')} s")
        print(f"{stop.get('k')} queens: the first blocked class {how}, "
              f"{stop.get('classes_decided_before_stop')} classes decided")
    elif found.search:
        spent = found.search
        print(f"{spent['k']} queens: no blocked set found by the search ({spent['seconds']} s, "
              f"{spent['moves']} moves, {spent['decided']} classes decided exactly, all completable)")
    print(f"{found.witness_count} witnesses in the evidence; {found.seconds:.2f} s")
    sys.stdout.flush()
    return EXIT_OK


def run_check(args: argparse.Namespace) -> int:
    from nqcsp.proof.outside import outside_checker
    from nqcsp.runtime.limits import Limits
    from nqcsp.studies.evidence import MAX_DOCUMENT_BYTES, check_evidence, read_evidence

    limits = Limits.start(args.time_limit, args.memory_limit)
    checkers = tuple(outside_checker(text) for text in args.checker)
    data = read_bounded(args.file, min(MAX_DOCUMENT_BYTES, limits.memory // 8), "evidence")
    evidence = read_evidence(data, limits.memory, f"evidence {named(args.file)}")
    with executor_from_args(args) as executor:
        report = check_evidence(evidence, limits=limits, executor=executor, outside=checkers)
    for line in report.lines:
        print(line)
    print(f"{'valid' if report.ok else 'INVALID'}: {evidence.claim}")
    sys.stdout.flush()
    return EXIT_OK if report.ok else EXIT_NO
