"""``nqcsp check-proof CNF PROOF``: does PROOF show that the board CNF's header names has no solution?

Exit 0 means exactly that: the CNF is the reference statement (``nqcsp.statement``) of the problem its
header names, and the proof (DRAT, checked by dratify, or LRAT, checked by ``nqcsp.lrat``) refutes it.
A proof that is valid only for the CNF as given, which is not that statement, exits 1 and says so;
``--any-cnf`` asks for the plain check of the given CNF instead. The header's problem is checked against
the formula's size before its statement is built, so a forged header cannot make the check allocate more
than the formula in the file.
"""

from __future__ import annotations

import argparse
import pathlib

from nqcsp.cli.common import EXIT_NO, EXIT_OK, UsageError, read_input

LRAT_SUFFIXES = (".lrat", ".clrat")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "check-proof", help="check a DRAT or LRAT proof that a board has no solution",
        description="Check that PROOF refutes the DIMACS CNF and that CNF is the reference statement "
                    "(nqcsp.statement) of the problem named in its header, as written by 'nqcsp solve "
                    "--proof-dir'. DRAT is checked by dratify (its native engine when cdclkit[native] is "
                    "installed), LRAT (text or binary) by nqcsp's own linear-time checker. Exit 0: the "
                    "board has no solution, proven; 1: the proof is rejected, or valid only for a CNF that "
                    "is not that statement; 2: bad input.")
    parser.add_argument("cnf", metavar="CNF", help="DIMACS CNF file ('-' for stdin)")
    parser.add_argument("proof", metavar="PROOF", help="proof file ('-' for stdin)")
    parser.add_argument("--format", choices=("auto", "drat", "lrat"), default="auto", dest="proof_format",
                        help="proof format (default auto: lrat for a .lrat or .clrat file, else drat)")
    parser.add_argument("--engine", choices=("auto", "python", "native"), default="auto",
                        help="DRAT checker engine (default auto: native when installed)")
    parser.add_argument("--any-cnf", action="store_true",
                        help="accept a valid proof of any CNF (exit 0 says nothing about a board)")
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


def statement_of(text: str, num_vars: int, clauses: list[list[int]]) -> tuple[bool, str]:
    """Whether the CNF is the reference statement of the problem its header names, and the line saying so.

    The header's problem is sized first and the statement is built only when that size is the formula's
    own: a real statement has an at-least-one clause for each free row and column, and its residual
    board is not many times larger than its text, so a header that claims more is refused before
    anything is built from it."""
    from nqcsp.cnf import reference_size
    from nqcsp.limits import Limits, Unfinished, default_memory_limit
    from nqcsp.problem import Problem
    from nqcsp.residual import residual_within
    from nqcsp.statement import VERSION, reference_cnf

    named = header_problem(text)
    if named is None:
        return False, "statement: not an nqcsp reference statement (no such header)"
    try:
        problem = Problem(*named)
        if problem.attack is not None:
            return False, f"statement: the header names {problem}, whose mandatory queens attack each other"
        free = problem.n - len(problem.queens)
        if len(clauses) < 2 * free:
            return False, (f"statement: NOT the reference CNF of {problem}, which its header names (its "
                           f"{free} free rows and columns need {2 * free} clauses, not {len(clauses)})")
        budget = Limits(None, min(default_memory_limit(), 64 * len(text) + (64 << 20)))
        size = reference_size(residual_within(problem, budget, "check"))
    except (ValueError, TypeError) as exc:
        return False, f"statement: the header names no valid problem ({exc})"
    except Unfinished as exc:
        return False, f"statement: the header names a board too big to check here ({exc.reason})"
    if size != (num_vars, len(clauses)):
        return False, (f"statement: NOT the reference CNF of {problem}, which its header names "
                       f"({size[0]} variables and {size[1]} clauses, the file {num_vars} and {len(clauses)})")
    if [tuple(c) for c in clauses] != list(reference_cnf(problem).clauses):
        return False, f"statement: NOT the reference CNF of {problem}, which its header names"
    return True, f"statement: {problem}, the {VERSION}"


def proof_format(args: argparse.Namespace) -> str:
    if args.proof_format != "auto":
        return args.proof_format
    return "lrat" if pathlib.Path(args.proof).suffix.lower() in LRAT_SUFFIXES else "drat"


def read_bytes(path: str) -> bytes:
    import sys

    if path == "-":
        return sys.stdin.buffer.read()
    try:
        return pathlib.Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path!r}: {exc.strerror}") from None


def run(args: argparse.Namespace) -> int:
    from nqcsp.cnf import parse_dimacs

    if args.cnf == "-" and args.proof == "-":
        raise UsageError("CNF and PROOF cannot both be stdin")
    text = read_input(args.cnf)
    try:
        num_vars, clauses = parse_dimacs(text)
    except ValueError as exc:
        raise UsageError(f"{args.cnf!r} is not DIMACS CNF: {exc}") from None
    is_statement, line = statement_of(text, num_vars, clauses)
    print(line)
    if proof_format(args) == "lrat":
        from nqcsp.lrat import check_lrat

        verdict = check_lrat(text, read_bytes(args.proof))
        ok, reason = verdict.ok, verdict.reason
        said = f"{verdict.stats.get('lemmas', 0)} lemmas, {verdict.stats.get('hints', 0)} hints, nqcsp-lrat"
    else:
        from nqcsp.drat import check_drat, native_available

        if args.engine == "native" and not native_available():
            raise UsageError("--engine native needs the native checker: pip install 'cdclkit[native]'")
        drat = check_drat(clauses, read_input(args.proof), num_vars, args.engine)
        if drat.malformed:
            raise UsageError(f"{args.proof!r}: {drat.reason}")
        ok, reason = drat.ok, drat.reason
        engine = drat.stats.get("engine", args.engine)
        said = f"{drat.stats.get('steps', 0)} steps, {len(clauses)} clauses, dratify-{engine}"
    if not ok:
        print(f"rejected: {reason}")
        return EXIT_NO
    if not is_statement and not args.any_cnf:
        print(f"rejected: the proof is valid ({said}) but refutes a CNF that is not the reference statement "
              "of the board its header names, so it proves nothing about a board (--any-cnf accepts it)")
        return EXIT_NO
    print(f"valid: {reason} ({said})")
    return EXIT_OK
