"""``nqcsp check-proof CNF PROOF``: does PROOF show that the board CNF's comments name has no solution?

Exit 0 means exactly that: the CNF is the reference statement (``nqcsp.proof.statement``) of the problem its
comments name, and the proof (DRAT, checked by dratify, or LRAT, checked by ``nqcsp.proof.lrat``, and by every
outside checker given with ``--checker``) refutes it. The work is ``nqcsp.proof.audit``'s: the CNF is read
once, and the proof is checked against the statement rebuilt from the problem, never a second reading of the
file. A proof that is valid only for the CNF as given, which is not that statement, exits 1 and says so;
``--any-cnf`` asks for the plain check of the given CNF instead. 3: the check cannot fit the time or
memory limit (the figure named); 2: bad input.
"""

from __future__ import annotations

import argparse
import mmap
import pathlib
import re

from nqcsp.cli.common import (
    EXIT_NO,
    EXIT_OK,
    UsageError,
    mapped,
    memory_arg,
    named,
    positive_float_arg,
    read_bounded,
)

LRAT_SUFFIXES = (".lrat", ".clrat")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "check-proof", help="check a DRAT or LRAT proof that a board has no solution",
        description="Check that PROOF refutes the DIMACS CNF and that CNF is the reference statement "
                    "(nqcsp.proof.statement) of the problem named in its comments, as written by "
                    "'nqcsp solve --proof-dir'. The CNF is read once, and the proof checked against "
                    "the statement rebuilt from that problem. DRAT is checked by dratify (its native "
                    "engine when cdclkit[native] is installed), LRAT (text or binary) by nqcsp's own "
                    "linear-time checker and by every --checker given. Exit 0: the board has no "
                    "solution, proven; 1: the proof is rejected, or valid only for a CNF that is not that "
                    "statement; 2: bad input; 3: the check does not fit the time or memory limit.")
    parser.add_argument("cnf", metavar="CNF", help="DIMACS CNF file ('-' for stdin)")
    parser.add_argument("proof", metavar="PROOF", help="proof file ('-' for stdin)")
    parser.add_argument("--format", choices=("auto", "drat", "lrat"), default="auto", dest="proof_format",
                        help="proof format (default auto: lrat for a .lrat or .clrat file, else drat)")
    parser.add_argument("--engine", choices=("auto", "python", "native"), default="auto",
                        help="DRAT checker engine (default auto: native when installed)")
    parser.add_argument("--checker", action="append", default=[], metavar="NAME=PATH",
                        help="also run an outside LRAT checker, which must accept too: cake_lpr=PATH "
                             "(CakeML's verified checker; repeatable)")
    parser.add_argument("--any-cnf", action="store_true",
                        help="accept a valid proof of any CNF (exit 0 says nothing about a board)")
    parser.add_argument("--time-limit", type=positive_float_arg, default=None, metavar="S",
                        help="seconds for the whole command (default: none)")
    parser.add_argument("--memory-limit", type=memory_arg, default=None, metavar="BYTES",
                        help="memory budget, e.g. 2G (default: the memory available)")
    parser.set_defaults(run=run)


def proof_format(args: argparse.Namespace) -> str:
    if args.proof_format != "auto":
        return args.proof_format
    return "lrat" if pathlib.Path(args.proof).suffix.lower() in LRAT_SUFFIXES else "drat"


# How much of the PROOF file is looked at for a DIMACS header when the CNF is refused (a swap).
SNIFF_BYTES = 1 << 16
_DIMACS_HEADER = re.compile(rb"(?m)^[ \t]*p[ \t]+cnf[ \t]")


def refusal(exc: ValueError, args: argparse.Namespace, proof: bytes | mmap.mmap) -> str:
    """``audit``'s ValueError with the file it is about named: the CNF's when its one reading refused
    it, then with the likely mistake when PROOF is the DIMACS file (the two arguments swapped)."""
    from nqcsp.proof.audit import read_cnf

    steps = []
    trace = exc.__traceback__
    while trace is not None:
        steps.append(trace.tb_frame.f_code)
        trace = trace.tb_next
    if read_cnf.__code__ not in steps:
        # Else the proof's (a malformed DRAT proof) or the command's own (outside checkers for DRAT).
        return f"PROOF {named(args.proof)}: {exc}" if "proof" in str(exc).lower() else f"{exc}"
    message = f"CNF {named(args.cnf)} is not a DIMACS CNF: {exc}"
    head = bytes(proof[:SNIFF_BYTES])
    if _DIMACS_HEADER.search(head) or (pathlib.Path(args.cnf).suffix.lower() in (*LRAT_SUFFIXES, ".drat")
                                       and pathlib.Path(args.proof).suffix.lower() == ".cnf"):
        message += (f"; the arguments look swapped: PROOF {named(args.proof)} is the CNF (the order is "
                    f"'nqcsp check-proof CNF PROOF')")
    return message


def run(args: argparse.Namespace) -> int:
    from nqcsp.proof.audit import audit
    from nqcsp.proof.outside import outside_checker
    from nqcsp.runtime.limits import Limits

    limits = Limits.start(args.time_limit, args.memory_limit)
    if args.cnf == "-" and args.proof == "-":
        raise UsageError("CNF and PROOF cannot both be stdin")
    checkers = [outside_checker(text) for text in args.checker]
    from nqcsp.proof.dimacs import READ_BYTES_PER_BYTE

    cnf = read_bounded(args.cnf, limits.memory // (READ_BYTES_PER_BYTE + 1), "CNF")
    with mapped(args.proof, limits.memory // 2) as proof:
        try:
            found = audit(cnf, proof, proof_format(args), limits=limits, engine=args.engine,
                          any_cnf=args.any_cnf, outside=checkers)
        except ValueError as exc:
            raise UsageError(refusal(exc, args, proof)) from None
    for line in found.lines:
        print(line)
    return EXIT_OK if found.proven or (found.valid and args.any_cnf) else EXIT_NO
