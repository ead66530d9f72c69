"""The ``nqcsp`` command. Each subcommand lives in its own module with ``register(subparsers)``."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

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
    from nqcsp.parallel import SchedulerLost
    from nqcsp.result import InternalSolverError, MissingDependency

    try:
        args = build_parser().parse_args(argv)
        return int(args.run(args))
    except (UsageError, ValueError, TypeError, MissingDependency) as exc:
        # Bad input only: once nqcsp.solve has accepted its input, whatever a backend raises reaches here
        # as InternalSolverError (nqcsp.api.solve, nqcsp.contract); the other commands validate first.
        return _fail(f"nqcsp: error: {exc}", EXIT_USAGE)
    except SchedulerLost as exc:
        # Not a bug and not bad input: the cluster went away under the run.
        return _fail(f"nqcsp: error: {exc}", EXIT_INTERNAL)
    except InternalSolverError as exc:
        return _fail(f"nqcsp: internal error (a bug, please report): {exc}", EXIT_INTERNAL)
    except KeyboardInterrupt:
        return _fail("nqcsp: interrupted", EXIT_INTERRUPTED)
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_OK
    except RecursionError as exc:
        return _fail(f"nqcsp: internal error (a bug, please report): RecursionError: {exc}", EXIT_INTERNAL)
    except Exception as exc:
        return _fail(f"nqcsp: internal error (a bug, please report): {type(exc).__name__}: {exc}",
                     EXIT_INTERNAL)


def entry() -> None:
    """The ``nqcsp`` command: ``main``, then exit. After Ctrl-C the process ends at once: native work
    that was told to stop (a CP-SAT search) must not hold up the exit while the interpreter shuts down."""
    import os

    sys.unraisablehook = _interrupt_never_dropped(sys.unraisablehook)
    code = main()
    if code == EXIT_INTERRUPTED:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)
    sys.exit(code)


def _interrupt_never_dropped(hook: Callable[[Any], object]) -> Callable[[Any], object]:
    """An unraisable-exception hook that raises a dropped Ctrl-C again in the main thread.

    A KeyboardInterrupt raised inside a finalizer, a weakref callback or an at-fork hook cannot propagate:
    Python prints "Exception ignored" with a traceback and carries on, and the command ran to its end as
    if Ctrl-C had never been pressed. Raised again from a thread a moment later (raised at once it would
    land in the same place and be dropped again), it reaches the command where it can be handled."""
    import _thread
    import signal
    import threading

    main_thread = threading.main_thread().ident

    def press_again() -> None:
        # A real signal, so that a blocking call of the main thread (a sleep, a wait) is interrupted too.
        if hasattr(signal, "pthread_kill") and main_thread is not None:
            signal.pthread_kill(main_thread, signal.SIGINT)
        else:
            _thread.interrupt_main()

    def keep_interrupts(unraisable: Any) -> object:
        if isinstance(unraisable.exc_type, type) and issubclass(unraisable.exc_type, KeyboardInterrupt):
            again = threading.Timer(0.05, press_again)
            again.daemon = True
            again.start()
            return None
        return hook(unraisable)

    return keep_interrupts


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
    entry()
