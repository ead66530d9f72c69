"""Completion thresholds (OEIS A374013) from scratch, projections for larger boards, and the search for
blocked sets beyond the known terms.

    python -m benchmarks thresholds sweep [--from 4] [--to 16] [--jobs 1] [--check] [--search-first S]
    python -m benchmarks thresholds project --n 18 --k 4 [--sample 6]
    python -m benchmarks thresholds search [--n 21 22] [--queens 5] [--time-limit 60] [--jobs 2]
    python -m benchmarks thresholds evidence --from 4 --to 22 [--jobs 2] [--search-first 5] [--up-to K]
                                             [--checkpoint DIR] [--out benchmarks/results/thresholds]
    python -m benchmarks thresholds check [--from 4] [--to 26] [--jobs 2] [--cake-lpr PATH] [--dask]
    python -m benchmarks thresholds search-limit [--n 22] [--queens 5] [--limits 0.05 0.3 1 2] [--jobs 2]
    python -m benchmarks thresholds rows --n 24 --k 5 [--jobs 2] [--checkpoint FILE] [--batch 64]
    python -m benchmarks thresholds settle --evidence FILE --blocked R,C R,C ... [--out FILE]

``sweep`` runs ``nqcsp.completion_threshold(n)`` per n and prints a(n), the classes of every level, the
blocked set and its certificate, and the CPU seconds (user + sys of this process with ``--jobs 1``, where
every task runs here; with more jobs, wall seconds and the workers' summed task seconds). ``--check`` also
times ``check_threshold`` on the evidence. The OEIS terms are printed beside, as the oracle.

``project`` measures a random sample of the tasks of one level (n, k) on one core and projects the whole
level from the tasks' estimated sizes: CPU seconds = sum over tasks of (its estimated k-sets x the sample's
CPU seconds per estimated k-set); on W workers, the larger of that / W and the longest single task.

``search`` runs ``nqcsp.studies.blockade_search.search`` (one annealing chain per job) and prints what it
decided.

``evidence`` computes a(n) for each n with ``nqcsp.completion_threshold`` and writes its evidence as
``OUT/a<n>.json.xz`` (what ``nqcsp check-threshold`` reads) and what the run did as ``OUT/a<n>.run.json``
(times, witnesses per level, the search spent; not evidence). ``check`` re-checks every ``OUT/a<n>.json.xz``
in a fresh process each (``nqcsp check-threshold``, its wall seconds and peak memory measured from
outside), and prints the table: n, a(n), the blocked set, the sets of each level, the witnesses, the file's
size and SHA-256, and the re-check's time and memory, beside the published terms.

``search-limit`` times the command ``nqcsp blockades N --queens K --search --time-limit S --jobs J`` (wall;
best, median and worst of ``--repeat`` fresh processes) against the promise: S plus max(10% of S, 0.5 s)
plus the start-up of a trivial command (``nqcsp solve 4``, timed the same way).

``rows`` sweeps one level by row combinations (``nqcsp.studies.row_sweep``, resumable from ``--checkpoint``)
and prints its account and its throughput: the CPU seconds of this process and its workers (user + sys,
``getrusage``, the workers once the pool has ended) per set, beside the class sweep's projection for the
level (``project``) when one is known.

``settle`` makes a bound a(n) >= v exact, a(n) = v, with a blocked set of v + 1 queens found apart (by
``search``, say): the set is certified (``nqcsp.studies.threshold.settled_by``) and the evidence written
again, to ``--out`` (the same file by default). """

from __future__ import annotations

import argparse
import pathlib
import random
import time
from collections.abc import Sequence
from typing import Any

# The published terms (n = 4..20), printed as the oracle beside what is computed; never an input.
OEIS_A374013 = dict(zip(range(4, 21), (0, 1, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4), strict=True))


