"""The grid runner: solver configuration x instance x seed x time limit, each run in its own worker process.

A run's deadline starts when its worker reports READY (after the untimed warm-up). The solver is given
the timeout as its ``time_limit``; the runner kills the worker's whole process group (external peers
included) when ``timeout * 1.1 + 1`` seconds pass, and records the run as TIMEOUT. Every record says
whether the call kept its time limit (``kept_limit``: it returned within max(10%, 0.5 s) of it, the
promise of docs/contract.md) and by how much it overshot; a killed run broke the promise.

Results go to ``DIR/SUITE.jsonl`` under the directory the user names (default ``./bench-results``);
``benchmarks/results/`` holds the published tables and is written only when asked (``--publish``).
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Iterable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import nqcsp
from benchmarks.harness import instances as inst
from benchmarks.harness.cores import pinned_core
from benchmarks.harness.measure import RunMeasure
from benchmarks.harness.peers import PEERS
from benchmarks.harness.records import RecordError, read_records
from benchmarks.harness.worker import TASKS
from nqcsp.runtime.parallel import cpu_count
from nqcsp.runtime.warm_child import ChildCrashed, WarmChild

# The checkout's root: benchmarks/ is not installed with nqcsp, it runs from a checkout.
ROOT = Path(__file__).resolve().parents[2]
PUBLISHED_DIR = ROOT / "benchmarks" / "results"
DEFAULT_OUT = Path("bench-results")

# Statuses after which a solver is not given the next larger board of the same family.
GAVE_UP = {"TIMEOUT", "MEMOUT", "CRASH", "SKIPPED"}


@dataclass(frozen=True)
class Config:
    solver: str
    options: dict[str, Any] = field(default_factory=dict)
    label: str = ""
    max_n: int | None = None
    params: dict[str, Any] = field(default_factory=dict)
    # Time limits of its own, instead of the suite's (``--timeout`` still overrides both).
    time_limits: tuple[float, ...] = ()

    @property
    def name(self) -> str:
        if self.label:
            return self.label
        if not self.options:
            return self.solver
        return self.solver + "[" + ",".join(f"{k}={v}" for k, v in sorted(self.options.items())) + "]"


@dataclass(frozen=True)
class Job:
    config: Config
    instance: dict[str, Any]
    seed: int
    timeout: float
    # Which run of the same configuration on the same instance (``--repeat``), 0 for the first.
    repetition: int = 0

    def key(self) -> tuple[str, str, int, float, int]:
        return self.config.name, self.instance["id"], self.seed, self.timeout, self.repetition


def record_key(record: dict[str, Any]) -> tuple[str, str, int, float, int]:
    """A recorded run's ``Job.key``; a record without ``repetition`` is a first run (the only one, before
    repetitions were recorded). One without its seed cannot be matched to a job: RecordError."""
    if "seed" not in record:
        raise RecordError(f"{record['instance']}: a run of {record['config']} to resume from has no seed")
    return (record["config"], record["instance"], record["seed"], record["timeout"],
            record.get("repetition", 0))


# A run is disturbed when its threads waited for a CPU more than this share of its wall time while its
# process tree did not keep the CPUs it may use busy: the machine's other work, not the engine, made part
# of the figure. It is run again, at most MAX_RERUNS times.
DISTURBED_WAIT_SHARE = 0.1
MAX_RERUNS = 2


def disturbed(record: dict[str, Any], cpus: int | None = None) -> bool:
    """Whether other work took the run's CPUs. An engine with more busy threads than ``cpus`` (the CPUs
    it may use; default this machine's) waits for its own threads: backtrack's search and the check of its
    proof, pinned to one core, wait 40% of the wall time with the core busy all along. That is no
    disturbance, so a wait counts only when the tree's CPU time falls short of its CPUs' worth."""
    wait, wall, cpu = record.get("cpu_wait_s"), record.get("wall_s"), record.get("cpu_s")
    if wait is None or wall is None or wall <= 0 or wait <= DISTURBED_WAIT_SHARE * wall:
        return False
    usable = cpus if cpus is not None else cpu_count()
    return cpu is None or cpu < (1 - DISTURBED_WAIT_SHARE) * usable * wall


def as_config(entry: Any) -> Config:
    """A suite entry: a solver name, (name, options), (name, options, label) or a dict of Config's fields."""
    if isinstance(entry, Config):
        return entry
    if isinstance(entry, str):
        return Config(entry)
    if isinstance(entry, dict):
        unknown = set(entry) - {"solver", "options", "label", "max_n", "params", "time_limits"}
        if unknown or "solver" not in entry:
            raise ValueError(f"a configuration dict has solver, options, label, max_n, params, time_limits; "
                             f"got {entry!r}")
        return Config(entry["solver"], dict(entry.get("options") or {}), entry.get("label", ""),
                      entry.get("max_n"), dict(entry.get("params") or {}),
                      tuple(float(t) for t in entry.get("time_limits", ())))
    if isinstance(entry, (tuple, list)) and 1 <= len(entry) <= 3:
        return Config(entry[0], dict(entry[1]) if len(entry) > 1 else {}, entry[2] if len(entry) > 2 else "")
    raise ValueError(f"a configuration is a solver name or (name, options[, label]), got {entry!r}")


