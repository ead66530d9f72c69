"""The field on one board: the ``field`` suite's recorded runs as field.md and a self-contained field.html.

    python -m benchmarks field report RESULTS.jsonl [--outdir DIR] [--scatter A,B] [--note TEXT]
    python -m benchmarks field warm [--engines choco,z3] [--calls 5] [--measurement]

``report`` reads the runs that ``python -m benchmarks run field`` recorded, through the strict reader
(``benchmarks.harness.records``: a bad line, a missing or unknown key, a NaN or negative time is one line
of error and exit 2), judges them with the one judge (``benchmarks.judging.truth``) and scores them
(``benchmarks.judging.scores``): solved, PAR-2 on wall and, where the runs measured it, on CPU time, the
virtual best solver and each engine's marginal contribution, and Borda, per family and overall. Local
search runs only on instances known solvable: it gets a table of its own and takes no part in the VBS or
the Borda score of the complete engines. field.md has the core columns; field.html every column, sortable,
with the cactus plots and a scatter plot of two engines (default: the two best by Borda).

``warm`` measures the cpmpy backend's call cost per engine (``benchmarks.suites.field.warm``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.harness.records import Record, RecordError, read_records
from benchmarks.judging import html, plots
from benchmarks.judging.markdown import cell, code
from benchmarks.judging.scores import (
    Board,
    accepted_wrong,
    board_of,
    families,
    family_instances,
    limit_breaks,
    par2,
    score_rows,
    vbs_score,
    wrong_answers,
)
from benchmarks.judging.truth import Contradiction

# What each configuration of the field runs, as a program: nqcsp's own, PySAT's solvers, MiniZinc's, CPMpy's.
ENGINE_NAMES = {
    "backtrack": "nqcsp bitboard search (LRAT proofs)", "cpsat": "OR-Tools CP-SAT",
    "minizinc": "Gecode (MiniZinc)", "sat/cadical195": "CaDiCaL 1.9.5 (PySAT)",
    "sat/kissat404": "Kissat 4.0.4 (PySAT)", "sat/glucose4": "Glucose 4 (PySAT)",
    "sat/minisat22": "MiniSat 2.2 (PySAT)", "sat/cryptominisat5": "CryptoMiniSat 5 (PySAT)",
    "sat/lingeling": "Lingeling (PySAT)", "sat/maplechrono": "MapleLCMDistChronoBT (PySAT)",
    "cpmpy/choco": "Choco (CPMpy)", "cpmpy/exact": "Exact (CPMpy)", "cpmpy/z3": "Z3 (CPMpy)",
    "cpmpy/pumpkin": "Pumpkin (CPMpy)", "cpmpy/highs": "HiGHS (CPMpy, linearised)",
    "qs4": "QS4 local search (nqcsp)", "minconflicts": "min-conflicts local search (nqcsp)",
}
RUN_COMMAND = "python -m benchmarks run field --publish --prob079 DIR --repeat 3 --parallel --jobs 2"


def program(engine: str) -> str:
    return ENGINE_NAMES.get(engine, engine)


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 instance``, ``2 instances``: the count and its noun in agreement."""
    return f"{count} {word if count == 1 else many or word + 's'}"


def seconds(value: float) -> str:
    return f"{value:.3g}"


def timed_on_cpu(board: Board) -> bool:
    """Whether every run that answered measured its CPU time (records before that have none)."""
    return all(r.get("cpu_s") is not None for runs in board.runs.values() for r in runs
               if r["status"] in ("SAT", "UNSAT", "UNKNOWN"))


def distinct_programs(board: Board) -> list[str]:
    return sorted({program(engine) for engine in board.engines})


def local_search_rows(board: Board) -> list[dict[str, Any]]:
    rows = []
    for engine in board.local_search:
        given = board.given(engine)
        solved, vbs = vbs_score(board, board.engines, given)
        rows.append({"engine": engine, "program": program(engine), "given": len(given),
                     "solved": sum(board.verdict(engine, i) == "correct" for i in given),
                     "par2": par2(board, engine, given), "vbs_solved": solved, "vbs_par2": vbs})
    return rows


