"""Analysis of result files: a markdown table of every configuration, and PNG plots (matplotlib, Agg).

Correctness is judged per instance, never from a solver's own word:
- a SAT answer is correct when the worker's independent ``nqcsp.verify`` accepted it;
- an instance is known solvable when any run found a verified solution, or brute force said so;
- an UNSAT answer is wrong on a known-solvable instance, and *confirmed* when brute force or another
  complete solver also answered UNSAT;
- an incomplete solver *gave up on a solvable instance* when it answered UNKNOWN or timed out there;
- an UNSAT is *certified* when nqcsp's own re-check accepted its certificate (``checked_by`` non-empty);
- a peer's SAT without a solution (shiftqueens) is correct when the instance is known solvable;
- a task (count, enumeration, batch) is correct when it matched its independent reference.

Every run also says whether it kept its time limit (returned within max(10%, 0.5 s) of it); a killed run
did not, and the limits table shows the worst overshoot per configuration.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from benchmarks.runner import read_results
from nqcsp.solvers.base import STAGE

DECIDED = ("SAT", "UNSAT", "DONE")
Record = dict[str, Any]


def instance_truth(records: list[Record]) -> dict[str, str | None]:
    """Per instance: "SAT" when a verified solution exists, "UNSAT" when brute force or a complete solver
    says so and no verified solution contradicts it, else None."""
    truth: dict[str, str | None] = {}
    for r in records:
        key = r["instance"]
        if r["status"] == "SAT" and r.get("verified") or r.get("expected") == "SAT":
            truth[key] = "SAT"
        elif truth.get(key) != "SAT" and (r.get("expected") == "UNSAT" or r["status"] == "UNSAT"):
            truth[key] = "UNSAT"
        else:
            truth.setdefault(key, None)
    return truth


def judge(records: list[Record]) -> list[Record]:
    """Each record with ``correct`` (True/False for decided runs, None otherwise) and ``confirmed``."""
    truth = instance_truth(records)
    unsat_by: dict[str, set[str]] = defaultdict(set)
    for r in records:
        if r["status"] == "UNSAT":
            unsat_by[r["instance"]].add(r["solver"])
    judged = []
    for r in records:
        out = dict(r)
        if r["status"] == "DONE":
            out["correct"] = r.get("verified")
        elif r["status"] == "SAT" and r.get("verified") is None and "verified" in r:
            out["correct"] = {"SAT": True, "UNSAT": False}.get(truth[r["instance"]])  # type: ignore[arg-type]
        elif r["status"] == "SAT":
            out["correct"] = bool(r.get("verified"))
        elif r["status"] == "UNSAT":
            out["correct"] = truth[r["instance"]] != "SAT" and r.get("expected") in (None, "UNSAT")
            out["confirmed"] = r.get("expected") == "UNSAT" or bool(unsat_by[r["instance"]] - {r["solver"]})
        elif r["status"] == "WRONG":
            out["correct"] = False
        else:
            out["correct"] = None
        out["solvable_given_up"] = r["status"] not in DECIDED and truth[r["instance"]] == "SAT"
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
                cells.append("-" if value is None else str(value))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def certified(record: Record) -> bool:
    """An UNSAT whose certificate nqcsp's own re-check accepted."""
    return record["status"] == "UNSAT" and bool((record.get("certificate") or {}).get("checked_by"))


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
        where = f"{worst['instance']} @ {worst['timeout']:g} s: {worst['status']}"
        stage = (worst.get("stats") or {}).get(STAGE)
        if stage:
            where += f" ({stage})"
        lines.append(f"| {config} | {len(runs)} | {sum(r['kept_limit'] for r in runs)} | "
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
    return ", ".join(f"`{key}={value!r}`" for key, value in sorted(options.items()))


def legend(records: list[Record]) -> str:
    """What each configuration name in the tables stands for: its solver and options, one row each, so
    the tables carry a name and never a dictionary of options."""
    configs: dict[str, tuple[str, dict[str, Any]]] = {}
    for r in records:
        configs.setdefault(r["config"], (r["solver"], r.get("options") or {}))
    lines = ["| configuration | solver | options |", "| --- | --- | --- |"]
    for name, (solver, options) in sorted(configs.items()):
        lines.append(f"| {name} | `{solver}` | {option_text(options)} |")
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
        parts.extend(f"- {r['config']} on {r['instance']}: {r['status']} {r.get('error', '')}" for r in bad)
    return "\n".join(parts) + "\n"


# ---------------------------------------------------------------- plots

def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(plt: Any, fig: Any, path: Path) -> Path:
    """Write and close a figure (every plot ends so); the figures are made with the constrained layout,
    which keeps legends outside the axes in the picture."""
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _figure(plt: Any, width: float = 9, height: float = 5, **grid: Any) -> tuple[Any, Any]:
    return plt.subplots(figsize=(width, height), layout="constrained", **grid)


def _legend(ax: Any, **where: Any) -> None:
    """The legend beside the axes, clear of the data (outside the plotting area, on the right)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small", **({"loc": "upper left", "bbox_to_anchor": (1.02, 1)} | where))


def _n_axis(ax: Any, ns: Iterable[int], label: str = "n (board size)") -> None:
    """An axis of board sizes with integer ticks: a linear axis when the sizes span less than 30 times
    (a log axis then shows ticks such as 2x10^0), else a log axis whose ticks read 10, 100, 1,000."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    values = sorted({int(n) for n in ns if n > 0})
    ax.set_xlabel(label)
    if not values or values[-1] < 30 * values[0]:
        ax.xaxis.set_major_locator(_integer_ticks())
        return
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(base=10))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{int(round(v)):,}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def _integer_ticks() -> Any:
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def _annotate(ax: Any, xlabel: str | None, ylabel: str, title: str) -> None:
    """Axis labels, title, a log-friendly grid and the legend: how every single-panel plot is dressed."""
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    _legend(ax)


