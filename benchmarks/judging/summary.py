"""Tables of any suite's result files: a markdown table of every configuration, per suite and per family,
and the time-limit table; ``analyze`` writes them and the plots (``benchmarks.judging.plots``).

Correctness is the one judge's (``benchmarks.judging.truth``): a SAT answer is correct when its solution
was verified, an UNSAT only on an instance known UNSAT (brute force or a certificate nqcsp re-checked; a
claim nothing confirms is *unconfirmed*, counted neither correct nor wrong), a task when it matched its
independent reference. An incomplete solver *gave up on a solvable instance* when it answered UNKNOWN
or timed out there. Every run also says whether it kept its time limit (returned within max(10%, 0.5 s)
of it); a killed run did not, and the limits table shows the worst overshoot per configuration.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from benchmarks.harness.records import Record, read_records
from benchmarks.judging import plots
from benchmarks.judging.markdown import cell, code
from benchmarks.judging.truth import DECIDED, certified, instance_truth, verdict
from nqcsp.solvers.base import STAGE


def judge(records: list[Record]) -> list[Record]:
    """Each record with its ``verdict``, ``correct`` (True for correct, False for wrong, None otherwise),
    ``confirmed`` for an UNSAT (the truth is UNSAT) and ``solvable_given_up``."""
    truth = instance_truth(records)
    judged = []
    for r in records:
        known = truth[r["instance"]]
        out = {**r, "verdict": verdict(r, known)}
        out["correct"] = {"correct": True, "wrong": False}.get(out["verdict"])
        if r["status"] == "UNSAT":
            out["confirmed"] = known == "UNSAT"
        out["solvable_given_up"] = r["status"] not in DECIDED and known == "SAT"
        judged.append(out)
    return judged


def _fmt(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds:.3g}"


def summary_rows(records: list[Record]) -> list[dict[str, Any]]:
    by_config: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        by_config[r["config"]].append(r)
    rows = []
    for config, runs in sorted(by_config.items()):
        decided = [r for r in runs if r["status"] in DECIDED]
        times = [r["wall_s"] for r in decided]
        unsat = [r for r in decided if r["status"] == "UNSAT"]
        promised = [r for r in runs if "kept_limit" in r]
        # The worker's own peak, or its external solver's for the peers.
        rss = [max(r["peak_rss_mb"], r.get("child_peak_rss_mb") or 0) for r in runs
               if r.get("peak_rss_mb") is not None]
        rows.append({
            "config": config,
            "runs": len(runs),
            "SAT": sum(r["status"] == "SAT" for r in runs),
            "UNSAT": sum(r["status"] == "UNSAT" for r in runs),
            "UNKNOWN": sum(r["status"] == "UNKNOWN" for r in runs),
            "TIMEOUT": sum(r["status"] == "TIMEOUT" for r in runs),
            "other": sum(r["status"] not in (*DECIDED, "UNKNOWN", "TIMEOUT") for r in runs),
            "decided": len(decided),
            "correct": sum(r["correct"] is True for r in runs),
            "wrong": sum(r["correct"] is False for r in runs),
            "unsat_confirmed": f"{sum(bool(r.get('confirmed')) for r in unsat)}/{len(unsat)}",
            "certified": sum(certified(r) for r in unsat),
            "kept_limit": f"{sum(r['kept_limit'] for r in promised)}/{len(promised)}",
            "gave_up_solvable": sum(r["solvable_given_up"] for r in runs),
            "median_s": statistics.median(times) if times else None,
            "max_s": max(times) if times else None,
            "largest_n": max((r["n"] for r in decided), default=None),
            "peak_rss_mb": max(rss) if rss else None,
        })
    return rows


COLUMNS = [("config", "configuration"), ("runs", "runs"), ("SAT", "SAT"), ("UNSAT", "UNSAT"),
           ("UNKNOWN", "UNKNOWN"), ("TIMEOUT", "TIMEOUT"), ("other", "other"), ("decided", "decided"),
           ("correct", "correct"), ("wrong", "wrong"), ("unsat_confirmed", "UNSAT confirmed"),
           ("certified", "UNSAT certified"), ("kept_limit", "kept time limit"),
           ("gave_up_solvable", "gave up on solvable"), ("median_s", "median s"), ("max_s", "max s"),
           ("largest_n", "largest n decided"), ("peak_rss_mb", "peak RSS MiB")]


def markdown_table(rows: list[dict[str, Any]]) -> str:
    lines = ["| " + " | ".join(title for _, title in COLUMNS) + " |",
             "|" + "|".join(" --- " for _ in COLUMNS) + "|"]
    for row in rows:
        cells = []
        for key, _ in COLUMNS:
            value = row[key]
            if key in ("median_s", "max_s"):
                cells.append(_fmt(value))
            elif key == "peak_rss_mb":
                cells.append("-" if value is None else f"{value:.0f}")
            else:
                cells.append("-" if value is None else cell(value))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def limits_table(records: list[Record]) -> str:
    """Per configuration: how many runs kept the time-limit promise, and the worst overshoot (where)."""
    by_config: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        if "kept_limit" in r:
            by_config[r["config"]].append(r)
    lines = ["| configuration | runs | kept | broken | killed | worst overshoot s | worst run | "
             "median overshoot s |", "|" + " --- |" * 8]
    for config, runs in sorted(by_config.items()):
        worst = max(runs, key=lambda r: r["overshoot_s"])
        where = f"{cell(worst['instance'])} @ {worst['timeout']:g} s: {worst['status']}"
        stage = (worst.get("stats") or {}).get(STAGE)
        if stage:
            where += f" ({stage})"
        lines.append(f"| {cell(config)} | {len(runs)} | {sum(r['kept_limit'] for r in runs)} | "
                     f"{sum(not r['kept_limit'] for r in runs)} | "
                     f"{sum(r['status'] == 'TIMEOUT' for r in runs)} | "
                     f"{worst['overshoot_s']:+.3f} | {where} | "
                     f"{statistics.median(r['overshoot_s'] for r in runs):+.3f} |")
    return "\n".join(lines) + "\n"


def groups(records: list[Record], max_families: int = 4) -> dict[str, list[Record]]:
    """One table per suite; a completion suite with a few (n, m) families gets one table per family too."""
    out: dict[str, list[Record]] = defaultdict(list)
    families: dict[str, set[tuple[int, int]]] = defaultdict(set)
    for r in records:
        out[f"suite {r['suite']}"].append(r)
        if r["family"].startswith("completion"):
            families[r["suite"]].add((r["n"], r["m"]))
    for r in sorted(records, key=lambda r: (r["n"], r["m"])):
        if r["family"].startswith("completion") and len(families[r["suite"]]) <= max_families:
            out[f"suite {r['suite']}, n = {r['n']}, m = {r['m']}"].append(r)
    return dict(out)


def option_text(options: dict[str, Any]) -> str:
    """A configuration's options for a person: ``key=value`` pairs, values as Python writes them."""
    if not options:
        return "none (its defaults)"
    return ", ".join(code(f"{key}={value!r}") for key, value in sorted(options.items()))