def header(board: Board, records: list[Record], note: str = "",
           text: Callable[[object], str] = cell, bold: str = "**") -> list[str]:
    """The facts of the run, one line each: every text from the records through ``text`` (Markdown's
    escaping by default; the HTML page passes ``str`` and escapes the lines itself), ``bold`` around the
    headline figures."""
    dates = sorted(str(r["date"]) for r in records if "date" in r)
    host = records[0].get("machine") or {}
    seen: dict[str, list[str]] = {}
    for r in records:
        named = {**(r.get("versions") or {}), **((r.get("stats") or {}).get("versions") or {})}
        for key, value in named.items():
            if value and str(value) not in seen.setdefault(key, []):
                seen[key].append(str(value))
    # A resumed run may have run on another commit: every version a record names is shown.
    versions = {key: " and ".join(values) for key, values in seen.items()}
    timeouts = sorted({r["timeout"] for r in records})
    copies = [len(runs) for runs in board.runs.values()]
    ran = families(board)
    lines = [
        f"{bold}{plural(len(distinct_programs(board)), 'complete engine')}{bold} "
        f"({plural(len(board.engines), 'configuration')}), and "
        f"{plural(len(board.local_search), 'local search', 'local searches')} on the instances known "
        "solvable",
        f"{bold}{plural(len(board.instances), 'instance')}{bold} in {plural(len(ran), 'family', 'families')} "
        f"({', '.join(text(family) for family in ran)})",
        f"{bold}{plural(len(accepted_wrong(board)), 'wrong answer')} accepted{bold}; "
        f"{plural(len(wrong_answers(board)), 'wrong answer')} given, each listed below",
        repetitions(copies),
        f"time limit per run: {', '.join(f'{t:g}' for t in timeouts)} s; PAR-2 counts an unsolved run as "
        "twice that",
        *measurement_lines(records, text),
        f"machine: {text(host.get('cpu'))} ({host.get('cores')} cores, {host.get('mem_gb')} GB)"
        + (f"; {text(note)}" if note else ""),
        f"dates: {text(dates[0])} .. {text(dates[-1])}" if dates else "dates: -",
        "versions: " + ", ".join(f"{text(k)} {text(v)}" for k, v in sorted(versions.items()) if v),
    ]
    return lines


def repetitions(copies: list[int]) -> str:
    """How often each pair ran, and the share of pairs that ran as often as the most repeated one."""
    if not copies or max(copies) == 1:
        return "one run per engine and instance"
    most = max(copies)
    share = sum(count >= most for count in copies) / len(copies)
    return (f"runs per engine and instance: {min(copies)} to {most} ({100 * share:.1f}% of the pairs ran "
            f"{most} times); a pair's time is the median of its runs")


def scored(board: Board, family: str | None) -> list[dict[str, Any]]:
    """The score rows of a family (None: all), each with its PAR-2 on CPU time (``par2_cpu``, where every
    run measured it) and, for repeated runs, the PAR-2 of its fastest and slowest copies (``par2_min``,
    ``par2_max``: the spread of the repetitions)."""
    rows = score_rows(board, family, program)
    extra: dict[str, Board] = {}
    if timed_on_cpu(board):
        extra["par2_cpu"] = board.on_clock("cpu")
    if board.most_copies() > 1:
        extra["par2_min"] = board.on_clock("wall", "min")
        extra["par2_max"] = board.on_clock("wall", "max")
    instances = family_instances(board, family)
    for key, other in extra.items():
        for row in rows:
            row[key] = par2(other, row["engine"], instances)
    return rows


