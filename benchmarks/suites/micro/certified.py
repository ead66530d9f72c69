"""The cost of the guarantee (issue 19): certified UNSAT against the uncertified decision, on CSPLib prob079's
excluded-diagonals instances converted to completion, and on two fixed random completions.

Run from the repository root: ``python -m benchmarks certified --prob079 DIR [--per-size 20]
[--sizes 10-21] [--below-n 2] [--time-limit 10]``. DIR is a copy of CSPLib's ``Problems/prob079`` (its
``data/diag-N.tar.gz`` and ``models/diagtoqueens.py``), taken by path: nothing of it is in this
repository. Each excluded-diagonals instance (board size s, its first ``s - below_n`` diagonals) is
converted by CSPLib's own ``diagtoqueens.py`` in a subprocess into a completion problem (N = 2,500 to
5,500, s free rows) and cached under ``--out``. Per instance, after a warm-up that loads every kernel:

- ``decide_s``: ``solve(..., solver="backtrack", proof=False)``, the uncertified decision;
- ``auto_s``: ``solve(..., solver="auto", time_limit=T)``, what a user gets: SAT verified, or UNSAT with a
  checked certificate (kind, proof bytes, check seconds), or UNKNOWN (counted, with its reason);
- for certified UNSAT, the ratio ``auto_s / (3 * decide_s + 0.2)`` (target <= 1), in wall and in CPU
  seconds of this process (the CPU figure is the one to trust on a shared machine).

Prints one line per instance and a summary (decided, certified, UNKNOWN, median and worst times, largest
proof, peak resident memory of this process) with the machine's load average, since it may be shared.

``--cake-lpr PATH`` (CakeML's verified LRAT checker, built from its public repository with ``gcc -O2
basis_ffi.c cake_lpr.S -o cake_lpr``; taken by path, nothing of it is in this repository) re-checks every
LRAT proof of the run twice more, after the timings above: by ``nqcsp.proof.audit`` (what ``nqcsp
check-proof`` runs: the statement read once and identified, the proof checked from scratch) and by
cake_lpr, and prints whether both accepted each and both checkers' times.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import statistics
import time
from collections.abc import Sequence

from benchmarks.harness.prob079 import instances
from nqcsp import Problem, random_completion, solve
from nqcsp.board.result import ProofFile
from nqcsp.proof.certify import STREAMED
from nqcsp.proof.outside import OutsideChecker, check_outside
from nqcsp.runtime.limits import Limits


def second_opinions(result, cake_lpr: OutsideChecker) -> dict:
    """The certificate's LRAT proof checked again from its evidence by nqcsp.proof.audit and by cake_lpr."""
    from nqcsp.proof.audit import audit, read_cnf

    details = result.certificate.details
    cnf, proof = details.get("cnf"), details.get("proof")
    if result.certificate.kind != "lrat" or not isinstance(cnf, bytes) or proof is None:
        return {}
    view = proof.view() if isinstance(proof, ProofFile) else proof
    limits = Limits.unlimited()
    started = time.perf_counter()
    found = audit(cnf, view, "lrat", limits=limits)
    nqcsp_s = time.perf_counter() - started
    verdict = check_outside(cake_lpr, read_cnf(cnf, limits), view, limits)
    return {"audit_proven": found.proven, "audit_s": round(nqcsp_s, 4), "cake_lpr_ok": verdict.ok,
            "cake_lpr_s": round(verdict.seconds, 4), **({} if verdict.ok else {"cake_lpr": verdict.reason})}


