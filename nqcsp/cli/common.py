"""What every CLI command shares: one-line errors, queen parsing, documented exit codes."""

from __future__ import annotations

import argparse
import contextlib
import json
import mmap
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

if TYPE_CHECKING:
    from concurrent.futures import Executor

    import numpy as np

# Exit codes, documented in docs/contract.md ("Exit codes").
EXIT_OK = 0          # SAT / valid / command done
EXIT_NO = 1          # UNSAT with a checked certificate / the checked solution or proof is invalid
EXIT_USAGE = 2       # bad input: one line on stderr
EXIT_UNKNOWN = 3     # no answer: a time or memory limit, or an incomplete solver gave up
EXIT_INTERNAL = 4    # a bug (a solver broke its contract, nqcsp failed) or the Dask scheduler lost: one line
EXIT_CLAIM = 5       # UNSAT claimed by one backend, its certificate not checked (use auto for a proof)
EXIT_INTERRUPTED = 130  # Ctrl-C: what was finished is written, the rest cancelled
READ_PIECE = 1 << 24    # bytes read at a time from a pipe or a device


class UsageError(Exception):
    """Bad input from the command line; reported as one line and exit code 2."""


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (no usage dump) and exit code 2, and a choice
    that is a near miss of one (``solv``, ``--format jsn``) gets that one named."""

    # The subcommands' parsers by name, on the top-level parser (for the hints of ``unrecognized``).
    commands: dict[str, argparse.ArgumentParser]

    def error(self, message: str) -> NoReturn:
        wrong = _INVALID_CHOICE.search(message)
        if wrong is not None:
            from nqcsp.runtime.values import did_you_mean

            message += did_you_mean(wrong["value"], re.findall(r"'([^']*)'", wrong["choices"]))
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


# argparse's refusal of a choice (3.9 to 3.13 word it alike).
_INVALID_CHOICE = re.compile(r"invalid choice: '(?P<value>[^']*)' \(choose from (?P<choices>.*)\)$")
# A bare queen on the command line: ``nqcsp solve 8 0,3``.
_BARE_QUEEN = re.compile(r"-?\d+\s*,\s*-?\d+")


def unrecognized(extra: Sequence[str], parser: argparse.ArgumentParser | None) -> str:
    """argparse's "unrecognized arguments" with what was likely meant: a near miss of one of the
    command's flags, or ``--queen R,C`` for a bare R,C."""
    from nqcsp.runtime.values import did_you_mean

    message = f"unrecognized arguments: {' '.join(extra)}"
    if parser is None:
        return message
    flags = [flag for action in parser._actions for flag in action.option_strings if flag.startswith("--")]
    queens = [token for token in extra if _BARE_QUEEN.fullmatch(token.strip())]
    if queens and "--queen" in flags:
        return f"{message}; a mandatory queen is --queen R,C: {' '.join(f'--queen {q}' for q in queens)}"
    for token in extra:
        if token.startswith("--"):
            hint = did_you_mean(token.partition("=")[0], flags, "{}")
            if hint:
                return message + hint
    return message


def queen_arg(text: str) -> tuple[int, int]:
    """Parse ``R,C`` into a cell; range checks happen when the Problem is built."""
    parts = text.replace(" ", "").split(",")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"a queen is ROW,COL, got {text!r}")
    try:
        return int(parts[0]), int(parts[1])
    except ValueError:
        raise argparse.ArgumentTypeError(f"a queen is ROW,COL with integers, got {text!r}") from None


def _whole_number_arg(text: str, what: str, lowest: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be a whole number, got {text!r}") from None
    if value < lowest:
        raise argparse.ArgumentTypeError(f"{what} must be >= {lowest}, got {value}")
    return value


def board_size_arg(text: str) -> int:
    return _whole_number_arg(text, "N", 0)


def positive_int_arg(text: str) -> int:
    return _whole_number_arg(text, "the value", 1)


def positive_float_arg(text: str) -> float:
    """Seconds for every flag that takes them (``--time-limit``, ``--search-first``): checked by the
    API's own check, so a limit is finite and > 0 on the command line exactly as in ``nqcsp.solve``."""
    from nqcsp.runtime.values import as_seconds

    try:
        return as_seconds(float(text), "the value")
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds > 0, got {text!r}") from None


def memory_arg(text: str) -> int:
    """Bytes, with an optional K, M, G or T suffix (powers of 1024)."""
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    stripped = text.strip().lower().removesuffix("b")
    scale = units.get(stripped[-1:], 1)
    number = stripped[:-1] if stripped[-1:] in units else stripped
    try:
        value = float(number) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected bytes such as 2G or 500M, got {text!r}") from None
    if not value >= 1 << 20 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"the memory limit must be at least 1M, got {text!r}")
    return int(value)


def fail(message: str, code: int) -> NoReturn:
    """End the command with one line on stderr and ``code`` (for outcomes that are not bad input)."""
    sys.stderr.write(f"nqcsp: {message}\n")
    raise SystemExit(code)


def named(path: str) -> str:
    """A file argument as a message names it: quoted, or stdin for '-'."""
    return "'-' (stdin)" if path == "-" else repr(path)


def read_input(path: str) -> str:
    """Text of FILE, or of stdin for '-'."""
    try:
        return read_input_bytes(path).decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path!r} is not text") from None


def read_input_bytes(path: str) -> bytes:
    """Bytes of FILE, or of stdin for '-' (for input decoded piece by piece)."""
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise UsageError(f"cannot read {path!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path!r} is not text") from None