def measurement_lines(records: list[Record], text: Callable[[object], str] = cell) -> list[str]:
    """How the runs were measured and how much the machine disturbed them, when the records say."""
    measured = [r for r in records if r.get("measured_by")]
    lines = []
    if measured:
        reran = sum(bool(r.get("rerun")) for r in measured)
        still = sum(bool(r.get("disturbed")) for r in measured)
        waits = sorted(r["cpu_wait_s"] / r["wall_s"] for r in measured
                       if r.get("cpu_wait_s") is not None and r.get("wall_s"))
        share = f"; CPU wait {100 * waits[len(waits) // 2]:.1f}% of the wall time at the median run" \
            if waits else ""
        how = " and ".join(sorted({text(r["measured_by"]) for r in measured}))
        lines.append(f"{plural(len(measured), 'run')}, each measured for its process tree alone "
                     f"({how}: CPU time, CPU wait, peak RSS){share}; {plural(reran, 'run')} run again "
                     "for a CPU wait over 10% of its "
                     f"wall time, {still} still over it after two more tries")
    pinned = [r["core"] for r in records if r.get("core") is not None]
    if pinned:
        lines.append(f"{plural(len(pinned), 'run')} of {len(records)} pinned to one CPU of its own "
                     f"({plural(len(set(pinned)), 'CPU')} in use, one line of runs each): an engine's "
                     "threads share that CPU, and PAR-2 on CPU time counts them all")
    loads = [r["load"] for r in records if r.get("load") is not None]
    if loads:
        lines.append(f"load average (1 min) when the runs ended: {min(loads):.2f} to {max(loads):.2f}")
    return lines


