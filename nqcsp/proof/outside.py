"""Checkers nqcsp did not write, given by path: a second opinion on an LRAT proof.

``cake_lpr`` (CakeML's LPR/LRAT checker, verified in HOL4 down to its machine code; build it from its public
repository with ``gcc -O2 basis_ffi.c cake_lpr.S -o cake_lpr``) reads nqcsp's binary and text LRAT as they
are. It is fed the canonical DIMACS text of the clauses nqcsp itself checks (``Cnf.dimacs``, never the
user's file) and a copy of the proof bytes nqcsp read, from a private temporary folder, in a process group
of its own that is killed at the deadline. It accepts only by printing ``s VERIFIED UNSAT`` and exiting 0.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import IO

from nqcsp.proof.dimacs import Cnf
from nqcsp.runtime.limits import Limits, OutOfTime, time_limit_reason

CHECKERS = ("cake_lpr",)
_ACCEPTED = b"s VERIFIED UNSAT"
# Bytes written to the temporary copy per call of write: bounded, whatever the proof's size.
_CHUNK = 1 << 24
# Bytes of the checker's output read at a time, and kept of a line.
_CHUNK_READ = 1 << 16
_LINE = 400


@dataclass(frozen=True)
class OutsideChecker:
    name: str
    path: str

    def __str__(self) -> str:
        return f"{self.name}={self.path}"


@dataclass(frozen=True)
class OutsideVerdict:
    ok: bool
    reason: str
    seconds: float


def outside_checker(text: str) -> OutsideChecker:
    """``NAME=PATH`` (NAME one of ``CHECKERS``) as a checker; ValueError naming what is wrong."""
    name, sep, path = text.partition("=")
    if not sep or not path:
        raise ValueError(f"an outside checker is NAME=PATH, got {text!r}")
    if name not in CHECKERS:
        raise ValueError(f"unknown outside checker {name!r}; known: {', '.join(CHECKERS)}")
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise ValueError(f"the {name} checker {path!r} is not an executable file")
    return OutsideChecker(name, os.path.abspath(path))


def check_outside(checker: OutsideChecker, cnf: Cnf, proof: bytes | bytearray | memoryview | mmap.mmap,
                  limits: Limits) -> OutsideVerdict:
    """Run ``checker`` on ``cnf`` (as canonical text) and ``proof``; OutOfTime("check") at the deadline."""
    with tempfile.TemporaryDirectory(prefix="nqcsp-outside-") as folder:
        formula_path = os.path.join(folder, "formula.cnf")
        proof_path = os.path.join(folder, "proof.lrat")
        with open(formula_path, "wb") as out:
            out.write(cnf.dimacs())
        with open(proof_path, "wb") as out:
            view = memoryview(proof)
            for at in range(0, len(view), _CHUNK):
                out.write(view[at:at + _CHUNK])
        started = time.perf_counter()
        process = subprocess.Popen([checker.path, formula_path, proof_path], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
        stdout, stderr = _Lines(process.stdout), _Lines(process.stderr)
        try:
            process.wait(timeout=limits.remaining())
        except subprocess.TimeoutExpired:
            stage = f"check ({checker.name})"
            raise OutOfTime("check", time_limit_reason(stage, limits.time_limit)) from None
        finally:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        # Its output is read to the end (a process it left running may hold the pipe: the deadline still
        # holds).
        if not (stdout.join(limits.remaining()) and stderr.join(limits.remaining())):
            stage = f"check ({checker.name}, its output)"
            raise OutOfTime("check", time_limit_reason(stage, limits.time_limit))
        seconds = time.perf_counter() - started
    if process.returncode == 0 and stdout.accepted:
        return OutsideVerdict(True, f"{checker.name}: {_ACCEPTED.decode()}", seconds)
    said = stderr.last or stdout.last
    last = said.decode("ascii", errors="replace") if said else "no output"
    return OutsideVerdict(False, f"{checker.name} rejected it (exit {process.returncode}): {last}", seconds)


class _Lines:
    """A checker's output stream read to its end on a thread, in bounded memory whatever it prints (a
    checker that wrote 200 MB took up to 1 GB when read whole): whether a line of it was exactly
    ``_ACCEPTED``, and its last line that is not blank (at most ``_LINE`` bytes of it)."""

    def __init__(self, stream: IO[bytes] | None) -> None:
        self.accepted = False
        self.last = b""
        self._thread = threading.Thread(target=self._read, args=(stream,), name="nqcsp-outside-output",
                                        daemon=True)
        self._thread.start()

    def _read(self, stream: IO[bytes] | None) -> None:
        if stream is None:
            return
        partial = b""
        with stream:
            while piece := stream.read(_CHUNK_READ):
                lines = (partial + piece).split(b"\n")
                partial = lines.pop()[-_LINE:]     # a longer line is no verdict, and only its end is kept
                self._take(lines)
        self._take([partial])

    def _take(self, lines: list[bytes]) -> None:
        for line in lines:
            line = line.strip()
            if line:
                self.accepted = self.accepted or line == _ACCEPTED
                self.last = line[-_LINE:]

    def join(self, timeout: float | None) -> bool:
        """Whether the stream was read to its end within ``timeout`` seconds (None: however long)."""
        self._thread.join(timeout)
        return not self._thread.is_alive()