def _suite(records: list[Record]) -> str:
    """The suite (or suites) the records come from, to title each plot apart from the other suites'."""
    return ", ".join(sorted({str(r.get("suite") or r["family"]) for r in records})) or "results"


def _undecided(record: Record) -> bool:
    return record["status"] not in DECIDED


def _wrong(record: Record) -> bool:
    return record["status"] in DECIDED and record.get("correct") is False


def plot_time_vs_n(records: list[Record], path: Path) -> Path:
    """Median time of the decided runs against n, one line per configuration; a size where some run of a
    configuration stayed undecided is marked x at the top, one where an answer was wrong a red triangle."""
    plt = _pyplot()
    fig, ax = _figure(plt)
    lines: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    undecided: dict[str, set[int]] = defaultdict(set)
    wrong: dict[str, set[int]] = defaultdict(set)
    for r in records:
        if r["n"] <= 0:
            continue
        if r["status"] in DECIDED and r.get("correct") is not False:
            lines[r["config"]][r["n"]].append(r["wall_s"])
        elif _undecided(r):
            undecided[r["config"]].add(r["n"])
        else:
            wrong[r["config"]].add(r["n"])
    top = max((max(r["timeout"], r["wall_s"]) for r in records), default=1.0)
    for config in sorted(set(lines) | set(undecided) | set(wrong)):
        points = lines.get(config, {})
        ns = sorted(points)
        line = ax.plot(ns, [statistics.median(points[n]) for n in ns], marker="o", ms=3, label=config)[0]
        if undecided.get(config):
            ax.scatter(sorted(undecided[config]), [top] * len(undecided[config]), marker="x", s=30,
                       color=line.get_color())
        if wrong.get(config):
            ax.scatter(sorted(wrong[config]), [top] * len(wrong[config]), marker="v", s=40, color="red")
    ax.set_yscale("log")
    _n_axis(ax, (r["n"] for r in records))
    marks = [what for what, shown in (("x at the top: undecided", any(undecided.values())),
                                      ("red triangle: wrong", any(wrong.values()))) if shown]
    _annotate(ax, None, "seconds, median of decided runs" + (f"\n({'; '.join(marks)})" if marks else ""),
              f"{_suite(records)}: time against n")
    return _save(plt, fig, path)


def plot_cactus(records: list[Record], path: Path) -> Path:
    plt = _pyplot()
    fig, ax = _figure(plt)
    by_config: dict[str, list[float]] = defaultdict(list)
    for r in records:
        if r["status"] in DECIDED and r.get("correct"):
            by_config[r["config"]].append(r["wall_s"])
    for config, times in sorted(by_config.items()):
        times.sort()
        ax.step(range(1, len(times) + 1), times, where="post", label=f"{config} ({len(times)})")
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(_integer_ticks())
    _annotate(ax, "instances decided correctly", "time limit needed (s)",
              f"{_suite(records)}: cactus plot (instances decided within a time limit)")
    return _save(plt, fig, path)