def legend(records: list[Record]) -> str:
    """What each configuration name in the tables stands for: its solver and options, one row each, so
    the tables carry a name and never a dictionary of options."""
    configs: dict[str, tuple[str, dict[str, Any]]] = {}
    for r in records:
        configs.setdefault(r["config"], (r["solver"], r.get("options") or {}))
    lines = ["| configuration | solver | options |", "| --- | --- | --- |"]
    for name, (solver, options) in sorted(configs.items()):
        lines.append(f"| {cell(name)} | {code(solver)} | {option_text(options)} |")
    return "\n".join(lines) + "\n"


def report(records: list[Record]) -> str:
    first = records[0]
    dates = sorted(r["date"] for r in records)
    versions = ", ".join(f"{k} {v}" for k, v in first["versions"].items() if v)
    host = first["machine"]
    parts = [
        "# Benchmark results\n",
        f"- machine: {host.get('cpu')} ({host.get('cores')} cores, {host.get('mem_gb')} GB), "
        f"{host.get('platform')}",
        f"- dates: {dates[0]} .. {dates[-1]}",
        f"- versions: {versions}",
        f"- timeout per run: {sorted({r['timeout'] for r in records})} s; warm-up (numba compile) untimed",
        "- times are wall-clock seconds of `nqcsp.solve` (which verifies SAT answers) or of the external "
        "peer (model flattening or CNF writing included); medians over decided runs\n",
        "## Configurations\n",
        legend(records),
    ]
    judged = judge(records)
    for title, members in groups(judged).items():
        parts.append(f"## {title}\n")
        parts.append(markdown_table(summary_rows(members)))
    if any(r["suite"] == "limits" for r in records):
        parts.append("## Time-limit promise: worst overshoot per configuration\n")
        parts.append("Overshoot = wall time of the `nqcsp.solve` call - time limit; kept = within "
                     "max(10%, 0.5 s); killed = the runner ended the run at limit * 1.1 + 1 s.\n")
        parts.append(limits_table([r for r in records if r["suite"] == "limits"]))
    bad = [r for r in judged if r["correct"] is False]
    if bad:
        parts.append("## Wrong answers\n")
        parts.extend(f"- {cell(r['config'])} on {cell(r['instance'])}: {r['status']} "
                     f"{cell(r.get('error', ''))}" for r in bad)
    return "\n".join(parts) + "\n"


def analyze(paths: Iterable[Path], outdir: Path, name: str | None = None) -> list[Path]:
    """Write ``NAME.md`` and, when matplotlib is installed, ``NAME-*.png``; return the paths written."""
    paths = list(paths)
    records = read_records(paths)
    if not records:
        raise ValueError(f"no results in {', '.join(map(str, paths))}")
    stem = name or paths[0].stem
    outdir.mkdir(parents=True, exist_ok=True)
    table = outdir / f"{stem}.md"
    table.write_text(report(records))
    written = [table]
    try:
        plots.pyplot()
    except ImportError:
        print("note: matplotlib is not installed (pip install '.[bench]'); plots skipped")
        return written
    judged = judge(records)
    written.append(plots.plot_time_vs_n(judged, outdir / f"{stem}-time-vs-n.png"))
    written.append(plots.plot_cactus(judged, outdir / f"{stem}-cactus.png"))
    for draw, suffix in ((plots.plot_completion, "completion"), (plots.plot_outcomes, "outcomes"),
                         (plots.plot_phase, "phase")):
        drawn = draw(judged, outdir / f"{stem}-{suffix}.png")
        if drawn is not None:
            written.append(drawn)
    return written