def backend_options(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``--option KEY=VALUE`` pairs as a backend's options; a key given twice is bad input."""
    options: dict[str, Any] = {}
    for key, value in pairs:
        if key in options:
            raise UsageError(f"option {key} is given twice")
        options[key] = value
    return options


def read_bounded(path: str, limit: int, what: str) -> bytes:
    """Bytes of FILE (or stdin for '-'), at most ``limit`` of them: OutOfMemory("read") naming the size
    for more (an endless device included), UsageError for a path that cannot be read."""
    from nqcsp.runtime.limits import OutOfMemory, format_bytes

    def too_big() -> OutOfMemory:
        return OutOfMemory("read", f"memory limit: the {what} {path!r} is larger than the "
                                   f"{format_bytes(limit)} that reading it may take")

    try:
        handle = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise UsageError(f"cannot read {path!r}: {exc.strerror}") from None
    pieces: list[bytes] = []
    held = 0
    try:
        size = None if path == "-" else os.fstat(handle.fileno()).st_size
        if size is not None and size > limit:
            raise too_big()
        # Never ``limit`` bytes asked for at once (a budget larger than the machine, 1T, is still a
        # budget): a file's own size and one byte more (one piece, unless it grows), else pieces, so that
        # an endless device is stopped one piece past the limit.
        first = READ_PIECE if not size else size + 1
        while held <= limit:
            piece = handle.read(min(first if not pieces else READ_PIECE, limit + 1 - held))
            if not piece:
                break
            pieces.append(piece)
            held += len(piece)
    except OSError as exc:
        raise UsageError(f"cannot read {path!r}: {exc.strerror}") from None
    finally:
        if path != "-":
            handle.close()
    if held > limit:
        raise too_big()
    return pieces[0] if len(pieces) == 1 else b"".join(pieces)


@contextlib.contextmanager
def mapped(path: str, limit: int) -> Iterator[bytes | mmap.mmap]:
    """FILE's bytes as a read-only map (a regular file: nothing read into memory), else read whole within
    ``limit`` bytes (stdin, a pipe, a device)."""
    try:
        handle = None if path == "-" else open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise UsageError(f"cannot read {path!r}: {exc.strerror}") from None
    try:
        if handle is not None:
            info = os.fstat(handle.fileno())
            if stat.S_ISREG(info.st_mode) and info.st_size > 0:
                view = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
                try:
                    yield view
                finally:
                    _unmap(view)
                return
        yield read_bounded(path, limit, "proof")
    finally:
        if handle is not None:
            handle.close()


def _unmap(view: mmap.mmap) -> None:
    """Close a read-only map, or leave it to go with the last view of it: an exception on its way out (a
    check stopped at the deadline) holds views of the map in its traceback's frames, and ``close`` would
    raise BufferError over it."""
    with contextlib.suppress(BufferError):
        view.close()


def add_queen_argument(parser: argparse.ArgumentParser,
                       help: str = "a mandatory queen, 0-based row and column (repeatable)") -> None:
    """``--queen R,C`` (``-q``), repeatable, collected in ``args.queen``."""
    parser.add_argument("--queen", "-q", type=queen_arg, action="append", default=[], metavar="R,C",
                        help=help)


def add_executor_arguments(parser: argparse.ArgumentParser, *, default_jobs: int | None = None) -> None:
    """``--jobs K``, ``--scheduler ADDRESS`` and ``--dask``: where a command's parallel work runs."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="run on a running Dask cluster, e.g. tcp://host:8786 (pip install 'nqcsp[dask]')")
    where.add_argument("--dask", action="store_true",
                       help="run on a local Dask cluster of --jobs worker processes")
    default = "one per core" if default_jobs is None else str(default_jobs)
    parser.add_argument("--jobs", type=positive_int_arg, default=default_jobs, metavar="K",
                        help=f"worker processes (default: {default}); ignored with --scheduler")


@contextlib.contextmanager
def executor_from_args(args: argparse.Namespace,
                       warm: Callable[[], object] | None = None) -> Iterator[Executor]:
    """The Executor the command-line flags ask for, shut down (or killed, on an interrupt) on exit;
    ``warm`` loads in this process what the tasks need, for workers forked from it (see ``dask_executor``).
    """
    from nqcsp.runtime.parallel import dask_executor, owned_pool

    scheduler = getattr(args, "scheduler", None)
    jobs = getattr(args, "jobs", None)
    if scheduler is not None or getattr(args, "dask", False):
        with dask_executor(scheduler, jobs, warm) as executor:
            yield executor
        return
    # Even for --jobs 1 the work runs in a worker process: a line that kills its process, or a kernel that
    # does not return to Python for minutes, must not take the command (or its Ctrl-C) with it.
    with owned_pool(jobs) as pool:
        yield pool


def write_json_record(record: dict[str, Any], columns: np.ndarray | None, out: TextIO) -> None:
    """``record`` as one JSON line, with ``"columns"`` last, streamed from the array in chunks (10^8 Python
    ints in a list would take gigabytes)."""
    from nqcsp.board.text import column_text_chunks

    head = json.dumps(record, default=str, allow_nan=False)
    if columns is None:
        out.write(head + "\n")
        return
    out.write(head[:-1] + (', "columns": [' if len(head) > 2 else '{"columns": ['))
    binary = getattr(out, "buffer", None)
    if binary is not None:
        out.flush()
    first = True
    for chunk in column_text_chunks(columns):
        text = (b"" if first else b",") + chunk.rstrip(b"\n").replace(b"\n", b",")
        if binary is not None:
            binary.write(text)
        else:
            out.write(text.decode("ascii"))
        first = False
    if binary is not None:
        binary.flush()
    out.write("]}\n")