def markdown_scores(rows: list[dict[str, Any]]) -> str:
    """The core columns: engine, solved, PAR-2 on wall time (its spread over repetitions) and on CPU time
    where measured, Borda, only-it-solves, wrong."""
    cpu, spread = "par2_cpu" in rows[0], "par2_min" in rows[0]
    titles = ["engine", "solved", "PAR-2 wall s" + (" (fastest..slowest runs)" if spread else ""),
              *(["PAR-2 CPU s"] if cpu else []), "Borda", "only it solves", "wrong"]
    lines = ["| " + " | ".join(titles) + " |", "|" + " --- |" * len(titles)]
    for row in rows:
        wall = seconds(row["par2"]) + (f" ({seconds(row['par2_min'])}..{seconds(row['par2_max'])})"
                                       if spread else "")
        cells = [cell(row["engine"]), f"{row['solved']}/{row['instances']}", wall,
                 *([seconds(row["par2_cpu"])] if cpu else []), f"{row['borda']:.1f}",
                 str(row["only_solver"]), str(row["wrong"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def family_line(board: Board, family: str | None) -> str:
    """``the best single engine solves X of Y, the VBS Z of Y`` on a family (None: all instances)."""
    instances = family_instances(board, family)
    rows = score_rows(board, family)
    best = max(rows, key=lambda row: (row["solved"], -row["par2"]))
    solved, score = vbs_score(board, board.engines, instances)
    labels = [board.truth.get(instance) for instance in instances]
    unlabelled = labels.count(None)
    return (f"The best single engine ({cell(best['engine'])}) solves {best['solved']} of {len(instances)}, "
            f"the VBS {solved} of {len(instances)} (PAR-2 {seconds(score)} s). Labels: "
            f"{labels.count('SAT')} SAT (a verified solution), {labels.count('UNSAT')} UNSAT (brute force or "
            f"a checked certificate), {unlabelled} unlabelled"
            + (" (no complete engine decided it in time)" if unlabelled == 1 else
               " (no complete engine decided them in time)" if unlabelled else "") + ".\n")


def markdown(board: Board, records: list[Record], command: str, note: str = "") -> str:
    parts = ["# The field on one board\n",
             "Every complete engine reachable here on the same instances, each answer judged: a solution "
             "verified by `nqcsp.verify`, an UNSAT counted only where brute force or a certificate nqcsp "
             "re-checked says so (an engine's claim that nothing confirms is *unconfirmed*). Scores are "
             "computed from the recorded runs only (`benchmarks/suites/field/report.py`, judged by "
             f"`benchmarks/judging/`). The runs: `{RUN_COMMAND}` (DIR a copy of CSPLib's "
             f"`Problems/prob079`); this page: {code(command)}.\n",
             *(f"- {line}" for line in header(board, records, note)), "",
             "Every column (marginal PAR-2, unconfirmed UNSAT, failed calls, pairs not run), sortable, with "
             "the plots: [field.html](field.html).\n",
             "## Overall\n",
             markdown_scores(scored(board, None)),
             family_line(board, None)]
    for family in families(board):
        instances = family_instances(board, family)
        parts += [f"## Family {code(family)} ({plural(len(instances), 'instance')})\n",
                  markdown_scores(scored(board, family)),
                  family_line(board, family)]
    rows = local_search_rows(board)
    if rows:
        parts += ["## Local search, on the instances known solvable\n",
                  "| engine | given | solved | PAR-2 s | VBS of the complete engines there: solved, "
                  "PAR-2 s |",
                  "|" + " --- |" * 5]
        parts += [f"| {cell(r['engine'])} | {r['given']} | {r['solved']} | {seconds(r['par2'])} | "
                  f"{r['vbs_solved']}, {seconds(r['vbs_par2'])} |" for r in rows]
        parts.append("")
    parts.append("## Wrong answers\n")
    parts += [f"- {cell(engine)} on {code(instance)}: {run['status']} {cell(str(run.get('error', ''))[:300])}"
              for engine, instance, run in wrong_answers(board)] or ["None: no engine gave a wrong answer."]
    parts.append("")
    failed = sorted((e, i) for e, i in board.runs if board.verdict(e, i) == "failed")
    parts.append("## Failed calls (an exception or a crash: no answer, counted unsolved)\n")
    parts += [f"- {cell(engine)} on {code(instance)}: {run['status']} {cell(str(run.get('error', ''))[:200])}"
              for engine, instance in failed for run in board.runs[(engine, instance)][:1]] or ["None."]
    parts.append("")
    unconfirmed = sorted((e, i) for e, i in board.runs if board.verdict(e, i) == "unconfirmed")
    parts.append("## UNSAT claims no certified answer confirms\n")
    parts += [f"- {cell(engine)} on {code(instance)}" for engine, instance in unconfirmed] or ["None."]
    parts.append("")
    breaks = limit_breaks(board)
    timed = sum("kept_limit" in r for runs in board.runs.values() for r in runs)
    parts.append("## Time-limit promise\n")
    parts.append(f"{timed - len(breaks)} of {plural(timed, 'run')} returned within max(10%, 0.5 s) of their "
                 "limit; the others, killed by the runner (TIMEOUT) or late:\n")
    parts += [f"- {cell(engine)} on {code(instance)}: {run['status']}, {run.get('wall_s', 0):.2f} s"
              for engine, instance, run in breaks] or ["None."]
    return "\n".join(parts) + "\n"


HTML_COLUMNS = [("engine", "engine"), ("program", "program"), ("solved", "solved"), ("par2", "PAR-2 s"),
                ("borda", "Borda"), ("only_solver", "only it solves"),
                ("marginal_par2", "PAR-2 without it, s more"), ("wrong", "wrong"),
                ("unconfirmed", "unconfirmed UNSAT"), ("failed", "failed"), ("not_run", "not run")]


def shown(key: str, row: dict[str, Any]) -> str:
    value = row[key]
    if key == "solved":
        return f"{value}/{row['instances']}"
    if key == "borda":
        return f"{value:.1f}"
    return seconds(value) if isinstance(value, float) else str(value)


def score_table(board: Board, family: str | None, caption: str) -> str:
    rows = scored(board, family)
    columns = list(HTML_COLUMNS)
    if "par2_cpu" in rows[0]:
        columns[3:4] = [("par2", "PAR-2 wall s"), ("par2_cpu", "PAR-2 CPU s")]
    if "par2_min" in rows[0]:
        columns[4:4] = [("par2_min", "PAR-2 wall s, fastest runs"),
                        ("par2_max", "PAR-2 wall s, slowest runs")]
    return html.table(rows, columns, caption, shown)


def page(board: Board, records: list[Record], command: str, pictures: dict[str, bytes],
         scatter_pair: tuple[str, str], note: str = "") -> str:
    """One self-contained HTML page: nothing it shows comes from outside it."""
    facts = header(board, records, note, text=str, bold="")
    parts = [f"<p>The runs: <code>{RUN_COMMAND}</code> (DIR a copy of CSPLib's "
             "<code>Problems/prob079</code>); "
             f"this page: <code>{html.escape(command)}</code>, from the recorded runs only. Click a column's "
             "title to sort by it.</p>", html.items(facts),
             score_table(board, None, "Overall"),
             html.image(pictures["cactus"], "cactus plot of every engine on wall time")]
    if "cactus-cpu" in pictures:
        parts.append(html.image(pictures["cactus-cpu"], "cactus plot of every engine on CPU time"))
    first, second = scatter_pair
    parts.append(html.image(pictures["scatter"], f"scatter plot of {first} against {second}"))
    for family in families(board):
        parts.append(score_table(board, family, f"Family {family}"))
    wrong = wrong_answers(board)
    parts.append("<h2>Wrong answers</h2>" + html.items(
        [f"{e} on {i}: {r['status']}" for e, i, r in wrong] or ["None: no engine gave a wrong answer."]))
    return html.page("The field on one board", parts)


def report(paths: Sequence[Path], outdir: Path, scatter: tuple[str, str] | None = None,
           command: str = "python -m benchmarks field report", note: str = "") -> list[Path]:
    records = read_records(paths)
    board = board_of(records, "field")
    best = [row["engine"] for row in score_rows(board, None)]
    pair = scatter or (best[0], best[1] if len(best) > 1 else best[0])
    for engine in pair:
        if engine not in board.engines + board.local_search:
            raise ValueError(f"no engine {engine!r} in these results; there are {', '.join(board.engines)}")
    outdir.mkdir(parents=True, exist_ok=True)
    text = outdir / "field.md"
    text.write_text(markdown(board, records, command, note))
    pictures = {"cactus": plots.field_cactus_png(board), "scatter": plots.field_scatter_png(board, *pair)}
    if timed_on_cpu(board):
        pictures["cactus-cpu"] = plots.field_cactus_png(board, "cpu")
    sheet = outdir / "field.html"
    sheet.write_text(page(board, records, command, pictures, pair, note))
    return [text, sheet]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks field", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    made = sub.add_parser("report", help="field.md and field.html from the recorded runs")
    made.add_argument("results", nargs="+", type=Path, help="JSON-lines results of the field suite")
    made.add_argument("--outdir", type=Path, help="default: beside the first results file")
    made.add_argument("--scatter", help="two engines, A,B (default: the two best by Borda)")
    made.add_argument("--note", default="", help="how the run was made, for the report's header (the "
                                                 "machine's load, parallel runs)")
    warm = sub.add_parser("warm", help="the cpmpy backend's first and warm call per engine")
    warm.add_argument("--engines", help="comma-separated (default: every installed engine)")
    warm.add_argument("--calls", type=int, default=5, help="warm calls after the first (default 5)")
    warm.add_argument("--measurement", action="store_true",
                      help="what measuring a run costs beside a warm child, instead of the call costs")
    args = parser.parse_args(argv)
    if args.command == "warm":
        from benchmarks.suites.field.warm import measurement_cost, print_warm_costs

        engines = args.engines.split(",") if args.engines else None
        return (measurement_cost if args.measurement else print_warm_costs)(engines, args.calls)
    pair = tuple(args.scatter.split(",")) if args.scatter else None
    if pair is not None and len(pair) != 2:
        print("error: --scatter takes two engines, A,B", file=sys.stderr)
        return 2
    command = "python -m benchmarks field report " + " ".join(map(str, args.results))
    outdir = args.outdir or args.results[0].parent
    try:
        written = report(args.results, outdir, pair, command, args.note)  # type: ignore[arg-type]
    except (RecordError, Contradiction, ValueError) as exc:
        print(f"error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
