"""The field on one board: scores of the ``field`` suite's recorded runs, as the field scores them.

    python -m benchmarks.field report RESULTS.jsonl [--outdir DIR] [--scatter A,B]
    python -m benchmarks.field warm [--engines choco,z3] [--calls 5]

``report`` reads the runs that ``python -m benchmarks run field`` recorded and writes ``field.md`` and a
self-contained ``field.html`` (a sortable table, the plots embedded) into DIR (default: beside the results).
Everything is computed from the records alone, after the run:

- **judging**: an instance is SAT when some run's solution passed ``nqcsp.verify`` (or brute force says
  so); UNSAT when brute force says so or some run's certificate was re-checked by nqcsp (``checked_by``).
  A SAT answer is correct when its solution was verified; an UNSAT answer is correct only on an instance
  known UNSAT so (an engine's claim counts once a certified answer agrees with it; a claim no certified
  answer confirms is *unconfirmed* and not counted solved); any other answer is wrong, shown by instance.
- **solved**, **PAR-2** (the mean over instances of the time of a correct answer, or twice the time limit
  for anything else, a pair the runner never ran after a timeout on a smaller board included), the
  **virtual best solver** (the fastest correct answer on each instance) and each engine's **marginal
  contribution** to it (what the VBS of the others loses without it: instances and PAR-2 seconds), and
  the **Borda** score of the MiniZinc Challenge (on each instance each pair of engines shares one point:
  all to the one that solved when the other did not, split as t_other / (t_self + t_other) when both
  did), per family and overall. Local search runs only on instances known to be solvable: it gets a
  table of its own and takes no part in the VBS or the Borda score of the complete engines.
- **plots**: a cactus plot of every engine, and a scatter plot of two (default: the two best by Borda).

``warm`` measures the cpmpy backend's call cost per engine: the first call in a fresh process (the
child's start) and the next calls (the model and the search only), on the board n = 12 with a queen at
(0, 3).
"""

from __future__ import annotations

import argparse
import base64
import html
import io
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.runner import read_results

Record = dict[str, Any]
FAMILIES = ("prob079", "peak", "codewars", "one-queen", "blocked")
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


# ---------------------------------------------------------------- judging

def instance_truth(records: list[Record]) -> dict[str, str | None]:
    """Per instance: "SAT" (a verified solution, or brute force), "UNSAT" (brute force, or a certificate
    nqcsp re-checked), else None. A certified UNSAT beside a verified solution is a contradiction that
    raises: one of the two checks is broken, and no score means anything then."""
    truth: dict[str, str | None] = {}
    for r in records:
        key = r["instance"]
        truth.setdefault(key, None)
        solved = (r["status"] == "SAT" and r.get("verified") is True) or r.get("expected") == "SAT"
        certified = (r["status"] == "UNSAT" and bool((r.get("certificate") or {}).get("checked_by"))) \
            or r.get("expected") == "UNSAT"
        if solved or certified:
            found = "SAT" if solved else "UNSAT"
            if truth[key] not in (None, found):
                raise ValueError(f"{key}: a verified solution and a certified UNSAT both recorded")
            truth[key] = found
    return truth


# The words of nqcsp's InternalSolverError when the answer itself was wrong (an invalid solution, two
# complete methods disagreeing, an incomplete backend saying UNSAT); any other broke the backend's call.
WRONG_ANSWER_WORDS = ("invalid solution", "disagree", "incomplete solver")


def verdict(record: Record, truth: str | None) -> str:
    """``correct``, ``wrong``, ``unconfirmed`` (an UNSAT no certified answer backs), ``failed`` (the
    call broke: an exception, a crash) or ``unsolved``."""
    status = record["status"]
    if status == "WRONG":
        error = str(record.get("error", ""))
        return "wrong" if any(words in error for words in WRONG_ANSWER_WORDS) else "failed"
    if status in ("ERROR", "CRASH"):
        return "failed"
    if status == "SAT":
        return "correct" if record.get("verified") is True else "wrong"
    if status == "UNSAT":
        if truth == "SAT":
            return "wrong"
        return "correct" if truth == "UNSAT" else "unconfirmed"
    return "unsolved"


