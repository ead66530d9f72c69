"""Plots of judged records (matplotlib, Agg), for every suite: time against n, cactus plots, the
completion plots and the phase transition for the grid suites, and the field's cactus and scatter plots,
each engine told apart by colour, marker and line style together (17 engines share no look).

Every plot reads judged records (``benchmarks.judging.summary.judge``) or a ``Board``
(``benchmarks.judging.scores``); none judges anything itself.
"""

from __future__ import annotations

import io
import statistics
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from benchmarks.harness.records import Record
from benchmarks.judging.scores import Board, families, family_instances, vbs_times
from benchmarks.judging.truth import DECIDED, certified, instance_truth

# Distinct looks for many series: 10 colours (colour-blind safe, Okabe-Ito and tab10) crossed with markers
# and line styles, taken in an order that changes all three from one series to the next.
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000", "#8C564B",
           "#F0E442", "#7F7F7F")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
LINESTYLES = ("-", "--", "-.", ":")


def styles(names: Iterable[str]) -> dict[str, dict[str, Any]]:
    """A look per name (colour, marker, line style), no two alike for up to 40 names."""
    kinds = len(COLOURS) * len(LINESTYLES)
    # The k-th look: colour k mod 10, line style k div 10, the marker shifted by one for each line style.
    return {name: {"color": COLOURS[k % len(COLOURS)],
                   "marker": MARKERS[(k % len(COLOURS) + k // len(COLOURS)) % len(MARKERS)],
                   "linestyle": LINESTYLES[k // len(COLOURS) % len(LINESTYLES)]}
            for k, name in ((i % kinds, name) for i, name in enumerate(names))}


def pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def png(fig: Any) -> bytes:
    """The figure as PNG bytes, closed."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    pyplot().close(fig)
    return buffer.getvalue()


def save(plt: Any, fig: Any, path: Path) -> Path:
    """Write and close a figure (every plot ends so); the figures are made with the constrained layout,
    which keeps legends outside the axes in the picture."""
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def figure(plt: Any, width: float = 9, height: float = 5, **grid: Any) -> tuple[Any, Any]:
    return plt.subplots(figsize=(width, height), layout="constrained", **grid)


def legend(ax: Any, **where: Any) -> None:
    """The legend beside the axes, clear of the data (outside the plotting area, on the right)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small", **({"loc": "upper left", "bbox_to_anchor": (1.02, 1)} | where))


def n_axis(ax: Any, ns: Iterable[int], label: str = "n (board size)") -> None:
    """An axis of board sizes with integer ticks: a linear axis when the sizes span less than 30 times
    (a log axis then shows ticks such as 2x10^0), else a log axis whose ticks read 10, 100, 1,000."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    values = sorted({int(n) for n in ns if n > 0})
    ax.set_xlabel(label)
    if not values or values[-1] < 30 * values[0]:
        ax.xaxis.set_major_locator(integer_ticks())
        return
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(base=10))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{int(round(v)):,}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def integer_ticks() -> Any:
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def annotate(ax: Any, xlabel: str | None, ylabel: str, title: str) -> None:
    """Axis labels, title, a log-friendly grid and the legend: how every single-panel plot is dressed."""
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    legend(ax)


def _suite(records: list[Record]) -> str:
    """The suite (or suites) the records come from, to title each plot apart from the other suites'."""
    return ", ".join(sorted({str(r.get("suite") or r["family"]) for r in records})) or "results"


def _undecided(record: Record) -> bool:
    return record["status"] not in DECIDED or record.get("verdict") == "unconfirmed"


def _wrong(record: Record) -> bool:
    return record["status"] in DECIDED and record.get("correct") is False


def plot_time_vs_n(records: list[Record], path: Path) -> Path:
    """Median time of the decided runs against n, one line per configuration; a size where some run of a
    configuration stayed undecided is marked x at the top, one where an answer was wrong a red triangle."""
    plt = pyplot()
    fig, ax = figure(plt)
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
    n_axis(ax, (r["n"] for r in records))
    marks = [what for what, shown in (("x at the top: undecided", any(undecided.values())),
                                      ("red triangle: wrong", any(wrong.values()))) if shown]
    annotate(ax, None, "seconds, median of decided runs" + (f"\n({'; '.join(marks)})" if marks else ""),
              f"{_suite(records)}: time against n")
    return save(plt, fig, path)


def plot_cactus(records: list[Record], path: Path) -> Path:
    plt = pyplot()
    fig, ax = figure(plt)
    by_config: dict[str, list[float]] = defaultdict(list)
    for r in records:
        if r["status"] in DECIDED and r.get("correct"):
            by_config[r["config"]].append(r["wall_s"])
    for config, times in sorted(by_config.items()):
        times.sort()
        ax.step(range(1, len(times) + 1), times, where="post", label=f"{config} ({len(times)})")
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(integer_ticks())
    annotate(ax, "instances decided correctly", "time limit needed (s)",
              f"{_suite(records)}: cactus plot (instances decided within a time limit)")
    return save(plt, fig, path)


def plot_completion(records: list[Record], path: Path) -> Path | None:
    """Completion instances ordered by difficulty (the fastest correct decision on each), one series per
    configuration; runs that did not decide are drawn at their timeout with an x."""
    completion = [r for r in records if r["family"].startswith("completion")]
    if not completion:
        return None
    plt = pyplot()
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
    fig, axes = figure(plt, 9, 9 if sweep else 5, nrows=2 if sweep else 1, squeeze=False)
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
    ax.xaxis.set_major_locator(integer_ticks())
    wrong_mark = "; red triangle: wrong" if any(_wrong(r) for r in completion) else ""
    annotate(ax, "instance, easiest first (by the fastest correct answer)",
              f"wall-clock seconds (x: undecided at the timeout{wrong_mark})",
              f"{_suite(completion)}: completion instances by difficulty")
    if sweep:
        _plot_sweep(axes[1][0], completion, by_config)
    return save(plt, fig, path)


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
    ax.xaxis.set_major_locator(integer_ticks())
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
    plt = pyplot()
    sizes = sorted({(r["n"], r["m"]) for r in completion})
    configs = sorted({r["config"] for r in completion})
    # At most 3 panels a row, each wide enough for its bar labels; the legend below them all.
    columns = min(3, len(sizes))
    rows = -(-len(sizes) // columns)
    fig, axes = figure(plt, max(6.0, 3.6 * columns), 3.6 * rows + 0.8, nrows=rows, ncols=columns,
                        squeeze=False, sharey=True)
    # Undecided (no answer in time) and wrong (an answer that contradicts the truth) are told apart.
    kinds = [("SAT (verified)", "#2e7d32", lambda r: r["status"] == "SAT" and r.get("correct")),
             ("UNSAT certified", "#1565c0", lambda r: certified(r) and r.get("correct")),
             ("UNSAT claimed only", "#90caf9",
              lambda r: r["status"] == "UNSAT" and not certified(r) and r.get("correct")),
             ("UNSAT unconfirmed", "#ffcc80", lambda r: r.get("verdict") == "unconfirmed"),
             ("undecided", "#bdbdbd", lambda r: _undecided(r) and r.get("verdict") != "unconfirmed"),
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
        ax.yaxis.set_major_locator(integer_ticks())
        if index % columns == 0:
            ax.set_ylabel("instances")
    fig.suptitle(f"{_suite(completion)}: outcomes per backend")
    handles, labels = axes[0][0].get_legend_handles_labels()
    # Three a row: six kinds in one row are wider than a figure of one or two panels.
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize="small", frameon=False)
    return save(plt, fig, path)


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
    plt = pyplot()
    fig, ax = figure(plt)
    for free, by_n in sorted(solvable.items()):
        ns = sorted(by_n)
        line = ax.plot(ns, [sum(by_n[n]) / len(by_n[n]) for n in ns], marker="o", ms=3,
                       label=f"{free} free rows")[0]
        ax.axvline(0.19 * free * free, color=line.get_color(), ls=":", lw=1)
    ax.set_ylim(-0.02, 1.02)
    n_axis(ax, (n for by_n in solvable.values() for n in by_n),
            "n (board size); dotted: the peak n = 0.19 (n - m)^2")
    annotate(ax, None, "fraction of instances with a completion",
              f"{_suite(completion)}: phase transition (fixed free rows n - m)")
    return save(plt, fig, path)



def field_cactus_png(board: Board, clock: str = "wall") -> bytes:
    """Every engine's cactus plot on one clock (``wall`` or ``cpu``), the VBS of the complete engines
    dotted black; local searches (on the instances known solvable only) dashed."""
    board = board.on_clock(clock)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(10, 6), layout="constrained")
    engines = [*board.engines, *board.local_search]
    looks = styles(engines)
    for engine in engines:
        times = sorted(t for t in (board.time(engine, i) for i in board.given(engine)) if t is not None)
        look = looks[engine]
        # Steps with a marker every few points: the legend shows the colour, the dashes and the marker.
        ax.plot(range(1, len(times) + 1), times, drawstyle="steps-post", label=f"{engine} ({len(times)})",
                lw=1.3, ms=4, markevery=max(1, len(times) // 8), **look)
    best = vbs_times(board, board.engines, sorted(board.instances))
    vbs = sorted(t for t in best.values() if t is not None)
    ax.step(range(1, len(vbs) + 1), vbs, "k:", where="post", lw=2.5, label=f"VBS ({len(vbs)})")
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(integer_ticks())
    ax.set_xlabel("instances solved correctly")
    ax.set_ylabel(f"{'CPU' if clock == 'cpu' else 'wall-clock'} seconds needed (median of repetitions)")
    ax.set_title(f"Cactus plot on {'CPU' if clock == 'cpu' else 'wall'} time: every engine of the field")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1))
    return png(fig)


def field_scatter_png(board: Board, first: str, second: str) -> bytes:
    """Two engines instance by instance, one colour and marker a family; unsolved drawn at twice the limit."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 5.5), layout="constrained")
    limit = max(board.timeout(i) for i in board.instances)
    ceiling = 2 * limit
    looks = styles(families(board))
    for family, look in looks.items():
        points = [(board.time(first, i), board.time(second, i)) for i in family_instances(board, family)]
        if points:
            ax.scatter([ceiling if a is None else a for a, _ in points],
                       [ceiling if b is None else b for _, b in points], s=16, label=family, alpha=0.8,
                       color=look["color"], marker=look["marker"])
    low = 1e-3
    ax.plot([low, ceiling], [low, ceiling], "k:", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(low, ceiling * 1.3)
    ax.set_ylim(low, ceiling * 1.3)
    ax.set_xlabel(f"{first} (s; unsolved at {ceiling:g})")
    ax.set_ylabel(f"{second} (s; unsolved at {ceiling:g})")
    ax.set_title(f"{first} against {second}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1))
    return png(fig)
