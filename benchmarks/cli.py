"""The one way into the comparison lab, from the repository's root: ``python -m benchmarks COMMAND``.

``run`` a suite of the grid, ``analyze`` result files, ``list`` the suites, and one command per study of
``benchmarks/suites/`` (``field``, ``thresholds``, ``peers``, the micro-benchmarks), each with its own
``--help``. The layout (``benchmarks/__init__.py``): harness, judging, suites, each layer importing only
the ones below it.

``python -m benchmarks run SUITE`` appends to ``./bench-results/SUITE.jsonl`` (``--out DIR`` names another
directory; ``--publish`` writes to the package's tracked ``benchmarks/results/``). ``analyze`` writes its
table and plots beside the first results file unless ``--outdir`` says otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from pathlib import Path

from benchmarks.harness.catalog import SUITES
from benchmarks.harness.instances import PROB079_ENV
from benchmarks.harness.peers import SHIFTQUEENS_ENV
from benchmarks.harness.prob079 import Prob079Error
from benchmarks.harness.records import RecordError
from benchmarks.harness.runner import DEFAULT_OUT, PUBLISHED_DIR, run_suite
from benchmarks.judging.truth import Contradiction
from nqcsp.cli.common import add_executor_arguments, executor_from_args, positive_float_arg, positive_int_arg

# The studies with a command line of their own: the module whose ``main(argv)`` takes the arguments.
STUDIES = {
    "field": ("benchmarks.suites.field.report", "the field's report (field.md, field.html) and warm calls"),
    "field-count": ("benchmarks.suites.field.count", "counting compared: bitboard, Ganak, CP-SAT"),
    "thresholds": ("benchmarks.suites.thresholds.cli", "completion thresholds (OEIS A374013): sweeps, "
                                                       "evidence, re-checks, the blocked-set search"),
    "peers": ("benchmarks.suites.peers.native", "side by side with native peers given by path, CPU-second "
                                                "ratios"),
    "compare": ("benchmarks.judging.compare", "two result files of a suite, before and after: ratios and "
                                              "regressions"),
    "certified": ("benchmarks.suites.micro.certified", "the cost of the guarantee on CSPLib prob079's "
                                                       "instances"),
    "counting": ("benchmarks.suites.micro.counting", "per-core counting speed against a C reference"),
    "lrat-scaling": ("benchmarks.suites.micro.lrat_scaling", "the LRAT check's seconds per byte on hostile "
                                                             "proofs"),
    "parallel": ("benchmarks.suites.micro.parallel", "the Executor seam's costs and cluster projections"),
    "residual-engine": ("benchmarks.suites.micro.residual_engine", "the residual engine on completion "
                                                                   "instances"),
}


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
    run.add_argument("--repeat", type=positive_int_arg, default=1, metavar="R",
                     help="run every configuration on every instance R times, each with a seed of its own "
                          "(default 1); a run whose CPU wait passes 10%% of its wall time is run again, at "
                          "most twice")
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
                          "each line pinned to a CPU of its own while CPUs are free")
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
    for name, (_module, what) in STUDIES.items():
        sub.add_parser(name, add_help=False, help=f"{what} (python -m benchmarks {name} --help)")
    return top


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] and argv[0] in STUDIES:
        module = importlib.import_module(STUDIES[argv[0]][0])
        return int(module.main(argv[1:]) or 0)
    args = parser().parse_args(argv)
    if args.command == "list":
        for name, suite in SUITES.items():
            print(f"{name:18} {suite['description']}")
        return 0
    if args.command == "check-generator":
        from benchmarks.suites.peers.generator_check import DEFAULT_SIZES, run, table

        if not args.generator.is_file():
            print(f"error: no such generator: {args.generator}", file=sys.stderr)
            return 2
        rows = run(args.generator, DEFAULT_SIZES, range(args.seeds))
        print(table(rows), end="")
        return 0 if all(not r["problems"] for r in rows) else 1
    if args.command == "analyze":
        from benchmarks.judging.summary import analyze

        missing = [str(p) for p in args.results if not p.exists()]
        if missing:
            print(f"error: no such results file: {', '.join(missing)}", file=sys.stderr)
            return 2
        try:
            written = analyze(args.results, args.outdir or args.results[0].parent, args.name)
        except (RecordError, Contradiction) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        for path in written:
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
    try:
        with executor_from_args(args) if parallel else contextlib.nullcontext() as executor:
            counts = run_suite(
                args.suite, suite, out, progress=not args.no_progress, resume=args.resume,
                warmup_timeout=args.warmup_timeout, keep_queens_max_n=args.keep_queens, timeout=args.timeout,
                max_n=args.max_n, solvers=args.solvers.split(",") if args.solvers else None,
                seeds=range(args.seeds) if args.seeds else None, family_params=family_params,
                executor=executor, repeat=args.repeat)
    except RecordError as exc:
        # The results file to resume from or append to holds a record nobody can trust.
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Prob079Error as exc:
        # The copy of CSPLib's Problems/prob079 given by --prob079 cannot give its instances.
        print(f"error: {exc}", file=sys.stderr)
        return 2
    summary = ", ".join(f"{status} {count}" for status, count in sorted(counts.items()))
    print(f"{out}: {summary or 'nothing to run'}")
    return 0