@dataclass
class Board:
    """The judged runs: per engine (configuration) and instance, the verdict and the seconds it took."""

    engines: list[str]
    local_search: list[str]
    instances: dict[str, Record]                      # id -> family, n, m, expected, timeout
    truth: dict[str, str | None]
    runs: dict[tuple[str, str], Record] = field(default_factory=dict)
    verdicts: dict[tuple[str, str], str] = field(default_factory=dict)

    def timeout(self, instance: str) -> float:
        return float(self.instances[instance]["timeout"])

    def time(self, engine: str, instance: str) -> float | None:
        """Seconds of a correct answer, else None."""
        if self.verdicts.get((engine, instance)) != "correct":
            return None
        return float(self.runs[(engine, instance)]["wall_s"])

    def given(self, engine: str) -> list[str]:
        """The instances an engine was meant to run: all of them for a complete engine, the ones it was
        given for local search."""
        if engine in self.local_search:
            return sorted(i for e, i in self.runs if e == engine)
        return sorted(self.instances)


def board_of(records: list[Record]) -> Board:
    records = [r for r in records if r.get("suite", "field") == "field" and r["status"] != "SKIPPED"]
    if not records:
        raise ValueError("no runs of the field suite in these results")
    truth = instance_truth(records)
    local = sorted({r["config"] for r in records if r["solver"] in ("qs4", "minconflicts")})
    engines = sorted({r["config"] for r in records} - set(local))
    instances: dict[str, Record] = {}
    for r in records:
        instances.setdefault(r["instance"], {"family": r["family"], "n": r["n"], "m": r["m"],
                                             "expected": r.get("expected"), "timeout": r["timeout"]})
    board = Board(engines, local, instances, truth)
    for r in records:
        key = (r["config"], r["instance"])
        board.runs[key] = r
        board.verdicts[key] = verdict(r, truth[r["instance"]])
    return board


# ---------------------------------------------------------------- scores

def par2(board: Board, engine: str, instances: list[str]) -> float:
    """Mean seconds per instance, a run without a correct answer (or never run) counting twice its limit."""
    if not instances:
        return 0.0
    total = 0.0
    for instance in instances:
        seconds = board.time(engine, instance)
        total += 2 * board.timeout(instance) if seconds is None else seconds
    return total / len(instances)


def vbs_times(board: Board, engines: list[str], instances: list[str]) -> dict[str, float | None]:
    """The virtual best solver of ``engines``: the fastest correct answer on each instance, or None."""
    best: dict[str, float | None] = {}
    for instance in instances:
        times = [t for t in (board.time(e, instance) for e in engines) if t is not None]
        best[instance] = min(times) if times else None
    return best


def vbs_score(board: Board, engines: list[str], instances: list[str]) -> tuple[int, float]:
    """Solved instances and PAR-2 of the virtual best solver of ``engines``."""
    best = vbs_times(board, engines, instances)
    solved = sum(t is not None for t in best.values())
    total = sum(2 * board.timeout(i) if t is None else t for i, t in best.items())
    return solved, total / len(instances) if instances else 0.0


def marginal(board: Board, instances: list[str]) -> dict[str, tuple[int, float]]:
    """Each complete engine's marginal contribution: instances the VBS loses without it, and how much its
    PAR-2 grows."""
    solved, score = vbs_score(board, board.engines, instances)
    out = {}
    for engine in board.engines:
        without_solved, without_score = vbs_score(board, [e for e in board.engines if e != engine], instances)
        out[engine] = (solved - without_solved, without_score - score)
    return out


def borda(board: Board, engines: list[str], instances: list[str]) -> dict[str, float]:
    """The MiniZinc Challenge's Borda score for a satisfaction problem, over every pair of ``engines``."""
    score = {engine: 0.0 for engine in engines}
    for instance in instances:
        times = {engine: board.time(engine, instance) for engine in engines}
        for engine, mine in times.items():
            if mine is None:
                continue
            for other, theirs in times.items():
                if other == engine:
                    continue
                if theirs is None:
                    score[engine] += 1.0
                else:
                    score[engine] += 0.5 if mine + theirs == 0 else theirs / (mine + theirs)
    return score


def family_instances(board: Board, family: str | None) -> list[str]:
    return sorted(i for i, facts in board.instances.items() if family is None or facts["family"] == family)