def measure(name: str, n: int, queens: list, time_limit: float,
            cake_lpr: OutsideChecker | None = None) -> dict:
    problem = Problem(n, queens)
    started, cpu = time.perf_counter(), time.process_time()
    decided = solve(problem, solver="backtrack", proof=False, time_limit=time_limit)
    decide_s, decide_cpu = time.perf_counter() - started, time.process_time() - cpu
    started, cpu = time.perf_counter(), time.process_time()
    result = solve(problem, time_limit=time_limit)
    auto_s, auto_cpu = time.perf_counter() - started, time.process_time() - cpu
    row = {"name": name, "n": n, "free": n - len(queens), "decided": decided.status.value,
           "decide_s": round(decide_s, 4), "decide_cpu": round(decide_cpu, 4), "status": result.status.value,
           "auto_s": round(auto_s, 4), "auto_cpu": round(auto_cpu, 4)}
    if result.certificate is not None:
        details = result.certificate.details
        streamed = details.get(STREAMED)
        if isinstance(streamed, dict):   # checked on a second thread while the search wrote it
            proof_bytes, check_s = int(streamed["proof_bytes"]), float(streamed["check_s"])
        else:
            proof = details.get("proof")
            proof_bytes = len(proof) if isinstance(proof, (bytes, ProofFile)) else 0
            check_s = float(details.get("check_s", 0.0))
        row.update(certificate=result.certificate.kind, checked=result.certificate.checked,
                   proof_bytes=proof_bytes, check_s=round(check_s, 4))
        if result.certificate.checked:
            row["ratio"] = round(auto_s / (3 * decide_s + 0.2), 3)
            row["cpu_ratio"] = round(auto_cpu / (3 * decide_cpu + 0.2), 3)
            if cake_lpr is not None:
                row.update(second_opinions(result, cake_lpr))
    if result.status.value == "UNKNOWN":
        row["reason"] = result.stats.get("reason")
    return row


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks certified",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--prob079", type=pathlib.Path, default=None,
                        help="a copy of CSPLib's Problems/prob079 (data/ and models/)")
    parser.add_argument("--sizes", default="10-21", help="excluded-diagonals board sizes, e.g. 10-21")
    parser.add_argument("--per-size", type=int, default=20, help="instances per size (first by name)")
    parser.add_argument("--below-n", type=int, default=2, help="diagonals excluded: size minus this")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per call")
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("bench-results"))
    parser.add_argument("--cake-lpr", default=None, metavar="PATH",
                        help="re-check every LRAT proof with cake_lpr (and nqcsp.proof.audit), both timed")
    args = parser.parse_args(argv)
    cake_lpr = None
    if args.cake_lpr is not None:
        from nqcsp.proof.outside import outside_checker

        cake_lpr = outside_checker(f"cake_lpr={args.cake_lpr}")
    low, high = (int(x) for x in args.sizes.split("-"))

    solve(8, [(0, 0), (1, 2)])   # loads the search, proof and checker kernels outside every timing
    solve(8, [(0, 0), (1, 2)], solver="backtrack", proof=False)
    rows = [measure(f"random_completion({n}, {m}, {seed})", n, random_completion(n, m, seed),
                    args.time_limit, cake_lpr) for n, m, seed in ((1000, 927, 1), (1000, 935, 7))]
    for row in rows:
        print(json.dumps(row), flush=True)
    if args.prob079 is not None:
        cache = args.out / f"prob079-{low}-{high}-{args.per_size}-{args.below_n}.jsonl"
        for item in instances(args.prob079, range(low, high + 1), args.per_size, args.below_n, cache):
            rows.append(measure(item["name"], item["n"], item["queens"], args.time_limit, cake_lpr))
            print(json.dumps(rows[-1]), flush=True)
    certified = [r for r in rows if r.get("checked")]
    unsat = [r for r in certified if r["status"] == "UNSAT"]
    times = [r["auto_s"] for r in rows]
    print(f"\n{len(rows)} instances, load average {os.getloadavg()[0]:.1f}: "
          f"{sum(r['status'] != 'UNKNOWN' for r in rows)} decided, "
          f"{sum(r['status'] == 'UNKNOWN' for r in rows)} UNKNOWN, "
          f"{len(unsat)} certified UNSAT, {sum(r['status'] == 'SAT' for r in rows)} SAT")
    print(f"auto: median {statistics.median(times):.3f} s, worst {max(times):.3f} s")
    cpu_times = [r["auto_cpu"] for r in rows]
    print(f"auto CPU: median {statistics.median(cpu_times):.3f} s, worst {max(cpu_times):.3f} s")
    if unsat:
        for key, unit in (("ratio", "wall"), ("cpu_ratio", "CPU")):
            worst = max(unsat, key=lambda r: r[key])
            median = round(statistics.median(r[key] for r in unsat), 3)
            print(f"certified UNSAT / (3 x decision + 0.2 s), {unit}: median {median}, worst {worst[key]} "
                  f"({worst['name']}: {worst['auto_s']} s vs {worst['decide_s']} s wall, "
                  f"{worst['auto_cpu']} s vs {worst['decide_cpu']} s CPU)")
        big = max(unsat, key=lambda r: r["proof_bytes"])
        print(f"largest proof {big['proof_bytes'] / 2**20:.1f} MiB ({big['name']}, "
              f"checked in {big['check_s']} s)")
    rechecked = [r for r in rows if "cake_lpr_ok" in r]
    if rechecked:
        both = sum(r["cake_lpr_ok"] and r["audit_proven"] for r in rechecked)
        print(f"second opinions: {len(rechecked)} LRAT proofs re-checked, {both} accepted by both nqcsp-lrat "
              f"(check-proof's audit) and cake_lpr, {sum(not r['cake_lpr_ok'] for r in rechecked)} rejected "
              f"by cake_lpr, {sum(not r['audit_proven'] for r in rechecked)} by the audit")
        for key in ("audit_s", "cake_lpr_s"):
            values = [r[key] for r in rechecked]
            print(f"  {key}: total {sum(values):.2f} s, median {statistics.median(values):.4f} s, "
                  f"worst {max(values):.3f} s")
        big = max(rechecked, key=lambda r: r["proof_bytes"])
        print(f"  largest proof {big['proof_bytes'] / 2**20:.1f} MiB ({big['name']}): nqcsp audit "
              f"{big['audit_s']} s, cake_lpr {big['cake_lpr_s']} s")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory of this process: {peak:.0f} MiB")


if __name__ == "__main__":
    raise SystemExit(main())
