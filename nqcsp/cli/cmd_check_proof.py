"""``nqcsp check-proof CNF PROOF``: check a DRAT proof that a DIMACS CNF is unsatisfiable."""

from __future__ import annotations

import argparse

from nqcsp.cli.common import EXIT_NO, EXIT_OK, UsageError, read_input


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "check-proof", help="check a DRAT proof of unsatisfiability",
        description="Check that the text DRAT proof PROOF refutes the DIMACS CNF, with the independent "
                    "checker dratify. Exit 0 when the proof is valid, 1 when it is rejected, 2 on bad input.")
    parser.add_argument("cnf", metavar="CNF", help="DIMACS CNF file ('-' for stdin)")
    parser.add_argument("proof", metavar="PROOF", help="text DRAT proof file ('-' for stdin)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from nqcsp.cnf import parse_dimacs
    from nqcsp.drat import check_drat

    if args.cnf == "-" and args.proof == "-":
        raise UsageError("CNF and PROOF cannot both be stdin")
    try:
        num_vars, clauses = parse_dimacs(read_input(args.cnf))
    except ValueError as exc:
        raise UsageError(f"{args.cnf!r} is not DIMACS CNF: {exc}") from None
    verdict = check_drat(clauses, read_input(args.proof), num_vars)
    if verdict.malformed:
        raise UsageError(f"{args.proof!r}: {verdict.reason}")
    if verdict.ok:
        print(f"valid: {verdict.reason} ({verdict.stats.get('steps', 0)} steps, {len(clauses)} clauses)")
        return EXIT_OK
    print(f"rejected: {verdict.reason}")
    return EXIT_NO