def sweep(first: int, last: int, jobs: int, check: bool, search_first: float) -> int:
    import nqcsp
    from nqcsp.runtime.parallel import InProcess, ProcessPool
    from nqcsp.studies.queen_sets import load_queen_set_kernels
    from nqcsp.studies.threshold import check_threshold

    load_queen_set_kernels()
    nqcsp.completion_threshold(5)          # every kernel and backend loaded before the clock starts
    where = "in this process" if jobs == 1 else f"{jobs} workers"
    print(f"completion thresholds n = {first}..{last}, {where}")
    print(f"{'n':>3} {'a(n)':>4} {'OEIS':>4}  {'classes per level k = 1, 2, ...':<34} {'stop level':<22} "
          f"{'cpu s':>7} {'wall s':>7}" + (f" {'check s':>7}" if check else "")
          + "  blocked set, certificate")
    total_cpu = total_wall = 0.0
    wrong = 0
    pool = InProcess() if jobs == 1 else ProcessPool(jobs)
    try:
        for n in range(first, last + 1):
            cpu0, wall0 = time.process_time(), time.perf_counter()
            found = nqcsp.completion_threshold(n, executor=pool, search_first=search_first)
            cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
            if jobs > 1:
                cpu = sum(level.seconds for level in found.levels)   # the workers' task seconds
            total_cpu += cpu
            total_wall += wall
            expected = OEIS_A374013.get(n)
            wrong += expected is not None and expected != found.value
            levels = ", ".join(str(level.classes) for level in found.levels[1:]) or "-"
            stop = found.blocked_level
            stopped = f"k={stop['k']}: search"
            if stop["found_by"] == "sweep":
                stopped = f"k={stop['k']}: {stop['tasks_done']}/{stop['tasks']} tasks"
            checked = ""
            if check:
                began = time.perf_counter()
                report = check_threshold(found.to_json())
                checked = f" {time.perf_counter() - began:>7.2f}" + ("" if report.ok else " INVALID")
                wrong += not report.ok
            queens = " ".join(f"{r},{c}" for r, c in found.blocked)
            summary = found.certificate.summary() if found.certificate is not None else "no blocked set"
            print(f"{n:>3} {found.value:>4} {expected if expected is not None else '-':>4}  {levels:<34} "
                  f"{stopped:<22} {cpu:>7.2f} {wall:>7.2f}{checked}  {queens}; {summary}", flush=True)
    finally:
        pool.shutdown(wait=True)
    print(f"total: {total_cpu:.1f} CPU s, {total_wall:.1f} s wall; {wrong} disagreements")
    return 1 if wrong else 0


def project(n: int, k: int, sample: int, workers: Sequence[int], seed: int) -> int:
    from nqcsp.studies.queen_sets import decide_task, load_queen_set_kernels, weighted_set_tasks

    load_queen_set_kernels()
    tasks = weighted_set_tasks(n, k)
    total_weight = sum(weight for weight, _ in tasks)
    chosen = random.Random(seed).sample(tasks, min(sample, len(tasks)))
    spent = weight_done = 0.0
    classes = blocked = 0
    print(f"n = {n}, k = {k}: {len(tasks)} tasks, {total_weight:.3g} k-sets estimated (an upper bound); "
          f"sampling {len(chosen)}")
    for weight, task in chosen:
        began = time.process_time()
        outcome = decide_task(task)
        seconds = time.process_time() - began
        spent += seconds
        weight_done += weight
        classes += outcome.classes
        blocked += len(outcome.blocked)
        print(f"  task {task.ident:<14} {weight:>12.3g} sets est. {outcome.classes:>9} classes "
              f"{len(outcome.blocked):>4} blocked {seconds:>7.2f} CPU s", flush=True)
    rate = spent / weight_done
    whole = rate * total_weight
    longest = rate * max(weight for weight, _ in tasks)
    print(f"sample: {spent:.2f} CPU s for {weight_done:.3g} sets est. ({rate * 1e6:.3f} CPU us per set); "
          f"{classes} classes, {blocked} blocked")
    print(f"projected whole level: {rate * 1e6:.3f} us x {total_weight:.3g} = {whole:.0f} CPU s "
          f"({whole / 3600:.2f} CPU h); classes about {classes / weight_done * total_weight:.3g}")
    for count in workers:
        print(f"  on {count:>4} workers: max({whole:.0f} / {count}, longest task {longest:.1f}) = "
              f"{max(whole / count, longest):.0f} s")
    return 0


