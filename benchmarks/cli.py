"""Command line: ``run`` a suite, ``analyze`` result files, ``list`` the suites, ``check-generator``,
``peers`` (CPU-second ratios against native peers given by path, benchmarks/native_peers.py), ``compare``
(a suite's results before and after a change, benchmarks/compare.py).

``python -m benchmarks run SUITE`` appends to ``./bench-results/SUITE.jsonl`` (``--out DIR`` names another
directory; ``--publish`` writes to the package's tracked ``benchmarks/results/``). ``analyze`` writes its
table and plots beside the first results file unless ``--outdir`` says otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

from benchmarks.instances import PROB079_ENV
from benchmarks.peers import SHIFTQUEENS_ENV
from benchmarks.runner import DEFAULT_OUT, PUBLISHED_DIR, run_suite
from benchmarks.suites import SUITES
from nqcsp.cli.common import add_executor_arguments, executor_from_args, positive_float_arg


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = top.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run a suite, appending JSON lines to DIR/SUITE.jsonl")
    run.add_argument("suite", choices=sorted(SUITES))
    where = run.add_mutually_exclusive_group()
    where.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
                       help=f"results directory (default ./{DEFAULT_OUT})")
    where.add_argument("--publish", action="store_true", help=f"write into {PUBLISHED_DIR}")
    run.add_argument("--timeout", type=positive_float_arg, help="seconds per run (default: the suite's)")
    run.add_argument("--max-n", type=int, help="leave out boards larger than this")
    run.add_argument("--solvers", help="comma-separated solver names or configuration labels to run")
    run.add_argument("--seeds", type=int, help="run solver seeds 0..K-1 (default: the suite's)")
    run.add_argument("--count", type=int, help="completion instances per (n, m) (default: the suite's)")
    run.add_argument("--shiftqueens", action="append", type=Path, metavar="PATH",
                     help=f"a shiftqueens binary (CSPLib prob079), repeatable, tried in order; "
                          f"default ${SHIFTQUEENS_ENV}")
    run.add_argument("--prob079", type=Path, metavar="DIR",
                     help=f"a copy of CSPLib's Problems/prob079 for the field suite; default ${PROB079_ENV}")
    run.add_argument("--warmup-timeout", type=positive_float_arg, default=600.0,
                     help="seconds for the untimed warm-up")
    run.add_argument("--keep-queens", type=int, default=200, metavar="N",
                     help="record the solution itself for boards up to N (default 200)")
    run.add_argument("--resume", action="store_true", help="skip runs already in the results file")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.add_argument("--parallel", action="store_true",
                     help="run the suite's lines as parallel tasks (with --jobs, --scheduler or --dask); "
                          "timings then share the machine")
    add_executor_arguments(run)

    analyze = sub.add_parser("analyze", help="plots (PNG) and a markdown table from result files")
    analyze.add_argument("results", nargs="+", type=Path)
    analyze.add_argument("--outdir", type=Path, help="where PNGs and the table go (default: beside the first "
                                                     "results file)")
    analyze.add_argument("--name", help="file name stem of the outputs (default: the first file's stem)")

    check = sub.add_parser("check-generator", help="cross-check nqcsp.random_completion against CSPLib "
                                                   "prob079's generator (data/queens-gen-fast.py), by path")
    check.add_argument("generator", type=Path)
    check.add_argument("--seeds", type=int, default=10, help="seeds 0..K-1 per size (default 10)")

    sub.add_parser("list", help="the suites and what they hold")
    sub.add_parser("compare", add_help=False,
                   help="two result files of a suite, before and after: ratios and regressions "
                        "(python -m benchmarks compare --help)")
    sub.add_parser("peers", add_help=False,
                   help="side by side with native peers given by path, CPU-second ratios "
                        "(python -m benchmarks peers --help)")
    return top


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["compare"]:
        from benchmarks.compare import main as compare_main

        return compare_main(argv[1:])
    if argv[:1] == ["peers"]:
        from benchmarks.native_peers import main as peers_main

        return peers_main(argv[1:])
    args = parser().parse_args(argv)
    if args.command == "list":
        for name, suite in SUITES.items():
            print(f"{name:18} {suite['description']}")
        return 0
    if args.command == "check-generator":
        from benchmarks.generator_check import DEFAULT_SIZES, run, table

        if not args.generator.is_file():
            print(f"error: no such generator: {args.generator}", file=sys.stderr)
            return 2
        rows = run(args.generator, DEFAULT_SIZES, range(args.seeds))
        print(table(rows), end="")
        return 0 if all(not r["problems"] for r in rows) else 1
    if args.command == "analyze":
        from benchmarks.analyze import analyze

        missing = [str(p) for p in args.results if not p.exists()]
        if missing:
            print(f"error: no such results file: {', '.join(missing)}", file=sys.stderr)
            return 2
        for path in analyze(args.results, args.outdir or args.results[0].parent, args.name):
            print(path)
        return 0
    suite = SUITES[args.suite]
    family_params = {}
    if args.count is not None:
        if suite["family"] != "completion":
            print("error: --count applies only to completion suites", file=sys.stderr)
            return 2
        family_params["count"] = args.count
    if args.shiftqueens:
        # The worker processes inherit it: that is how the peer learns the binaries.
        os.environ[SHIFTQUEENS_ENV] = os.pathsep.join(str(p.resolve()) for p in args.shiftqueens)
    if args.prob079:
        if not (args.prob079 / "data").is_dir():
            print(f"error: {args.prob079} is not a copy of CSPLib's Problems/prob079 (no data/)",
                  file=sys.stderr)
            return 2
        os.environ[PROB079_ENV] = str(args.prob079.resolve())
    if args.publish and not (PUBLISHED_DIR.parent.parent / "pyproject.toml").is_file():
        print(f"error: --publish writes the tables of a checkout, and {PUBLISHED_DIR} is not in one",
              file=sys.stderr)
        return 2
    out = (PUBLISHED_DIR if args.publish else args.out) / f"{args.suite}.jsonl"
    parallel = args.parallel or args.scheduler is not None or args.dask
    with executor_from_args(args) if parallel else contextlib.nullcontext() as executor:
        counts = run_suite(
            args.suite, suite, out, progress=not args.no_progress, resume=args.resume,
            warmup_timeout=args.warmup_timeout, keep_queens_max_n=args.keep_queens, timeout=args.timeout,
            max_n=args.max_n, solvers=args.solvers.split(",") if args.solvers else None,
            seeds=range(args.seeds) if args.seeds else None, family_params=family_params, executor=executor)
    summary = ", ".join(f"{status} {count}" for status, count in sorted(counts.items()))
    print(f"{out}: {summary or 'nothing to run'}")
    return 0
