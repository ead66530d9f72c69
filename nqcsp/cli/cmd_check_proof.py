"""``nqcsp check-proof CNF PROOF``: check a DRAT proof that a DIMACS CNF is unsatisfiable, and say whether
the CNF is the reference statement of the problem its header names."""

from __future__ import annotations

import argparse

from nqcsp.cli.common import EXIT_NO, EXIT_OK, UsageError, read_input


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "check-proof", help="check a DRAT proof of unsatisfiability",
        description="Check that the text DRAT proof PROOF refutes the DIMACS CNF, with the independent "
                    "checker dratify (its native engine when cdclkit[native] is installed). Also reports "
                    "whether CNF is the reference statement (nqcsp.statement) of the problem named in its "
                    "header, as written by 'nqcsp solve --proof-dir'. Exit 0 when the proof is valid, 1 "
                    "when it is rejected, 2 on bad input.")
    parser.add_argument("cnf", metavar="CNF", help="DIMACS CNF file ('-' for stdin)")
    parser.add_argument("proof", metavar="PROOF", help="text DRAT proof file ('-' for stdin)")
    parser.add_argument("--engine", choices=("auto", "python", "native"), default="auto",
                        help="checker engine (default auto: native when installed)")
    parser.set_defaults(run=run)


def header_problem(text: str) -> tuple[int, list[tuple[int, int]]] | None:
    """n and the mandatory queens named by a reference statement's comment header, or None."""
    from nqcsp.statement import VERSION

    head = [line[2:].strip() for line in text.splitlines()[:4] if line.startswith("c ")]
    if len(head) < 3 or head[0] != f"nqcsp {VERSION}" or not head[1].startswith("n ") \
            or not head[2].startswith("queens "):
        return None
    try:
        n = int(head[1][2:])
        cells = head[2][7:].split()
        queens = [] if cells == ["none"] else [(int(r), int(c)) for r, c in (q.split(",") for q in cells)]
    except ValueError:
        return None
    return n, queens


def statement_line(text: str, num_vars: int, clauses: list[list[int]]) -> str:
    from nqcsp.problem import Problem
    from nqcsp.statement import VERSION, reference_cnf

    named = header_problem(text)
    if named is None:
        return "statement: not an nqcsp reference statement (no such header): the proof says nothing about " \
               "a board"
    try:
        problem = Problem(*named)
        statement = reference_cnf(problem)
    except (ValueError, TypeError) as exc:
        return f"statement: the header names no valid problem ({exc})"
    same = num_vars == statement.num_vars and [tuple(c) for c in clauses] == list(statement.clauses)
    if same:
        return f"statement: {problem}, the {VERSION}"
    return f"statement: NOT the reference CNF of {problem}, which its header names"


def run(args: argparse.Namespace) -> int:
    from nqcsp.cnf import parse_dimacs
    from nqcsp.drat import check_drat, native_available

    if args.cnf == "-" and args.proof == "-":
        raise UsageError("CNF and PROOF cannot both be stdin")
    if args.engine == "native" and not native_available():
        raise UsageError("--engine native needs the native checker: pip install 'cdclkit[native]'")
    text = read_input(args.cnf)
    try:
        num_vars, clauses = parse_dimacs(text)
    except ValueError as exc:
        raise UsageError(f"{args.cnf!r} is not DIMACS CNF: {exc}") from None
    verdict = check_drat(clauses, read_input(args.proof), num_vars, args.engine)
    if verdict.malformed:
        raise UsageError(f"{args.proof!r}: {verdict.reason}")
    print(statement_line(text, num_vars, clauses))
    engine = verdict.stats.get("engine", args.engine)
    if verdict.ok:
        print(f"valid: {verdict.reason} ({verdict.stats.get('steps', 0)} steps, {len(clauses)} clauses, "
              f"dratify-{engine})")
        return EXIT_OK
    print(f"rejected: {verdict.reason}")
    return EXIT_NO