def score_rows(board: Board, family: str | None) -> list[dict[str, Any]]:
    """One row per complete engine on a family (None: every instance), best Borda first."""
    instances = family_instances(board, family)
    points = borda(board, board.engines, instances)
    contribution = marginal(board, instances)
    rows = []
    for engine in board.engines:
        verdicts = [board.verdicts.get((engine, i), "not run") for i in instances]
        rows.append({"engine": engine, "program": ENGINE_NAMES.get(engine, engine),
                     "solved": verdicts.count("correct"), "instances": len(instances),
                     "par2": par2(board, engine, instances), "borda": points[engine],
                     "only_solver": contribution[engine][0], "marginal_par2": contribution[engine][1],
                     "wrong": verdicts.count("wrong"), "unconfirmed": verdicts.count("unconfirmed"),
                     "failed": verdicts.count("failed"),
                     "not_run": verdicts.count("not run")})
    rows.sort(key=lambda row: (-row["borda"], row["par2"]))
    return rows


def wrong_answers(board: Board) -> list[tuple[str, str, Record]]:
    return sorted((engine, instance, board.runs[(engine, instance)])
                  for (engine, instance), v in board.verdicts.items() if v == "wrong")


def accepted_wrong(board: Board) -> list[tuple[str, str]]:
    """Runs the scores count as solved although the record contradicts the instance's truth: a second
    look at the judging, from the records (a solution not verified, an UNSAT where a solution is known)."""
    accepted = []
    for (engine, instance), v in board.verdicts.items():
        run = board.runs[(engine, instance)]
        contradicted = (run["status"] == "SAT" and run.get("verified") is not True) or \
            (run["status"] == "UNSAT" and board.truth[instance] != "UNSAT") or \
            run["status"] not in ("SAT", "UNSAT")
        if v == "correct" and contradicted:
            accepted.append((engine, instance))
    return accepted


def limit_breaks(board: Board) -> list[tuple[str, str, Record]]:
    """Runs that did not keep the time-limit promise (max(10%, 0.5 s)) or that the runner killed."""
    return sorted((e, i, r) for (e, i), r in board.runs.items() if r.get("kept_limit") is False)


def distinct_programs(board: Board) -> list[str]:
    return sorted({ENGINE_NAMES.get(engine, engine) for engine in board.engines})


# ---------------------------------------------------------------- plots

def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png(fig: Any) -> bytes:
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()


def cactus_png(board: Board) -> bytes:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for engine in [*board.engines, *board.local_search]:
        times = sorted(t for t in (board.time(engine, i) for i in board.given(engine)) if t is not None)
        style = "--" if engine in board.local_search else "-"
        ax.step(range(1, len(times) + 1), times, style, where="post", label=f"{engine} ({len(times)})")
    best = vbs_times(board, board.engines, sorted(board.instances))
    vbs = sorted(t for t in best.values() if t is not None)
    ax.step(range(1, len(vbs) + 1), vbs, "k:", where="post", lw=2, label=f"VBS ({len(vbs)})")
    ax.set_yscale("log")
    ax.set_xlabel("instances solved correctly")
    ax.set_ylabel("wall-clock seconds needed")
    ax.set_title("Cactus plot: every engine of the field")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="x-small", ncol=2)
    data = _png(fig)
    plt.close(fig)
    return data


def scatter_png(board: Board, first: str, second: str) -> bytes:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 5.5))
    limit = max(board.timeout(i) for i in board.instances)
    ceiling = 2 * limit
    for family in FAMILIES:
        points = [(board.time(first, i), board.time(second, i)) for i in family_instances(board, family)]
        if points:
            ax.scatter([ceiling if a is None else a for a, _ in points],
                       [ceiling if b is None else b for _, b in points], s=14, label=family, alpha=0.8)
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
    ax.legend(fontsize="x-small")
    data = _png(fig)
    plt.close(fig)
    return data


# ---------------------------------------------------------------- the report

def _seconds(value: float) -> str:
    return f"{value:.3g}"


def markdown_scores(rows: list[dict[str, Any]]) -> str:
    lines = ["| engine | program | solved | PAR-2 s | Borda | only it solves | PAR-2 without it, s more | "
             "wrong | unconfirmed UNSAT | failed | not run |", "|" + " --- |" * 11]
    for row in rows:
        lines.append(f"| {row['engine']} | {row['program']} | {row['solved']}/{row['instances']} | "
                     f"{_seconds(row['par2'])} | {row['borda']:.1f} | {row['only_solver']} | "
                     f"{_seconds(row['marginal_par2'])} | {row['wrong']} | {row['unconfirmed']} | "
                     f"{row['failed']} | {row['not_run']} |")
    return "\n".join(lines) + "\n"