def plot_completion(records: list[Record], path: Path) -> Path | None:
    """Completion instances ordered by difficulty (the fastest correct decision on each), one series per
    configuration; runs that did not decide are drawn at their timeout with an x."""
    completion = [r for r in records if r["family"].startswith("completion")]
    if not completion:
        return None
    plt = _pyplot()
    fastest: dict[str, float] = {}
    for r in completion:
        if r["status"] in DECIDED and r.get("correct"):
            fastest[r["instance"]] = min(fastest.get(r["instance"], float("inf")), r["wall_s"])
    limit = max(r["timeout"] for r in completion)
    order = sorted({r["instance"] for r in completion}, key=lambda i: (fastest.get(i, 2 * limit), i))
    rank = {instance: k for k, instance in enumerate(order)}
    sizes = sorted({(r["n"], r["m"]) for r in completion})
    sweep = len(sizes) > 2
    # Two panels one above the other, each as wide as a single plot: readable when shrunk to a page.
    fig, axes = _figure(plt, 9, 9 if sweep else 5, nrows=2 if sweep else 1, squeeze=False)
    ax = axes[0][0]
    by_config: dict[str, list[Record]] = defaultdict(list)
    for r in completion:
        by_config[r["config"]].append(r)
    for config, runs in sorted(by_config.items()):
        ok = [r for r in runs if r["status"] in DECIDED and r.get("correct")]
        open_runs = [r for r in runs if _undecided(r)]
        wrong = [r for r in runs if _wrong(r)]
        line = ax.scatter([rank[r["instance"]] for r in ok], [r["wall_s"] for r in ok], s=10, label=config)
        ax.scatter([rank[r["instance"]] for r in open_runs], [r["timeout"] for r in open_runs], s=14,
                   marker="x", color=line.get_facecolor()[0])
        if wrong:
            ax.scatter([rank[r["instance"]] for r in wrong], [r["wall_s"] for r in wrong], s=40, marker="v",
                       color="red")
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(_integer_ticks())
    wrong_mark = "; red triangle: wrong" if any(_wrong(r) for r in completion) else ""
    _annotate(ax, "instance, easiest first (by the fastest correct answer)",
              f"wall-clock seconds (x: undecided at the timeout{wrong_mark})",
              f"{_suite(completion)}: completion instances by difficulty")
    if sweep:
        _plot_sweep(axes[1][0], completion, by_config)
    return _save(plt, fig, path)


def _plot_sweep(ax: Any, completion: list[Record], by_config: dict[str, list[Record]]) -> None:
    """Median time against m (penalising undecided runs with the timeout), and the solvable fraction."""
    for config, runs in sorted(by_config.items()):
        per_m: dict[int, list[float]] = defaultdict(list)
        for r in runs:
            decided = r["status"] in DECIDED and r.get("correct")
            per_m[r["m"]].append(r["wall_s"] if decided else r["timeout"])
        ms = sorted(per_m)
        ax.plot(ms, [statistics.median(per_m[m]) for m in ms], marker="o", ms=3, label=config)
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(_integer_ticks())
    ax.set_xlabel("m (mandatory queens)")
    ax.set_ylabel("median seconds (timeouts count as the timeout)")
    truth = instance_truth(completion)
    m_of = {r["instance"]: r["m"] for r in completion}
    solvable: dict[int, list[bool]] = defaultdict(list)
    for instance, status in truth.items():
        if status is not None:
            solvable[m_of[instance]].append(status == "SAT")
    twin = ax.twinx()
    ms = sorted(solvable)
    twin.plot(ms, [sum(v) / len(v) for v in (solvable[m] for m in ms)], "k--", label="fraction solvable")
    twin.set_ylim(0, 1.05)
    twin.set_ylabel("fraction solvable (decided instances)")
    ax.set_title(f"{_suite(completion)}: median time against m on n = {sorted({r['n'] for r in completion})}")
    lines, labels = ax.get_legend_handles_labels()
    more, more_labels = twin.get_legend_handles_labels()
    # Beside the axes, past the twin's labels: clear of the data.
    ax.legend(lines + more, labels + more_labels, fontsize="small", loc="upper left",
              bbox_to_anchor=(1.12, 1))


