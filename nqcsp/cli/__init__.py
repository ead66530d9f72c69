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
from nqcsp.cli.common import EXIT_INTERNAL, EXIT_USAGE, OneLineParser, UsageError

COMMANDS = (cmd_solve, cmd_verify, cmd_solvers, cmd_count, cmd_solutions, cmd_blockades, cmd_export,
            cmd_check_proof)


def build_parser() -> OneLineParser:
    parser = OneLineParser(prog="nqcsp", description="N-Queens with mandatory queens: verified answers.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from nqcsp.result import InternalSolverError

    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except (UsageError, ValueError, TypeError) as exc:
        sys.stderr.write(f"nqcsp: error: {exc}\n")
        return EXIT_USAGE
    except InternalSolverError as exc:
        sys.stderr.write(f"nqcsp: internal error (a bug, please report): {exc}\n")
        return EXIT_INTERNAL
    except ImportError as exc:
        sys.stderr.write(f"nqcsp: error: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("nqcsp: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