def local_search_rows(board: Board) -> list[dict[str, Any]]:
    rows = []
    for engine in board.local_search:
        given = board.given(engine)
        solved, vbs = vbs_score(board, board.engines, given)
        rows.append({"engine": engine, "program": ENGINE_NAMES.get(engine, engine), "given": len(given),
                     "solved": sum(board.verdicts.get((engine, i)) == "correct" for i in given),
                     "par2": par2(board, engine, given), "vbs_solved": solved, "vbs_par2": vbs})
    return rows


def header(board: Board, records: list[Record], note: str = "") -> list[str]:
    dates = sorted(r["date"] for r in records if "date" in r)
    host = records[0].get("machine", {})
    versions = dict(records[0].get("versions", {}))
    for r in records:
        versions.update((r.get("stats") or {}).get("versions") or {})
    timeouts = sorted({r["timeout"] for r in records})
    wrong = wrong_answers(board)
    accepted = accepted_wrong(board)
    return [
        f"- **{len(distinct_programs(board))} complete engines** ({len(board.engines)} configurations, each "
        f"a program of its own), and {len(board.local_search)} local searches on the instances known "
        "solvable",
        f"- **{len(board.instances)} instances** in {len(FAMILIES)} families",
        f"- **{len(accepted)} wrong answers accepted**; {len(wrong)} wrong answers given, each listed below",
        f"- time limit per run: {', '.join(f'{t:g}' for t in timeouts)} s; PAR-2 counts an unsolved run as "
        "twice that",
        f"- machine: {host.get('cpu')} ({host.get('cores')} cores, {host.get('mem_gb')} GB)"
        + (f"; {note}" if note else ""),
        f"- dates: {dates[0]} .. {dates[-1]}" if dates else "- dates: -",
        "- versions: " + ", ".join(f"{k} {v}" for k, v in sorted(versions.items()) if v),
    ]


def markdown(board: Board, records: list[Record], command: str, note: str = "") -> str:
    parts = ["# The field on one board\n",
             "Every complete engine reachable here on the same instances, each answer judged: a solution "
             "verified by `nqcsp.verify`, an UNSAT counted only where brute force or a certificate nqcsp "
             "re-checked says so (an engine's claim that nothing confirms is *unconfirmed*). Scores are "
             "computed from the recorded runs only (`benchmarks/field.py`). The runs: "
             "`python -m benchmarks run field --publish --prob079 DIR` (DIR a copy of CSPLib's "
             f"`Problems/prob079`); this page: `{command}`.\n",
             *header(board, records, note), "",
             "The same tables, sortable, with the plots: [field.html](field.html).\n",
             "## Overall\n", markdown_scores(score_rows(board, None))]
    solved, score = vbs_score(board, board.engines, sorted(board.instances))
    parts.append(f"Virtual best solver: {solved}/{len(board.instances)} solved, PAR-2 {_seconds(score)} s.\n")
    for family in FAMILIES:
        instances = family_instances(board, family)
        if not instances:
            continue
        solved, score = vbs_score(board, board.engines, instances)
        parts += [f"## Family `{family}` ({len(instances)} instances; VBS {solved} solved, PAR-2 "
                  f"{_seconds(score)} s)\n", markdown_scores(score_rows(board, family))]
    rows = local_search_rows(board)
    if rows:
        parts += ["## Local search, on the instances known solvable\n",
                  "| engine | program | given | solved | PAR-2 s | VBS of the complete engines there: "
                  "solved, PAR-2 s |", "|" + " --- |" * 6]
        parts += [f"| {r['engine']} | {r['program']} | {r['given']} | {r['solved']} | "
                  f"{_seconds(r['par2'])} | {r['vbs_solved']}, {_seconds(r['vbs_par2'])} |" for r in rows]
        parts.append("")
    parts.append("## Wrong answers\n")
    wrong = wrong_answers(board)
    parts += [f"- {engine} on `{instance}`: {run['status']} {run.get('error', '')[:300]}"
              for engine, instance, run in wrong] or ["None: no engine gave a wrong answer."]
    parts.append("")
    failed = sorted((e, i, board.runs[(e, i)]) for (e, i), v in board.verdicts.items() if v == "failed")
    parts.append("## Failed calls (an exception or a crash: no answer, counted unsolved)\n")
    parts += [f"- {engine} on `{instance}`: {run['status']} {str(run.get('error', ''))[:200]}"
              for engine, instance, run in failed] or ["None."]
    parts.append("")
    unconfirmed = sorted((e, i) for (e, i), v in board.verdicts.items() if v == "unconfirmed")
    parts.append("## UNSAT claims no certified answer confirms\n")
    parts += [f"- {engine} on `{instance}`" for engine, instance in unconfirmed] or ["None."]
    parts.append("")
    breaks = limit_breaks(board)
    parts.append("## Time-limit promise\n")
    timed = sum("kept_limit" in r for r in board.runs.values())
    parts.append(f"{timed - len(breaks)} of {timed} runs returned within max(10%, 0.5 s) of their limit; the "
                 "others, killed by the runner (TIMEOUT) or late:\n")
    parts += [f"- {engine} on `{instance}`: {run['status']}, {run.get('wall_s', 0):.2f} s"
              for engine, instance, run in breaks] or ["None."]
    return "\n".join(parts) + "\n"


