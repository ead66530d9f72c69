"""The ``nqcsp`` command. Each subcommand lives in its own module with ``register(subparsers)``."""

from __future__ import annotations

import contextlib
import os
import sys

# No code of nqcsp calls BLAS, and numpy's OpenBLAS starts a thread per core at import that spins for a
# while: 0.05 CPU s of every command (numpy's import 0.12 -> 0.07 CPU s). Set before any subcommand
# module imports numpy; a user's own setting wins, and worker processes inherit it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import argparse
import importlib
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from nqcsp.cli.common import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNKNOWN,
    EXIT_USAGE,
    OneLineParser,
    UsageError,
    unrecognized,
)

# The subcommands' modules, in help order. They import numpy and more, so they are loaded inside ``main``:
# a Ctrl-C while they load is then an interrupt reported in one line, not a traceback from the import of
# this package (about 0.1 s of every command's start-up).
COMMAND_MODULES = ("cmd_solve", "cmd_verify", "cmd_solvers", "cmd_count", "cmd_solutions", "cmd_blockades",
                   "cmd_threshold", "cmd_export", "cmd_check_proof", "cmd_warmup")


def commands() -> tuple[ModuleType, ...]:
    return tuple(importlib.import_module(f"nqcsp.cli.{name}") for name in COMMAND_MODULES)


# What ``nqcsp --help`` (and ``nqcsp`` alone) ends with: a first command or three, then where to go next.
EPILOG = """\
examples:
  nqcsp solve 8 --queen 0,3           a verified solution, as a board
  nqcsp solve 6 --queen 0,0           no solution, with a checked proof (exit 1)
  nqcsp solve 8 -q 0,3 --format svg   the board as a picture
  nqcsp blockades 4 8 --svg DIR       every blocked cell of boards 4..8, drawn

'nqcsp COMMAND --help' shows a command's options. Exit codes: 0 solved or
valid, 1 proven unsolvable or invalid, 2 bad input, 3 unknown, 4 internal
error, 5 an unchecked claim, 130 interrupted."""


def build_parser() -> OneLineParser:
    from nqcsp import __version__

    parser = OneLineParser(prog="nqcsp", description="N-Queens with mandatory queens: verified solutions "
                                                     "or checked proofs of none.",
                           epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"nqcsp {__version__}")
    # Not required by argparse: ``nqcsp`` alone prints the whole help (``main``), not a one-line error.
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands",
                                parser_class=OneLineParser)
    for command in commands():
        command.register(sub)
    parser.commands = dict(sub.choices)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every outcome is an exit code and at most one line on stderr, never a traceback."""
    try:
        from nqcsp.board.result import InternalSolverError  # numpy: a tenth of a second
        from nqcsp.runtime.lazy import MissingDependency
        from nqcsp.runtime.limits import Unfinished
        from nqcsp.runtime.parallel import SchedulerLost
    except KeyboardInterrupt:
        return _fail("nqcsp: interrupted", EXIT_INTERRUPTED)
    try:
        parser = build_parser()
        args, extra = parser.parse_known_args(argv)
        if extra:
            parser.error(unrecognized(extra, parser.commands.get(args.command)))
        if args.command is None:
            sys.stderr.write(parser.format_help())
            return EXIT_USAGE
        return int(args.run(args))
    except (UsageError, ValueError, TypeError, MissingDependency) as exc:
        # Bad input only: once nqcsp.solve has accepted its input, whatever a backend raises reaches here
        # as InternalSolverError (nqcsp.api.solve, nqcsp.solvers.contract); the other commands validate first.
        return _fail(f"nqcsp: error: {exc}", EXIT_USAGE)
    except Unfinished as exc:
        # A limit left no answer (the stage and the figure named): unknown, not a bug.
        return _fail(f"nqcsp: unknown: {exc.reason}", EXIT_UNKNOWN)
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
    that was told to stop (a CP-SAT search) must not hold up the exit while the interpreter shuts down.
    Otherwise the heap is frozen first, so the interpreter's final garbage collection skips every object
    the process made (numba's alone cost 0.2 to 0.4 s at exit); the operating system frees them."""
    import gc
    import os

    _watch_interrupts()
    code = main()
    if code == EXIT_INTERRUPTED:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)
    gc.freeze()
    sys.exit(code)


# Seconds after Ctrl-C at which a command still running has its interrupt raised again.
REPRESS_S = 1.0


def _watch_interrupts() -> None:
    """Ctrl-C is never dropped and its aftermath is quiet.

    A KeyboardInterrupt raised inside a finalizer, a weakref callback or an at-fork hook cannot propagate:
    Python prints "Exception ignored" with a traceback and carries on, and the command ran to its end as
    if Ctrl-C had never been pressed. The unraisable-exception hook raises it again from a thread a moment
    later (raised at once it would land in the same place and be dropped again), where the command can
    handle it. And once Ctrl-C was pressed, an error in a finalizer is its consequence (an llvmlite object
    whose construction the interrupt cut short fails in ``__del__``), not news: it is not printed."""
    import _thread
    import signal
    import threading
    import time

    if threading.current_thread() is not threading.main_thread():
        return
    pressed = threading.Event()
    main_thread = threading.main_thread().ident

    def on_sigint(signum: int, frame: Any) -> None:
        if not pressed.is_set():
            pressed.set()
            keep_pressing = threading.Thread(target=press_until_gone, name="nqcsp-ctrl-c", daemon=True)
            keep_pressing.start()
        raise KeyboardInterrupt

    def press_until_gone() -> None:
        # The command ends within a second of Ctrl-C (entry exits at once after it); one still running
        # then has lost the interrupt (caught by a bare except in a library, or delivered while its main
        # thread slept in a wait it was not woken from), so Ctrl-C is pressed again, as a user would.
        while True:
            time.sleep(REPRESS_S)
            press_again()

    def press_again() -> None:
        # A real signal, so that a blocking call of the main thread (a sleep, a wait) is interrupted too.
        if hasattr(signal, "pthread_kill") and main_thread is not None:
            signal.pthread_kill(main_thread, signal.SIGINT)
        else:
            _thread.interrupt_main()

    def unraisable(report: Any, report_others: Callable[[Any], object] = sys.unraisablehook) -> object:
        if isinstance(report.exc_type, type) and issubclass(report.exc_type, KeyboardInterrupt):
            again = threading.Timer(0.05, press_again)
            again.daemon = True
            again.start()
            return None
        if pressed.is_set():
            return None
        return report_others(report)

    # Only where Ctrl-C would raise KeyboardInterrupt anyway (not where it is ignored: a background job).
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, on_sigint)
    sys.unraisablehook = unraisable


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