def search(sizes: Sequence[int], queens: int, time_limit: float, jobs: int, seed: int) -> int:
    from nqcsp.runtime.parallel import InProcess, ProcessPool
    from nqcsp.studies.blockade_search import search as run_search
    from nqcsp.studies.blockade_search import search_blocks
    from nqcsp.studies.queen_sets import load_queen_set_kernels

    load_queen_set_kernels()
    for n in sizes:
        began = time.perf_counter()
        structured = search_blocks(n, queens, time_limit)     # every candidate, unless time runs out first
        wall = time.perf_counter() - began
        print(f"n = {n}, {queens} queens, structured (blocks, then compact windows): {structured.moves} "
              f"sets, {structured.decided} classes decided exactly in {wall:.1f} s: {structured.completable} "
              f"completable, {len(structured.blocked)} blocked, {len(structured.undecided)} undecided",
              flush=True)
        pool = InProcess() if jobs == 1 else ProcessPool(jobs)
        try:
            began = time.perf_counter()
            report = run_search(n, queens, time_limit, seed=seed, chains=jobs, executor=pool)
            wall = time.perf_counter() - began
        finally:
            pool.shutdown(wait=True)
        report.merge(structured)
        print(f"n = {n}, {queens} queens, annealing: {report.chains - 1} chains x {time_limit:.0f} s "
              f"({wall:.1f} s wall), with the structured ones: "
              f"{report.moves} moves, {report.restarts} restarts, {report.decided} classes decided exactly "
              f"({report.decided / max(wall, 1e-9):.0f}/s): {report.completable} completable, "
              f"{len(report.blocked)} blocked, {len(report.undecided)} undecided", flush=True)
        for blocked in report.blocked:
            queens_text = " ".join(f"{r},{c}" for r, c in blocked.queens)
            checked = ", ".join(blocked.certificate.get("checked_by", []))
            print(f"  blocked {queens_text}: {blocked.certificate.get('kind')} checked by {checked}")
    return 0


OUT = "benchmarks/results/thresholds"
PROGRESS_S = 60.0


def evidence(first: int, last: int, jobs: int, search_first: float, up_to: int | None,
             checkpoint: str | None, out: str, engine: str = "classes", derived: bool = False) -> int:
    import json

    import nqcsp
    from nqcsp.runtime.parallel import InProcess, ProcessPool
    from nqcsp.studies.evidence import write_evidence
    from nqcsp.studies.queen_sets import load_queen_set_kernels

    load_queen_set_kernels()
    folder = pathlib.Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    shown = [time.perf_counter()]

    def progress(k: int, account: Any) -> None:
        """A line every PROGRESS_S seconds: a long level's log says how far it got."""
        if time.perf_counter() - shown[0] < PROGRESS_S:
            return
        shown[0] = time.perf_counter()
        witnesses = getattr(account, "witness_count", None)
        print(f"  {time.strftime('%H:%M:%S')} k = {k}: {account.tasks_done}/{account.tasks} tasks, "
              f"{account.ksets if hasattr(account, 'ksets') else account.sets} sets"
              + ("" if witnesses is None else f", {witnesses} witnesses"), flush=True)

    for n in range(first, last + 1):
        pool = InProcess() if jobs == 1 else ProcessPool(jobs)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        try:
            where = None if checkpoint is None else str(pathlib.Path(checkpoint) / f"n{n}")
            found = nqcsp.completion_threshold(n, executor=pool, search_first=search_first, up_to=up_to,
                                               checkpoint_dir=where, engine=engine, progress=progress,
                                               derived=derived)
        finally:
            pool.shutdown(wait=True)
        wall = time.perf_counter() - wall0
        write_evidence(found.evidence(), folder / f"a{n}.json.xz")
        run = {**found.run_json(), "wall_s": round(wall, 2), "jobs": jobs, "search_first": search_first,
               "up_to": up_to, "engine": engine, "derived": derived,
               "parent_cpu_s": round(time.process_time() - cpu0, 2),
               # The tasks' own elapsed seconds, summed over the workers (not CPU: a worker that waits for a
               # core counts its wait); the CPU seconds are /usr/bin/time's, measured from outside.
               "task_s": round(sum(level.seconds for level in found.levels), 2)}
        (folder / f"a{n}.run.json").write_text(json.dumps(run, indent=1) + "\n")
        print(f"{found.evidence().claim}: {found.witness_count} witnesses, {wall:.1f} s wall, "
              f"{run['task_s']} task s (summed over the workers)", flush=True)
    return 0