def plot_outcomes(records: list[Record], path: Path) -> Path | None:
    """Completion outcomes per configuration and (n, m): SAT (verified), UNSAT certified (re-checked),
    UNSAT claimed only, and undecided, as stacked bars."""
    completion = [r for r in records if r["family"].startswith("completion")]
    if not completion:
        return None
    plt = _pyplot()
    sizes = sorted({(r["n"], r["m"]) for r in completion})
    configs = sorted({r["config"] for r in completion})
    # At most 3 panels a row, each wide enough for its bar labels; the legend below them all.
    columns = min(3, len(sizes))
    rows = -(-len(sizes) // columns)
    fig, axes = _figure(plt, max(6.0, 3.6 * columns), 3.6 * rows + 0.8, nrows=rows, ncols=columns,
                        squeeze=False, sharey=True)
    # Undecided (no answer in time) and wrong (an answer that contradicts the truth) are told apart.
    kinds = [("SAT (verified)", "#2e7d32", lambda r: r["status"] == "SAT" and r.get("correct")),
             ("UNSAT certified", "#1565c0", lambda r: certified(r) and r.get("correct")),
             ("UNSAT claimed only", "#90caf9",
              lambda r: r["status"] == "UNSAT" and not certified(r) and r.get("correct")),
             ("undecided", "#bdbdbd", _undecided),
             ("wrong", "#d32f2f", _wrong)]
    for index, ax in enumerate(axes.flat):
        if index >= len(sizes):
            ax.set_visible(False)
            continue
        n, m = sizes[index]
        bottom = [0] * len(configs)
        here = [r for r in completion if (r["n"], r["m"]) == (n, m)]
        for label, colour, test in kinds:
            heights = [sum(bool(test(r)) for r in here if r["config"] == c) for c in configs]
            ax.bar(configs, heights, bottom=bottom, label=label, color=colour)
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        ax.set_title(f"n = {n}, m = {m} ({n - m} free rows)", fontsize="small")
        ax.tick_params(axis="x", labelrotation=60, labelsize="small")
        if index % columns == 0:
            ax.set_ylabel("instances")
    fig.suptitle(f"{_suite(completion)}: outcomes per backend")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=len(kinds), fontsize="small", frameon=False)
    return _save(plt, fig, path)


def plot_phase(records: list[Record], path: Path) -> Path | None:
    """The phase transition: fraction of instances solvable against n, one line per number of free rows
    n - m, with the peak n = 0.19 (n - m)^2 of Gent, Jefferson & Nightingale marked. Only instances that
    some run decided count."""
    completion = [r for r in records if r["family"].startswith("completion")]
    truth = instance_truth(completion)
    solvable: dict[int, dict[int, list[bool]]] = defaultdict(lambda: defaultdict(list))
    seen: set[str] = set()
    for r in completion:
        if r["instance"] in seen or truth.get(r["instance"]) is None:
            continue
        seen.add(r["instance"])
        solvable[r["n"] - r["m"]][r["n"]].append(truth[r["instance"]] == "SAT")
    if not any(len(by_n) > 1 for by_n in solvable.values()):
        return None
    plt = _pyplot()
    fig, ax = _figure(plt)
    for free, by_n in sorted(solvable.items()):
        ns = sorted(by_n)
        line = ax.plot(ns, [sum(by_n[n]) / len(by_n[n]) for n in ns], marker="o", ms=3,
                       label=f"{free} free rows")[0]
        ax.axvline(0.19 * free * free, color=line.get_color(), ls=":", lw=1)
    ax.set_ylim(-0.02, 1.02)
    _n_axis(ax, (n for by_n in solvable.values() for n in by_n),
            "n (board size); dotted: the peak n = 0.19 (n - m)^2")
    _annotate(ax, None, "fraction of instances with a completion",
              f"{_suite(completion)}: phase transition (fixed free rows n - m)")
    return _save(plt, fig, path)


def analyze(paths: Iterable[Path], outdir: Path, name: str | None = None) -> list[Path]:
    """Write ``NAME.md`` and, when matplotlib is installed, ``NAME-*.png``; return the paths written."""
    paths = list(paths)
    records = read_results(paths)
    if not records:
        raise ValueError(f"no results in {', '.join(map(str, paths))}")
    stem = name or paths[0].stem
    outdir.mkdir(parents=True, exist_ok=True)
    table = outdir / f"{stem}.md"
    table.write_text(report(records))
    written = [table]
    try:
        _pyplot()
    except ImportError:
        print("note: matplotlib is not installed (pip install '.[bench]'); plots skipped")
        return written
    judged = judge(records)
    written.append(plot_time_vs_n(judged, outdir / f"{stem}-time-vs-n.png"))
    written.append(plot_cactus(judged, outdir / f"{stem}-cactus.png"))
    completion = plot_completion(judged, outdir / f"{stem}-completion.png")
    if completion is not None:
        written.append(completion)
    outcomes = plot_outcomes(judged, outdir / f"{stem}-outcomes.png")
    if outcomes is not None:
        written.append(outcomes)
    phase = plot_phase(judged, outdir / f"{stem}-phase.png")
    if phase is not None:
        written.append(phase)
    return written