_SORT_SCRIPT = """
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('th').forEach(function (th, column) {
    th.addEventListener('click', function () {
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var down = th.getAttribute('data-order') !== 'descending';
      table.querySelectorAll('th').forEach(function (other) { other.removeAttribute('data-order'); });
      th.setAttribute('data-order', down ? 'descending' : 'ascending');
      rows.sort(function (a, b) {
        var x = a.cells[column].getAttribute('data-value'), y = b.cells[column].getAttribute('data-value');
        var nx = parseFloat(x), ny = parseFloat(y);
        var order = (isNaN(nx) || isNaN(ny)) ? x.localeCompare(y) : nx - ny;
        return down ? -order : order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""

_STYLE = """
body { font-family: sans-serif; margin: 2em; max-width: 80em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.6em; text-align: right; }
th { background: #eee; cursor: pointer; user-select: none; }
th[data-order=descending]::after { content: " \\25BC"; }
th[data-order=ascending]::after { content: " \\25B2"; }
td:first-child, td:nth-child(2) { text-align: left; }
img { max-width: 100%; border: 1px solid #ddd; }
"""

_HTML_COLUMNS = [("engine", "engine"), ("program", "program"), ("solved", "solved"), ("par2", "PAR-2 s"),
                 ("borda", "Borda"), ("only_solver", "only it solves"),
                 ("marginal_par2", "PAR-2 without it, s more"), ("wrong", "wrong"),
                 ("unconfirmed", "unconfirmed UNSAT"), ("failed", "failed"), ("not_run", "not run")]


def html_table(rows: list[dict[str, Any]], caption: str) -> str:
    head = "".join(f"<th>{html.escape(title)}</th>" for _, title in _HTML_COLUMNS)
    body = []
    for row in rows:
        cells = []
        for key, _ in _HTML_COLUMNS:
            value = row[key]
            shown = f"{value}/{row['instances']}" if key == "solved" else f"{value:.1f}" if key == "borda" \
                else _seconds(value) if isinstance(value, float) else str(value)
            cells.append(f'<td data-value="{html.escape(str(value))}">{html.escape(shown)}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<table class="sortable"><caption>{html.escape(caption)}</caption><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>")


def page(board: Board, records: list[Record], command: str, pictures: dict[str, bytes],
         scatter_pair: tuple[str, str], note: str = "") -> str:
    """One self-contained HTML page: nothing it shows comes from outside it."""
    def image(name: str, alt: str) -> str:
        data = base64.b64encode(pictures[name]).decode()
        return f'<p><img src="data:image/png;base64,{data}" alt="{html.escape(alt)}"></p>'

    facts = "".join(f"<li>{html.escape(line[2:]).replace('**', '')}</li>"
                    for line in header(board, records, note))
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>nqcsp: the field on one board</title>", f"<style>{_STYLE}</style></head><body>",
             "<h1>The field on one board</h1>",
             "<p>The runs: <code>python -m benchmarks run field --publish --prob079 DIR</code> (DIR a copy "
             f"of CSPLib's <code>Problems/prob079</code>); this page: <code>{html.escape(command)}</code>, "
             "from the recorded runs only. Click a column's title to sort by it.</p>", f"<ul>{facts}</ul>",
             html_table(score_rows(board, None), "Overall"),
             image("cactus", "cactus plot of every engine"),
             image("scatter", f"scatter plot of {scatter_pair[0]} against {scatter_pair[1]}")]
    for family in FAMILIES:
        if family_instances(board, family):
            parts.append(html_table(score_rows(board, family), f"Family {family}"))
    wrong = wrong_answers(board)
    parts.append("<h2>Wrong answers</h2><ul>" + ("".join(
        f"<li>{html.escape(e)} on <code>{html.escape(i)}</code>: {html.escape(r['status'])}</li>"
        for e, i, r in wrong) or "<li>None: no engine gave a wrong answer.</li>") + "</ul>")
    parts += [f"<script>{_SORT_SCRIPT}</script>", "</body></html>"]
    return "\n".join(parts) + "\n"


def report(paths: Sequence[Path], outdir: Path, scatter: tuple[str, str] | None = None,
           command: str = "python -m benchmarks.field report", note: str = "") -> list[Path]:
    records = read_results(paths)
    board = board_of(records)
    best = [row["engine"] for row in score_rows(board, None)]
    pair = scatter or (best[0], best[1])
    for engine in pair:
        if engine not in board.engines + board.local_search:
            raise ValueError(f"no engine {engine!r} in these results; there are {', '.join(board.engines)}")
    outdir.mkdir(parents=True, exist_ok=True)
    text = outdir / "field.md"
    text.write_text(markdown(board, records, command, note))
    pictures = {"cactus": cactus_png(board), "scatter": scatter_png(board, *pair)}
    sheet = outdir / "field.html"
    sheet.write_text(page(board, records, command, pictures, pair, note))
    return [text, sheet]


# ---------------------------------------------------------------- warm calls of the cpmpy backend

def warm_costs(engines: list[str], calls: int) -> list[tuple[str, float, list[float], list[float]]]:
    """Per engine: the first call's wall seconds in this process (its child starts), then each next one's,
    and of each next one the part outside the engine's model and search (the bridge: the request, the
    answer, the verification)."""
    import nqcsp

    board = (12, [(0, 3)])
    rows = []
    for engine in engines:
        seconds, bridge = [], []
        for _ in range(calls + 1):
            started = time.perf_counter()
            result = nqcsp.solve(*board, solver="cpmpy", engine=engine, time_limit=60)
            seconds.append(time.perf_counter() - started)
            if result.status is not nqcsp.Status.SAT or not nqcsp.verify(12, result.columns, board[1]):
                raise AssertionError(f"{engine}: {result.status} on n = 12 with a queen at (0, 3)")
            bridge.append(seconds[-1] - result.stats["build_s"] - result.stats["search_s"])
        rows.append((engine, seconds[0], seconds[1:], bridge[1:]))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.field", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    made = sub.add_parser("report", help="field.md and field.html from the recorded runs")
    made.add_argument("results", nargs="+", type=Path)
    made.add_argument("--outdir", type=Path, help="default: beside the first results file")
    made.add_argument("--scatter", help="two engines, A,B (default: the two best by Borda)")
    made.add_argument("--note", default="", help="how the run was made, for the report's header (the "
                                                 "machine's load, parallel runs)")
    warm = sub.add_parser("warm", help="the cpmpy backend's first and warm call per engine")
    warm.add_argument("--engines", help="comma-separated (default: every installed engine)")
    warm.add_argument("--calls", type=int, default=5, help="warm calls after the first (default 5)")
    args = parser.parse_args(argv)
    if args.command == "report":
        missing = [str(p) for p in args.results if not p.is_file()]
        if missing:
            print(f"error: no such results file: {', '.join(missing)}", file=sys.stderr)
            return 2
        pair = tuple(args.scatter.split(",")) if args.scatter else None
        if pair is not None and len(pair) != 2:
            print("error: --scatter takes two engines, A,B", file=sys.stderr)
            return 2
        command = "python -m benchmarks.field report " + " ".join(map(str, args.results))
        outdir = args.outdir or args.results[0].parent
        for path in report(args.results, outdir, pair, command, args.note):  # type: ignore[arg-type]
            print(path)
        return 0
    from nqcsp.solvers.cpmpy import installed_engines

    engines = args.engines.split(",") if args.engines else installed_engines()
    print("cpmpy backend, n = 12 with a queen at (0, 3): wall seconds of nqcsp.solve (verification included)")
    print(f"{'engine':<10} {'first call':>11} {'warm: best':>11} {'median':>8} {'worst':>8} "
          f"{'outside the engine, median':>27}")
    for engine, first, warm_runs, bridge in warm_costs(engines, args.calls):
        print(f"{engine:<10} {first:>11.3f} {min(warm_runs):>11.3f} {statistics.median(warm_runs):>8.3f} "
              f"{max(warm_runs):>8.3f} {statistics.median(bridge):>27.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