def check(first: int, last: int, jobs: int, out: str, cake_lpr: str | None, dask: bool) -> int:
    import hashlib
    import subprocess
    import sys

    from nqcsp.studies.evidence import read_evidence

    folder = pathlib.Path(out)
    wrong = 0
    print(f"{'n':>3} {'a(n)':>6} {'OEIS':>4}  {'blocked set':<32} {'sets per level k = 1, 2, ...':<52} "
          f"{'witnesses':>9} {'file KB':>8} {'sha256':<16} {'check s':>8} {'peak MB':>8}")
    for n in range(first, last + 1):
        path = folder / f"a{n}.json.xz"
        if not path.exists():
            continue
        data = path.read_bytes()
        command = [sys.executable, "-m", "nqcsp", "check-threshold", str(path), "--jobs", str(jobs)]
        if dask:
            command.append("--dask")
        if cake_lpr:
            command += ["--checker", f"cake_lpr={cake_lpr}"]
        began = time.perf_counter()
        # /usr/bin/time -f %M: the peak resident memory of the command and the workers it waited for.
        done = subprocess.run(["/usr/bin/time", "-f", "%M", *command], capture_output=True, text=True)
        seconds = time.perf_counter() - began
        said = done.stderr.strip().splitlines()
        peak = int(said[-1]) / 1024 if said and said[-1].isdigit() else float("nan")
        evidence = read_evidence(data)
        expected = OEIS_A374013.get(n)
        good = done.returncode == 0 and (expected is None or (evidence.exact and expected == evidence.value))
        wrong += not good
        queens = " ".join(f"{r},{c}" for r, c in evidence.blocked) or "none known"
        sets = ", ".join(f"{count:,}" for count in evidence.levels[1:])
        claim = ("= " if evidence.exact else ">=") + str(evidence.value)
        digest = hashlib.sha256(data).hexdigest()[:16]
        print(f"{n:>3} {claim:>6} {expected if expected is not None else '-':>4}  {queens:<32} {sets:<52} "
              f"{evidence.witness_count:>9} {len(data) / 1024:>8.0f} {digest} {seconds:>8.1f} {peak:>8.0f}"
              + ("" if good else "  INVALID"), flush=True)
        if not good:
            print(done.stdout[-2000:], done.stderr[-2000:])
    print(f"{wrong} invalid or disagreeing")
    return 1 if wrong else 0
def _wall(command: Sequence[str], repeat: int) -> list[float]:
    import subprocess
    import sys

    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "nqcsp", *command], capture_output=True, check=False)
        times.append(time.perf_counter() - began)
    return sorted(times)


