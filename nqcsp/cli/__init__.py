"""The ``nqcsp`` command. Each subcommand lives in its own module with ``register(subparsers)``."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from nqcsp.cli import (
    cmd_blockades,
    cmd_check_proof,
    cmd_count,
    cmd_export,
    cmd_solutions,
    cmd_solve,
    cmd_solvers,
    cmd_verify,
)
from nqcsp.cli.common import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, OneLineParser, UsageError

COMMANDS = (cmd_solve, cmd_verify, cmd_solvers, cmd_count, cmd_solutions, cmd_blockades, cmd_export,
            cmd_check_proof)


def build_parser() -> OneLineParser:
    from nqcsp import __version__

    parser = OneLineParser(prog="nqcsp", description="N-Queens with mandatory queens: verified answers.")
    parser.add_argument("--version", action="version", version=f"nqcsp {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every outcome is an exit code and at most one line on stderr, never a traceback."""
    from nqcsp.result import InternalSolverError

    try:
        args = build_parser().parse_args(argv)
        return int(args.run(args))
    except (UsageError, ValueError, TypeError, ImportError) as exc:
        # Bad input only: backends raise InternalSolverError for their own failures (nqcsp.contract).
        return _fail(f"nqcsp: error: {exc}", EXIT_USAGE)
    except InternalSolverError as exc:
        return _fail(f"nqcsp: internal error (a bug, please report): {exc}", EXIT_INTERNAL)
    except KeyboardInterrupt:
        return _fail("nqcsp: interrupted", EXIT_INTERRUPTED)
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_OK
    except RecursionError as exc:
        return _fail(f"nqcsp: internal error (a bug, please report): RecursionError: {exc}", EXIT_INTERNAL)
    except Exception as exc:  # noqa: BLE001 - the last line of defence: one line and exit 4, no traceback
        return _fail(f"nqcsp: internal error (a bug, please report): {type(exc).__name__}: {exc}",
                     EXIT_INTERNAL)


def run() -> None:
    """The console entry point: ``main``, then exit without the final garbage collection over every
    object the process made (numba's alone cost 0.2 to 0.4 s at exit); the operating system frees them."""
    import gc

    code = main()
    gc.freeze()
    sys.exit(code)


def _fail(message: str, code: int) -> int:
    sys.stderr.write(" ".join(message.split())[:2000] + "\n")
    return code


def _silence_stdout() -> None:
    """After a closed pipe, point stdout at /dev/null so the interpreter's final flush stays quiet."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    run()