# ---------------------------------------------------------------- which solvers can run here

def solver_availability(name: str, complete_only: bool = False) -> tuple[bool, str]:
    """Whether ``name`` can run on this machine, and if not, the note saying why it is skipped."""
    if name in PEERS:
        return PEERS[name][0]()
    if name == "auto" or name in TASKS:
        return True, ""
    info = {i.name: i for i in nqcsp.available_solvers()}.get(name)
    if info is None:
        return False, f"solver {name!r} is not registered in this build of nqcsp"
    if not info.installed:
        return False, f"solver {name!r} is registered but its dependencies are not installed"
    if complete_only and not info.complete:
        return False, f"solver {name!r} is incomplete; this suite needs proofs"
    return True, ""


# ---------------------------------------------------------------- environment recorded with every run

def package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {"nqcsp": nqcsp.__version__, "python": platform.python_version()}
    for dist in ("numpy", "numba", "ortools", "python-sat"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
        versions["git"] = commit or None
    except (OSError, subprocess.SubprocessError):
        versions["git"] = None
    return versions


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {"cores": os.cpu_count(), "platform": platform.platform(),
                            "machine": platform.machine()}
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            info["cpu"] = next((line.split(":", 1)[1].strip() for line in cpuinfo
                                if line.startswith("model name")), None)
        with open("/proc/meminfo") as meminfo:
            info["mem_gb"] = round(int(meminfo.readline().split()[1]) / 2**20, 1)
    except OSError:
        pass
    return info


# ---------------------------------------------------------------- one run

def worker_env() -> dict[str, str]:
    env = dict(os.environ)
    # The worker must import this checkout's benchmarks and nqcsp, whatever the caller's directory.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def payload(job: Job, keep_queens_max_n: int) -> dict[str, Any]:
    return {"solver": job.config.solver, "options": job.config.options, "instance": job.instance,
            "seed": job.seed, "timeout": job.timeout, "keep_queens_max_n": keep_queens_max_n}


def start_worker() -> WarmChild:
    """A worker process (``benchmarks.harness.worker``) in a process group of its own, tied to this
    process's life by the runtime's one warm-child helper (``nqcsp.runtime.warm_child``)."""
    return WarmChild.start([sys.executable, "-m", "benchmarks.harness.worker"], name="benchmark worker",
                           env=worker_env(), cwd=str(ROOT))


def run_job(job: Job, *, warmup_timeout: float = 600.0, keep_queens_max_n: int = 200) -> dict[str, Any]:
    """Run one job in a fresh worker process and return what it reported (or TIMEOUT / CRASH), with
    whether it kept its time limit."""
    worker = start_worker()
    try:
        worker.send(payload(job, keep_queens_max_n))
        record, warmup = _read_reports(worker, job.timeout, warmup_timeout)
    except ChildCrashed as exc:
        record, warmup = exc.crash.record(), {}
    finally:
        # Whatever the worker left running in its group (a peer's own child) ends with the run.
        worker.close()
    record.update(warmup)
    record.update(promise(record, job.timeout))
    return record


class Session:
    """One worker for a line's jobs (a suite with ``"session": true``): warmed up once, each later job
    timed from when it is sent; a worker that was killed or crashed is replaced for the next job."""

    def __init__(self, warmup_timeout: float, keep_queens_max_n: int) -> None:
        self.warmup_timeout = warmup_timeout
        self.keep_queens_max_n = keep_queens_max_n
        self.worker: WarmChild | None = None
        # The jobs this worker has run (a try again of a disturbed run is the same job), and the last one.
        self.jobs = 0
        self.last: tuple[str, str, int, float, int] | None = None

    def run(self, job: Job) -> dict[str, Any]:
        fresh = self.worker is None or not self.worker.alive()
        if fresh:
            self.close()
            self.worker = start_worker()
            self.jobs = 0
            self.last = None
        assert self.worker is not None
        if job.key() != self.last:
            self.jobs += 1
            self.last = job.key()
        try:
            # A warm worker starts the run when the job arrives: the runner's own reading of it comes first.
            outside = None if fresh else RunMeasure(self.worker.pid).start()
            self.worker.send({**payload(job, self.keep_queens_max_n), "session": True})
            record, warmup = _read_reports(self.worker, job.timeout, self.warmup_timeout, outside)
        except ChildCrashed as exc:
            record, warmup = exc.crash.record(), {}
            self.close()
        if record["status"] in ("TIMEOUT", "ERROR"):
            self.close()
        record.update(warmup if fresh else {"warm_job": self.jobs})
        record.update(promise(record, job.timeout))
        return record

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None


def allowed_overshoot(time_limit: float) -> float:
    """The promise: a call returns within max(10%, 0.5 s) of its time limit."""
    return max(0.1 * time_limit, 0.5)


def promise(record: dict[str, Any], time_limit: float) -> dict[str, Any]:
    """Overshoot of the run's wall time past its limit, and whether the promise held; a run the runner
    killed (TIMEOUT) or that crashed never kept it."""
    wall = record.get("wall_s")
    if wall is None or record["status"] in ("SKIPPED", "ERROR"):
        return {}
    kept = record["status"] not in ("TIMEOUT", "CRASH", "MEMOUT") and \
        wall <= time_limit + allowed_overshoot(time_limit)
    return {"overshoot_s": wall - time_limit, "kept_limit": kept}


def _read_reports(worker: WarmChild, timeout: float, warmup_timeout: float,
                  outside: RunMeasure | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Read READY then RESULT, each against its own deadline; kill the worker when a deadline passes
    (ChildCrashed when it ends first). ``outside``: a session's worker that warmed up already, with the
    runner's reading of it taken before the job was sent; only RESULT comes, timed from now. A fresh
    worker's reading is taken at its READY. A killed run's record carries what the reading saw."""
    warmup: dict[str, Any] = {}
    ready_at: float | None = time.perf_counter() if outside is not None else None
    if ready_at is not None:
        deadline = ready_at + timeout * 1.1 + 1.0
    else:
        deadline = time.perf_counter() + warmup_timeout
    while True:
        line = worker.receive_line(deadline)
        if line is None:
            seen = outside.stop() if outside is not None else {}
            worker.kill()
            if ready_at is None:
                return {"status": "ERROR", "error": f"warm-up took more than {warmup_timeout} s"}, warmup
            return {"status": "TIMEOUT", "wall_s": time.perf_counter() - ready_at, **seen}, warmup
        tag, _, body = line.decode().partition(" ")
        if tag == "READY":
            warmup = json.loads(body)
            ready_at = time.perf_counter()
            # The run as the runner sees it, for a run killed at its deadline: it reports nothing itself.
            outside = RunMeasure(worker.pid).start()
            deadline = ready_at + timeout * 1.1 + 1.0
        elif tag == "RESULT":
            return json.loads(body), warmup


# ---------------------------------------------------------------- the grid

def suite_configs(suite: dict[str, Any]) -> list[Config]:
    entries = suite["configs"]
    return [as_config(entry) for entry in (entries() if callable(entries) else entries)]


def build_jobs(suite: dict[str, Any], *, timeout: float | None = None, max_n: int | None = None,
               solvers: Iterable[str] | None = None, seeds: Iterable[int] | None = None,
               family_params: dict[str, Any] | None = None, repeat: int = 1) -> tuple[list[Job], list[str]]:
    """The suite's jobs in run order (by configuration, then family, then n, then time limit, then
    repetition), and notes on skipped solvers. ``repeat`` runs each ``repeat`` times, repetition r of seed s
    with the seed ``s * repeat + r`` (a new seed for an engine that takes one; ``repeat=1`` keeps s)."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, not {repeat}")
    configs = suite_configs(suite)
    if solvers is not None:
        wanted = list(solvers)
        configs = [c for c in configs if c.solver in wanted or c.name in wanted]
        configs += [Config(name) for name in wanted if all(name not in (c.solver, c.name) for c in configs)]
    notes: list[str] = []
    runnable = []
    for config in configs:
        ok, why = solver_availability(config.solver, suite.get("complete_only", False))
        if ok:
            runnable.append(config)
        else:
            notes.append(f"skipped {config.name}: {why}")
    if timeout is not None:
        limits = [float(timeout)]
    else:
        limits = [float(t) for t in suite.get("time_limits", [suite.get("timeout", 60)])]
    generated: dict[str, list[dict[str, Any]]] = {}
    jobs = []
    for config in runnable:
        params = {**suite.get("params", {}), **config.params, **(family_params or {})}
        key = json.dumps(params, sort_keys=True, default=str)
        if key not in generated:
            made = inst.generate(suite["family"], params)
            generated[key] = sorted(made, key=lambda i: (i["family"], i["n"]))
        ceiling = min(x for x in (max_n, config.max_n, float("inf")) if x is not None)
        own = limits if timeout is not None or not config.time_limits else list(config.time_limits)
        chosen = seeds if seeds is not None else suite.get("seeds", [0])
        jobs += [Job(config, instance, seed * repeat + r, limit, r) for instance in generated[key]
                 if instance["n"] <= ceiling for seed in chosen for limit in own for r in range(repeat)]
    return jobs, notes