def search_limit(n: int, queens: int, limits: Sequence[float], jobs: int, repeat: int) -> int:
    import os

    startup = _wall(["solve", "4", "--format", "columns"], repeat)
    print(f"start-up of a trivial command (nqcsp solve 4): best {startup[0]:.2f} s, median "
          f"{startup[len(startup) // 2]:.2f} s; load {os.getloadavg()[0]:.1f}")
    print(f"{'limit s':>8} {'best s':>7} {'median s':>8} {'worst s':>7} {'allowed s':>9}  command")
    late = 0
    for limit in limits:
        command = ["blockades", str(n), "--queens", str(queens), "--search", "--time-limit", str(limit),
                   "--jobs", str(jobs), "--format", "json"]
        times = _wall(command, repeat)
        allowed = limit + max(0.1 * limit, 0.5) + startup[len(startup) // 2]
        median = times[len(times) // 2]
        late += median > allowed
        print(f"{limit:>8g} {times[0]:>7.2f} {median:>8.2f} {times[-1]:>7.2f} {allowed:>9.2f}  "
              f"nqcsp {' '.join(command)}")
    return 1 if late else 0


# The class sweep's projections (``project --n N --k K --sample 4``, thresholds.md): CPU s for the level.
CLASS_SWEEP_PROJECTION_S = {(24, 5): 30344.0}


def rows(n: int, k: int, jobs: int, checkpoint: str | None, batch: int, seed: int) -> int:
    from nqcsp.runtime.parallel import InProcess, ProcessPool
    from nqcsp.studies.row_sweep import iter_row_sweep

    began, cpu0 = time.perf_counter(), _cpu()
    shown = began
    pool = InProcess() if jobs == 1 else ProcessPool(jobs)
    account = None
    try:
        for account in iter_row_sweep(n, k, executor=pool, checkpoint=checkpoint, batch=batch, seed=seed,
                                      stop_at_blocked=True):
            if time.perf_counter() - shown >= PROGRESS_S:
                shown = time.perf_counter()
                print(f"  {time.strftime('%H:%M:%S')} {account.tasks_done}/{account.tasks} tasks, "
                      f"{account.sets} sets, {account.witness_count} witnesses", flush=True)
    finally:
        pool.shutdown(wait=True)
    wall, spent = time.perf_counter() - began, _cpu() - cpu0
    assert account is not None
    print(f"n = {n}, k = {k} by rows: {account.sets} sets on {account.combos} row combinations and their "
          f"mirrors ({account.resumed} of {account.tasks} tasks resumed): {account.covered} covered by "
          f"witnesses, {account.found} by new ones of the randomised search, {account.searched} by the "
          f"residual engine, {account.blocked_sets} blocked ({len(account.blocked)} classes); "
          f"{account.witness_count} witnesses ({account.initial} given, {account.random} random)")
    for blocked in account.blocked:
        print(f"  blocked {' '.join(f'{r},{c}' for r, c in blocked.queens)}: "
              f"{blocked.certificate.get('kind')} checked by {', '.join(blocked.certificate['checked_by'])}")
    print(f"this run: {wall:.1f} s wall, {spent:.1f} CPU s (this process and its workers), "
          f"{spent / max(account.sets, 1) * 1e6:.4f} CPU us per set; the tasks' own CPU s, resumed ones "
          f"included: {account.cpu_seconds:.1f} ({account.cpu_seconds / max(account.sets, 1) * 1e6:.4f} us "
          "per set)")
    projected = CLASS_SWEEP_PROJECTION_S.get((n, k))
    if projected is not None:
        print(f"the class sweep's projection for this level: {projected:.0f} CPU s, "
              f"{projected / max(spent, account.cpu_seconds, 1e-9):.1f} times this run's")
    return 0 if account.finished or account.blocked else 1


def settle(path: str, blocked: Sequence[str], out: str | None) -> int:
    from nqcsp.studies.evidence import read_evidence, write_evidence
    from nqcsp.studies.threshold import settled_by

    queens = tuple((int(row), int(col)) for row, col in (cell.split(",") for cell in blocked))
    began = time.perf_counter()
    evidence = settled_by(read_evidence(pathlib.Path(path).read_bytes()), queens)
    assert evidence.certificate is not None
    print(f"{evidence.claim}: {len(queens)} queens {' '.join(blocked)} certified blocked "
          f"({evidence.certificate.summary()}) in {time.perf_counter() - began:.1f} s")
    write_evidence(evidence, out or path)
    return 0


def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended (a pool once shut down)."""
    import resource

    return sum(getattr(resource.getrusage(who), field) for who in (resource.RUSAGE_SELF,
                                                                   resource.RUSAGE_CHILDREN)
               for field in ("ru_utime", "ru_stime"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks thresholds",
                                     description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def first_last(command: argparse.ArgumentParser, last: int) -> None:
        command.add_argument("--from", dest="first", type=int, default=4, metavar="N",
                             help="the first board size (default 4)")
        command.add_argument("--to", dest="last", type=int, default=last, metavar="N",
                             help=f"the last board size (default {last})")

    def jobs(command: argparse.ArgumentParser, default: int) -> None:
        command.add_argument("--jobs", type=int, default=default,
                             help=f"worker processes (default {default})")

    sweep_cmd = sub.add_parser("sweep", help="a(n) from scratch per n, with the OEIS terms beside")
    first_last(sweep_cmd, 16)
    jobs(sweep_cmd, 1)
    sweep_cmd.add_argument("--check", action="store_true", help="also time check_threshold on the evidence")
    sweep_cmd.add_argument("--search-first", type=float, default=0.0, metavar="S",
                           help="seconds of blocked-set search before each level (default 0)")
    project_cmd = sub.add_parser("project", help="project one level (n, k) from a sample of its tasks")
    project_cmd.add_argument("--n", type=int, required=True, help="the board size")
    project_cmd.add_argument("--k", type=int, required=True, help="the level: sets of k queens")
    project_cmd.add_argument("--sample", type=int, default=6, help="tasks measured (default 6)")
    project_cmd.add_argument("--workers", type=int, nargs="+", default=[2, 16, 64],
                             help="worker counts to project the wall time onto (default 2 16 64)")
    project_cmd.add_argument("--seed", type=int, default=0, help="which tasks are sampled (default 0)")
    search_cmd = sub.add_parser("search", help="the structured and annealing search for blocked sets")
    search_cmd.add_argument("--n", type=int, nargs="+", default=[21, 22], help="board sizes (default 21 22)")
    search_cmd.add_argument("--queens", type=int, default=5, help="queens in a set (default 5)")
    search_cmd.add_argument("--time-limit", type=float, default=60.0, help="seconds per board (default 60)")
    jobs(search_cmd, 2)
    search_cmd.add_argument("--seed", type=int, default=0, help="the search's seed (default 0)")
    evidence_cmd = sub.add_parser("evidence", help="compute a(n) and write its evidence file per n")
    first_last(evidence_cmd, 16)
    jobs(evidence_cmd, 2)
    evidence_cmd.add_argument("--search-first", type=float, default=5.0, metavar="S",
                              help="seconds of blocked-set search before each level (default 5)")
    evidence_cmd.add_argument("--up-to", type=int, default=None, metavar="K",
                              help="sweep levels up to K only (a lower bound when none blocks)")
    evidence_cmd.add_argument("--checkpoint", default=None, metavar="DIR",
                              help="resumable checkpoints here (a killed run goes on from them)")
    evidence_cmd.add_argument("--out", default=OUT, metavar="DIR",
                              help=f"where evidence goes (default {OUT})")
    evidence_cmd.add_argument("--engine", choices=("classes", "rows"), default="classes",
                              help="sweep by classes of k-sets or by row combinations (default classes)")
    evidence_cmd.add_argument("--derived", action="store_true",
                              help="with --engine rows: store the witnesses the sweep finds as the positions "
                                   "of their sets, derived again by the check (evidence version 3)")
    check_cmd = sub.add_parser("check", help="re-check published evidence files, a table row per n")
    first_last(check_cmd, 40)
    jobs(check_cmd, 2)
    check_cmd.add_argument("--out", default=OUT, metavar="DIR", help=f"where evidence is (default {OUT})")
    check_cmd.add_argument("--cake-lpr", default=None, metavar="PATH",
                           help="CakeML's verified LRAT checker, a second opinion on each blocked set")
    check_cmd.add_argument("--dask", action="store_true", help="on a local Dask cluster")
    limit_cmd = sub.add_parser("search-limit", help="how often the search finds a blocked set per time limit")
    limit_cmd.add_argument("--n", type=int, default=22, help="the board size (default 22)")
    limit_cmd.add_argument("--queens", type=int, default=5, help="queens in a set (default 5)")
    limit_cmd.add_argument("--limits", type=float, nargs="+", default=[0.05, 0.3, 1.0, 2.0],
                           help="time limits tried, seconds (default 0.05 0.3 1 2)")
    jobs(limit_cmd, 2)
    limit_cmd.add_argument("--repeat", type=int, default=5, help="runs per limit (default 5)")
    rows_cmd = sub.add_parser("rows", help="sweep one level by row combinations, with its throughput")
    rows_cmd.add_argument("--n", type=int, required=True, help="the board size")
    rows_cmd.add_argument("--k", type=int, required=True, help="the level: sets of k queens")
    jobs(rows_cmd, 2)
    rows_cmd.add_argument("--checkpoint", default=None, metavar="FILE", help="resumable checkpoint file")
    rows_cmd.add_argument("--batch", type=int, default=64, help="row combinations per task (default 64)")
    rows_cmd.add_argument("--seed", type=int, default=0, help="the completion search's seed (default 0)")
    settle_cmd = sub.add_parser("settle", help="make a bound exact with a blocked set found apart")
    settle_cmd.add_argument("--evidence", required=True, metavar="FILE",
                            help="the evidence file of the bound")
    settle_cmd.add_argument("--blocked", nargs="+", required=True, metavar="R,C",
                            help="the blocked set's queens, row,col each")
    settle_cmd.add_argument("--out", default=None, metavar="FILE",
                            help="where to write (default: --evidence)")
    args = parser.parse_args(argv)
    if args.command == "settle":
        return settle(args.evidence, args.blocked, args.out)
    if args.command == "rows":
        return rows(args.n, args.k, args.jobs, args.checkpoint, args.batch, args.seed)
    if args.command == "evidence":
        return evidence(args.first, args.last, args.jobs, args.search_first, args.up_to, args.checkpoint,
                        args.out, args.engine, args.derived)
    if args.command == "check":
        return check(args.first, args.last, args.jobs, args.out, args.cake_lpr, args.dask)
    if args.command == "search-limit":
        return search_limit(args.n, args.queens, args.limits, args.jobs, args.repeat)
    if args.command == "sweep":
        return sweep(args.first, args.last, args.jobs, args.check, args.search_first)
    if args.command == "project":
        return project(args.n, args.k, args.sample, args.workers, args.seed)
    return search(args.n, args.queens, args.time_limit, args.jobs, args.seed)


if __name__ == "__main__":
    raise SystemExit(main())
