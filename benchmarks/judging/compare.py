"""Two result files of the same suite side by side: what changed between a "before" and an "after" run.

``python -m benchmarks compare BEFORE.jsonl AFTER.jsonl`` matches runs on (configuration, instance, seed,
task) and prints, per configuration: the matched runs, how many each side decided and got wrong (judged
as ``analyze`` judges them, never on a solver's word), the median and geometric mean of the after/before
wall-time ratios over runs both sides decided, and the worst ratio with its instance. A run is a
regression when it is slower by more than ``--threshold`` (a ratio) *and* by more than ``--floor``
seconds: sub-millisecond runs jitter by large ratios that mean nothing. The exit status is 1 when an
after run is wrong or a decided run is no longer decided, else 0.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.harness.records import Record, RecordError, read_records
from benchmarks.judging.summary import judge
from benchmarks.judging.truth import DECIDED


def _key(record: Record) -> tuple[str, str, Any, Any]:
    return record["config"], record["instance"], record.get("seed"), record.get("task")


def _by_key(records: list[Record]) -> dict[tuple[str, str, Any, Any], Record]:
    # A resumed or repeated run appears twice; the last one stands.
    return {_key(r): r for r in judge(records)}


def compare(before: list[Record], after: list[Record], threshold: float = 1.25,
            floor: float = 0.05) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows per configuration and the lines naming every regression, lost decision or wrong answer."""
    old, new = _by_key(before), _by_key(after)
    by_config: dict[str, list[tuple[Record, Record]]] = defaultdict(list)
    for key in old.keys() & new.keys():
        by_config[key[0]].append((old[key], new[key]))
    rows, alarms = [], []
    for config, pairs in sorted(by_config.items()):
        ratios = []
        worst: tuple[float, str] = (0.0, "-")
        for b, a in pairs:
            if a["correct"] is False:
                alarms.append(f"WRONG     {config} {a['instance']}: {a['status']}")
            if b["status"] in DECIDED and a["status"] not in DECIDED:
                alarms.append(f"UNDECIDED {config} {a['instance']}: {b['status']} in {b['wall_s']:.3g} s "
                              f"before, {a['status']} after")
            if b["status"] in DECIDED and a["status"] in DECIDED:
                ratio = max(a["wall_s"], 1e-6) / max(b["wall_s"], 1e-6)
                ratios.append(ratio)
                worst = max(worst, (ratio, a["instance"]))
                if ratio > threshold and a["wall_s"] - b["wall_s"] > floor:
                    alarms.append(f"SLOWER    {config} {a['instance']}: {b['wall_s']:.3g} -> "
                                  f"{a['wall_s']:.3g} s ({ratio:.2f}x)")
        rows.append({
            "config": config, "runs": len(pairs),
            "decided": f"{sum(b['status'] in DECIDED for b, _ in pairs)} -> "
                       f"{sum(a['status'] in DECIDED for _, a in pairs)}",
            "wrong_after": sum(a["correct"] is False for _, a in pairs),
            "median_ratio": statistics.median(ratios) if ratios else None,
            "geomean_ratio": math.exp(statistics.fmean(map(math.log, ratios))) if ratios else None,
            "worst_ratio": worst[0] if ratios else None, "worst_instance": worst[1],
        })
    return rows, alarms


def _cell(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def table(rows: list[dict[str, Any]]) -> str:
    head = ["configuration", "runs", "decided before -> after", "wrong after", "median after/before",
            "geomean", "worst", "worst instance"]
    keys = ["config", "runs", "decided", "wrong_after", "median_ratio", "geomean_ratio", "worst_ratio",
            "worst_instance"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    lines += ["| " + " | ".join(_cell(row[k]) for k in keys) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    cli = argparse.ArgumentParser(prog="python -m benchmarks compare", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_argument("before", type=Path)
    cli.add_argument("after", type=Path)
    cli.add_argument("--threshold", type=float, default=1.25, help="slower by this ratio... (default 1.25)")
    cli.add_argument("--floor", type=float, default=0.05, help="...and by this many seconds (default 0.05)")
    args = cli.parse_args(argv)
    for path in (args.before, args.after):
        if not path.is_file():
            print(f"error: no such results file: {path}", file=sys.stderr)
            return 2
    try:
        before, after = read_records([args.before]), read_records([args.after])
    except RecordError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rows, alarms = compare(before, after, args.threshold, args.floor)
    print(table(rows), end="")
    for line in alarms:
        print(line)
    return 1 if any(not line.startswith("SLOWER") for line in alarms) else 0