def gave_up(record: dict[str, Any]) -> bool:
    """Whether the run ran out of time or memory (an UNKNOWN at the time limit counts as running out)."""
    status = record["status"]
    return status in GAVE_UP or (status == "UNKNOWN" and record.get("wall_s", 0) >= 0.95 * record["timeout"])


def read_results(paths: Iterable[Path]) -> list[dict[str, Any]]:
    """The records of result files, read by the one strict reader (``benchmarks.harness.records``)."""
    return read_records(paths)


def cut_partial_line(path: Path) -> None:
    """A run killed while it wrote a record leaves a line without its newline: cut it off, so that the
    resumed run appends after the last whole record (the cut run runs again; nothing is recorded twice)."""
    with open(path, "rb+") as handle:
        data = handle.read()
        if data and not data.endswith(b"\n"):
            keep = data.rfind(b"\n") + 1
            handle.truncate(keep)
            print(f"note: {path}: cut a partial last line ({len(data) - keep} bytes) of a killed run",
                  file=sys.stderr)


def run_suite(name: str, suite: dict[str, Any], out: Path, *, progress: bool = True, resume: bool = False,
              warmup_timeout: float = 600.0, keep_queens_max_n: int = 200, executor: Executor | None = None,
              pin_cores: bool | None = None, **grid: Any) -> dict[str, int]:
    """Run every job of the suite, appending one JSON line per run to ``out``; return status counts.

    Without ``executor`` the lines run one after another in this process (the quiet way to time them);
    with one (``nqcsp.runtime.parallel``: a process pool or Dask) they run as parallel tasks, each on a
    CPU of its own (``pin_cores``, default: whenever there is an executor; ``benchmarks.harness.cores``)
    and each record says which (``core``).
    """
    pin = executor is not None if pin_cores is None else pin_cores
    jobs, notes = build_jobs(suite, **grid)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    if resume and out.exists():
        cut_partial_line(out)
    previous = [r for r in read_results([out]) if r["suite"] == name] if resume and out.exists() else []
    done = {record_key(r) for r in previous}
    context = {"suite": name, "versions": package_versions(), "machine": machine()}
    for peer, (available, version, _solve) in PEERS.items():
        if available()[0]:
            context["versions"][peer] = version()
    out.parent.mkdir(parents=True, exist_ok=True)
    stop_after = suite.get("stop_after_timeout", False)
    gave_up_at: dict[tuple[str, str], int] = {}
    for record in sorted(previous, key=lambda r: r["n"]):
        if gave_up(record):
            gave_up_at.setdefault((record["config"], record["family"]), record["n"])
    counts: dict[str, int] = {}
    bar = _progress(len(jobs), name, progress)
    # One task per line (a configuration on one instance family, boards in growing order): a line runs in
    # order so that it can stop after its first timeout; different lines may run in parallel.
    lines: dict[tuple[str, str], list[Job]] = {}
    for job in jobs:
        line_key = (job.config.name, job.instance["family"])
        beyond = stop_after and job.instance["n"] > gave_up_at.get(line_key, job.instance["n"])
        if job.key() in done or beyond:
            counts["skipped"] = counts.get("skipped", 0) + 1
            bar.update(1)
            continue
        lines.setdefault(line_key, []).append(job)
    tasks = [(line, stop_after, warmup_timeout, keep_queens_max_n, suite.get("session", False), pin)
             for line in lines.values()]
    if executor is None:
        outcomes = ((index, run_line(*task)) for index, task in enumerate(tasks))
    else:
        from nqcsp.runtime.parallel import run_tasks

        outcomes = run_tasks(run_line, tasks, executor=executor)
    with open(out, "a") as sink:
        for index, reports in outcomes:
            line = tasks[index][0]
            for job, report in reports:
                record = {**context, **describe(job), **report, "load": round(os.getloadavg()[0], 2),
                          "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
                sink.write(json.dumps(record) + "\n")
                sink.flush()
                status = record["status"]
                counts[status] = counts.get(status, 0) + 1
                bar.set_postfix_str(f"{job.config.name} n={job.instance['n']} {status}", refresh=False)
                bar.update(1)
            skipped = len(line) - len(reports)
            if skipped:
                counts["skipped"] = counts.get("skipped", 0) + skipped
                bar.update(skipped)
    bar.close()
    return counts


def run_line(line: list[Job], stop_after: bool, warmup_timeout: float, keep_queens_max_n: int,
             session: bool = False, pin: bool = False) -> list[tuple[Job, dict[str, Any]]]:
    """Run one line's jobs in order (boards growing); with ``stop_after``, none on a board larger than the
    first that ran out of time (the other instances of that size still run). With ``session``, in one
    worker (``Session``), else each in a fresh one; with ``pin``, on a CPU of its own."""
    with pinned_core() if pin else contextlib.nullcontext() as core:
        reports = _run_line(line, stop_after, warmup_timeout, keep_queens_max_n, session,
                            None if core is None else 1)
    if pin:
        reports = [(job, {**report, "core": core}) for job, report in reports]
    return reports


def _run_line(line: list[Job], stop_after: bool, warmup_timeout: float, keep_queens_max_n: int,
              session: bool, cpus: int | None) -> list[tuple[Job, dict[str, Any]]]:
    reports = []
    worker = Session(warmup_timeout, keep_queens_max_n) if session else None
    gave_up_at: int | None = None
    try:
        for job in line:
            if gave_up_at is not None and job.instance["n"] > gave_up_at:
                break
            report = _run_once(job, worker, warmup_timeout, keep_queens_max_n)
            reruns = 0
            while disturbed(report, cpus) and reruns < MAX_RERUNS:
                # A session's worker runs the next try warm: the warm-up it paid for stays on the record.
                warmed = {key: report[key] for key in ("warmup_s",) if key in report}
                report = {**warmed, **_run_once(job, worker, warmup_timeout, keep_queens_max_n)}
                reruns += 1
            if "cpu_wait_s" in report:
                report = {**report, "rerun": reruns, "disturbed": disturbed(report, cpus)}
            reports.append((job, report))
            if stop_after and gave_up_at is None and gave_up({**report, "timeout": job.timeout}):
                gave_up_at = job.instance["n"]
    finally:
        if worker is not None:
            worker.close()
    return reports


def _run_once(job: Job, worker: Session | None, warmup_timeout: float,
              keep_queens_max_n: int) -> dict[str, Any]:
    if worker is not None:
        return worker.run(job)
    return run_job(job, warmup_timeout=warmup_timeout, keep_queens_max_n=keep_queens_max_n)


def describe(job: Job) -> dict[str, Any]:
    i = job.instance
    return {"solver": job.config.solver, "config": job.config.name, "options": job.config.options,
            "instance": i["id"], "family": i["family"], "n": i["n"], "m": i["m"], "mandatory": i["queens"]
            if i["m"] <= 200 else None, "expected": i.get("expected"), "generator": i.get("generator"),
            "task": i.get("task", "solve"), "seed": job.seed, "repetition": job.repetition,
            "timeout": job.timeout}


class _NoBar:
    def update(self, _k: int) -> None: ...
    def set_postfix_str(self, _s: str, refresh: bool = True) -> None: ...
    def close(self) -> None: ...


def _progress(total: int, name: str, enabled: bool) -> Any:
    # A bar redrawn into a log file or a pipe is noise: only a terminal gets one.
    if not enabled or not sys.stderr.isatty():
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, desc=name, unit="run", dynamic_ncols=True)
