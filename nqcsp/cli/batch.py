"""``nqcsp solve --batch FILE``: JSON lines in, one JSON record per line out, every line on its own.

Each line runs as its own task on a process pool (``--jobs K``) or a Dask cluster (``--scheduler`` /
``--dask``), so nothing one line does can take the others down: bad input becomes an error record
(``"error_type": "input"``), an unexpected exception or a worker process that dies on every attempt an
internal one (``"error_type": "internal"``), each with the line's number and id. Records are written in
input order, each as soon as it and every line before it are done.

Exit code: 4 when any line hit an internal error, else 2 when any line was bad input, else 0 (a line's
UNSAT or UNKNOWN is in its record, not in the exit code); 130 on Ctrl-C, after writing every finished line.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any

from nqcsp.cli.common import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    add_executor_arguments,
    backend_options,
    executor_from_args,
    named,
    read_input_bytes,
    write_json_record,
)
from nqcsp.runtime.limits import as_memory_limit, default_memory_limit
from nqcsp.runtime.values import Fields, parse_json

INPUT, INTERNAL = "input", "internal"
COLUMNS = "columns"


def add_batch_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--batch", metavar="FILE",
                        help="many problems, JSON lines {\"n\": N, \"queens\": [[r, c], ...], \"id\": ...} "
                             "in, JSON lines out, in input order ('-' for stdin)")
    add_executor_arguments(parser, default_jobs=1)


def error_record(number: int, record_id: Any, kind: str, message: str) -> dict[str, Any]:
    return {"line": number, "id": record_id, "error": message, "error_type": kind}


def line_text(line: bytes) -> str:
    """A batch line as text; a line that is not UTF-8 is that line's input error, not the whole batch's."""
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"the line is not UTF-8 text (byte 0x{line[exc.start]:02x} at column "
                         f"{exc.start + 1})") from None


# The keys of a batch line besides the keywords of nqcsp.solve and the options of the line's solver: "n"
# required, the others optional.
LINE_KEYS = ("n", "queens", "id")
REQUIRED = ("n",)


def line_fields(record: object) -> Fields:
    """A batch line held to its schema: "n" required; "queens", "id", the keywords of ``nqcsp.solve`` and
    the backends' options allowed, any other key refused by name with its near miss (``"queen"`` is not
    read as no queens). Whether an option is the line's solver's is ``nqcsp.solve``'s to say (it names the
    backend whose option it is)."""
    from nqcsp.api import SOLVE_KEYWORDS
    from nqcsp.solvers import option_owners

    keywords = [key for key in SOLVE_KEYWORDS if key not in LINE_KEYS]
    listed = f"{', '.join((*LINE_KEYS, *keywords))} and the backends' options (see 'nqcsp solvers')"
    return Fields(record, "the line").keys(REQUIRED, (*LINE_KEYS, *keywords, *option_owners()), listed)


def solve_line(number: int, raw: bytes | str, defaults: dict[str, Any]) -> dict[str, Any]:
    """One batch line in, one JSON object out (its columns as an array); whatever goes wrong becomes an
    error record, not a crash."""
    from nqcsp.api import solve

    record_id = None
    try:
        line = raw if isinstance(raw, str) else line_text(raw)
        # defaults is this command's own dict: its memory limit is there only when --memory-limit was given.
        record = parse_json(line, "the line", as_memory_limit(defaults.get("memory_limit")))
        if isinstance(record, dict):
            # The id first, so that the error record of a line refused below still carries it; "id" is
            # optional (null in the record when the line has none), echoed, never used.
            record_id = record.get("id")
        fields = line_fields(record)
        # "queens" may be left out: a problem without mandatory queens (solve's own default).
        queens = fields.items("queens") if "queens" in fields.data else []
        queens = [tuple(q) if isinstance(q, list) else q for q in queens]
        # Every other key is a keyword of nqcsp.solve (solver, time_limit, seed, memory_limit, or an
        # option of the solver): the line's own values win over the command line's (a key it leaves out
        # is the command line's flag), and solve() checks each value.
        given = {key: value for key, value in fields.data.items() if key not in LINE_KEYS}
        result = solve(fields.data["n"], queens, **{**defaults, **given})
        # The columns travel as the array (4 bytes a queen) and are written as text in chunks: as a list
        # of Python ints, a line of n = 3 * 10^7 took 1.9 GB under a memory limit of 400 MB.
        return {"line": number, "id": record_id, **result.to_json(with_columns=False),
                COLUMNS: result.columns}
    except (ValueError, TypeError, ImportError) as exc:
        # ImportError: the line asks for a backend that is not installed, as on the command line.
        return error_record(number, record_id, INPUT, str(exc))
    except Exception as exc:
        return error_record(number, record_id, INTERNAL, f"{type(exc).__name__}: {exc}")


def _record_id(raw: bytes) -> Any:
    """The id of a line whose worker died, read here (the worker could not report it)."""
    try:
        record = parse_json(line_text(raw), "the line", default_memory_limit())
    except ValueError:
        return None
    # Only echoed in the error record: null for a line without one, as for any line.
    return record.get("id") if isinstance(record, dict) else None


def run_batch(args: argparse.Namespace) -> int:
    from nqcsp.runtime.parallel import SchedulerLost, iter_outcomes

    data = read_input_bytes(args.batch)
    lines = [(number, line) for number, line in enumerate(data.splitlines(), 1) if line.strip()]

    defaults = {"solver": args.solver, "time_limit": args.time_limit, "seed": args.seed,
                **backend_options(args.option)}
    if args.memory_limit is not None:
        defaults["memory_limit"] = args.memory_limit
    tasks = [(number, line, defaults) for number, line in lines]
    done: dict[int, dict[str, Any]] = {}
    written = 0
    kinds: set[str] = set()
    refused: list[dict[str, Any]] = []

    def write(record: dict[str, Any]) -> None:
        if "error" in record:
            kinds.add(record["error_type"])
            refused.append(record)
        columns = record.pop(COLUMNS, None)
        write_json_record(record, columns, sys.stdout)

    try:
        with executor_from_args(args) as executor, \
                contextlib.closing(iter_outcomes(solve_line, tasks, executor=executor)) as outcomes:
            for position, outcome in outcomes:
                if outcome.error is None:
                    record = outcome.value
                else:
                    number, line = lines[position]
                    record = error_record(number, _record_id(line), INTERNAL,
                                          f"{type(outcome.error).__name__}: {outcome.error}")
                done[position] = record
                while written in done:
                    write(done.pop(written))
                    written += 1
                sys.stdout.flush()
    except (KeyboardInterrupt, SchedulerLost) as stopped:
        # Finished lines that wait on an unfinished earlier one are written too: each carries its line.
        for position in sorted(done):
            write(done[position])
        sys.stdout.flush()
        if isinstance(stopped, SchedulerLost):
            raise                 # the command's one line on stderr
        sys.stderr.write(f"nqcsp: interrupted: {written + len(done)} of {len(lines)} lines answered and "
                         "written\n")
        return EXIT_INTERRUPTED
    if refused:
        say_refused(args.batch, refused, len(lines))
    if INTERNAL in kinds:
        return EXIT_INTERNAL
    return EXIT_USAGE if INPUT in kinds else EXIT_OK


def say_refused(path: str, refused: list[dict[str, Any]], total: int) -> None:
    """The one line on stderr of a batch with error records: the file, the first such line and its error
    (the key it names), and how many there are; each record on stdout says its own."""
    first = refused[0]
    kind = "bad input" if first["error_type"] == INPUT else "an internal error"
    others = f"; {len(refused)} of {total} lines have error records" if len(refused) > 1 else ""
    message = f"nqcsp: error: batch {named(path)} line {first['line']} is {kind}: {first['error']}{others}"
    sys.stderr.write(" ".join(message.split())[:2000] + "\n")
