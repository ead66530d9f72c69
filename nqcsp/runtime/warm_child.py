"""A warm child: a program started once and asked many times, one JSON line a question and one an answer,
killed with its whole process group when a deadline passes, and living no longer than the process that
owns it, whichever of its threads started it.

Why the last point takes a thread of its own. A child that must not outlive its caller asks Linux for
SIGKILL when its parent dies (``prctl(PR_SET_PDEATHSIG)``: the only guard that acts while a native engine
holds the interpreter's lock for its whole search, where no Python watcher can run). But Linux means the
parent *thread*: the signal fires when the thread that forked the child ends, though the process lives on.
A short-lived thread that warmed an engine took the engine with it, and the next caller's answer was
"crashed: killed by signal 9". So every child is forked by a thread that lives as long as the
process (``run_on_lasting_thread``): the main thread, or for a call from any other thread one launcher
thread, a daemon that waits for work until the process ends; the kernel's signal then means what was
meant, the process's end. The child also ends at EOF on stdin (the kernel closes the pipe's other end when
the process dies) and polls its parent's pid where the signal does not exist (``die_with_parent``).

The owner's side is ``WarmChild``: ``start``ed in a process group of its own, ``send`` / ``receive`` (or
``ask``, both) with a deadline in ``perf_counter`` seconds (the clock of ``nqcsp.runtime.limits``), ``kill``
(the group, then the pipes), and ``crash`` (how it ended, with the tail of its stderr) when it ends without
an answer. The child's side is ``die_with_parent`` and ``answer_channel``. A process forked from the owner
(``os.fork``) must leave the owner's children alone: ``WarmChild.forget`` lets go of its copies of the
pipes without killing anything.

May import: the standard library only.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any, TextIO, TypeVar

T = TypeVar("T")

# Linux's prctl option that sends the calling process a signal when its parent thread ends.
_PR_SET_PDEATHSIG = 1
# Seconds between two looks at whether the parent is still there, where the signal cannot be armed.
PARENT_POLL_S = 0.5
# The owner's pid, given to the child so that it can tell its parent died before it was armed.
PARENT_ENV = "NQCSP_WARM_PARENT"
# Characters of the child's stderr a crash report keeps.
STDERR_TAIL = 800
# Seconds ``kill`` waits for the killed child to be reaped.
REAP_S = 5.0


# ---------------------------------------------------------------- the launcher thread


class _Launcher:
    """One daemon thread per process that runs the calls handed to it, one at a time."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._loop, name="nqcsp-launcher", daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while True:
            self.jobs.get().run()


class _Job:
    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.value = self.fn(*self.args, **self.kwargs)
        except BaseException as exc:  # handed to the caller, whose exception it is
            self.error = exc
        self.done.set()

    def result(self) -> Any:
        # Only the main thread is interrupted by Ctrl-C, and it never waits here: the wait is whole.
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.value


_launcher: _Launcher | None = None
_launcher_lock = threading.Lock()


def _forget_launcher() -> None:
    # A forked process has none of its parent's threads: its first launch starts its own launcher.
    global _launcher, _launcher_lock
    _launcher, _launcher_lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_launcher)


def run_on_lasting_thread(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` run on a thread that lives as long as the process: the main thread when
    called there (Python ends the process from it), else this process's launcher thread. A child forked so
    (``subprocess.Popen``, a process pool's workers) has that thread for its parent, so ``die_with_parent``
    in it means the process's end, not the calling thread's. Returns what ``fn`` returns, raises what it
    raises."""
    global _launcher
    if threading.current_thread() is threading.main_thread():
        return fn(*args, **kwargs)
    with _launcher_lock:
        if _launcher is None:
            _launcher = _Launcher()
        launcher = _launcher
    job = _Job(fn, args, kwargs)
    launcher.jobs.put(job)
    value: T = job.result()
    return value


# ---------------------------------------------------------------- the child's side


def die_with_parent(parent: int | None = None) -> None:
    """In a child: end when the process that started it ends. ``parent``: its pid (default: the one the
    owner put in the environment, else ``os.getppid()``).

    On Linux the kernel sends SIGKILL when the parent thread ends (``PR_SET_PDEATHSIG``, effective even
    inside a native call that never returns to Python); that thread must live as long as its process,
    which ``WarmChild`` and ``nqcsp.runtime.parallel``'s pools see to (``run_on_lasting_thread``).
    Where the option does not exist, a daemon thread polls for the parent every ``PARENT_POLL_S``."""
    # Taken out of the environment, so that a program this child starts does not read it as its own.
    given = os.environ.pop(PARENT_ENV, "")
    if parent is None:
        parent = int(given) if given.isdigit() else os.getppid()
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            armed = ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
        if armed:
            if os.getppid() != parent:  # it died before the option took effect
                os._exit(1)
            return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, name="nqcsp-orphan-watch", daemon=True).start()


def answer_channel() -> TextIO:
    """In a child: the stream its answers go to (the stdout it was given), with file descriptor 1 and
    ``sys.stdout`` pointed at stderr, so that a library's banner or log on stdout never mixes with
    answers."""
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return answers


# ---------------------------------------------------------------- the owner's side


class ChildCrashed(RuntimeError):
    """The child ended, or broke the protocol, without the answer asked of it; ``crash`` says how."""

    def __init__(self, crash: Crash) -> None:
        super().__init__(crash.text)
        self.crash = crash


@dataclass(frozen=True)
class Crash:
    """How a child ended without an answer: its exit code (negative: the signal that killed it), what it
    said on stderr (the tail, one line), and the one-line text naming the child."""

    name: str
    code: int | None
    stderr_tail: str
    problem: str = ""

    @property
    def how(self) -> str:
        if self.code is None:
            return "did not end"
        return f"killed by signal {-self.code}" if self.code < 0 else f"exited with code {self.code}"

    @property
    def text(self) -> str:
        said = f"; it said: {self.stderr_tail}" if self.stderr_tail else ""
        if self.problem:
            return f"{self.name} {self.problem}{said}"
        return f"{self.name} crashed: its process {self.how}{said}"

    def record(self) -> dict[str, Any]:
        """The crash as a run's record: ``{"status": "CRASH", "error": text}`` (the benchmarks' form)."""
        return {"status": "CRASH", "error": self.text}


class WarmChild:
    """One child process speaking lines on its stdin and stdout, in a process group of its own, started
    on a thread that lives as long as the process. Not thread-safe: one caller at a time (the owner holds
    a lock around it)."""

    def __init__(self, proc: subprocess.Popen[bytes], stderr: IO[bytes], name: str) -> None:
        self.proc = proc
        self.stderr = stderr
        self.name = name
        self.owner = os.getpid()
        self.buffer = b""
        self.killed = False
        self.forgotten = False

    @classmethod
    def start(cls, argv: Sequence[str], *, name: str, env: Mapping[str, str] | None = None,
              cwd: str | os.PathLike[str] | None = None) -> WarmChild:
        """Start ``argv``; ``name`` names it in crash reports ("engine 'exact'"). Its stderr goes to a
        temporary file kept until ``kill``, which a crash report reads."""
        environment = dict(os.environ if env is None else env)
        environment[PARENT_ENV] = str(os.getpid())
        stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by kill, with the child)
        try:
            proc: subprocess.Popen[bytes] = run_on_lasting_thread(
                subprocess.Popen, list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                env=environment, cwd=cwd, start_new_session=True)
        except BaseException:
            stderr.close()
            raise
        return cls(proc, stderr, name)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return not self.killed and self.proc.poll() is None

    def send_line(self, line: bytes) -> None:
        """Write one line (a newline is added); ChildCrashed when the child is gone."""
        if self.killed or self.proc.stdin is None or self.proc.stdin.closed:
            # Never write to a child that was killed: its pipe is closed ("write to closed file").
            raise ChildCrashed(self.crash())
        try:
            self.proc.stdin.write(line + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            raise ChildCrashed(self.crash()) from None

    def send(self, message: Mapping[str, Any]) -> None:
        """Write one JSON object as a line."""
        self.send_line(json.dumps(message).encode())

    def receive_line(self, deadline: float | None) -> bytes | None:
        """The child's next line, without its newline; None when ``deadline`` (``perf_counter`` seconds)
        passed first. A child that ends first is ChildCrashed."""
        if self.killed or self.proc.stdout is None:
            raise ChildCrashed(self.crash())
        while b"\n" not in self.buffer:
            wait = None if deadline is None else deadline - time.perf_counter()
            if wait is not None and wait <= 0:
                return None
            with selectors.DefaultSelector() as selector:
                selector.register(self.proc.stdout, selectors.EVENT_READ)
                if not selector.select(None if wait is None else min(wait, threading.TIMEOUT_MAX)):
                    return None
            chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
            if not chunk:
                raise ChildCrashed(self.crash())
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def receive(self, deadline: float | None) -> dict[str, Any] | None:
        """The child's next line as a JSON object; None at the deadline; ChildCrashed when it ends or
        says something else (the child is then killed)."""
        line = self.receive_line(deadline)
        if line is None:
            return None
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            self.kill()
            raise ChildCrashed(self.crash(f"answered {line[:200]!r}, not a JSON object"))
        return message

    def ask(self, message: Mapping[str, Any], deadline: float | None) -> dict[str, Any] | None:
        """``send`` then ``receive``; at the deadline the child's group is killed and None returned."""
        self.send(message)
        answer = self.receive(deadline)
        if answer is None:
            self.kill()
        return answer

    def crash(self, problem: str = "") -> Crash:
        """How the child ended (waiting for it to end), or ``problem`` when it broke the protocol."""
        code: int | None
        try:
            code = self.proc.wait(timeout=REAP_S)
        except subprocess.TimeoutExpired:
            code = None
        tail = ""
        if not self.stderr.closed:
            self.stderr.seek(0)
            # One line: errors are reported as one line.
            tail = " ".join(self.stderr.read().decode(errors="replace").split())[-STDERR_TAIL:]
        return Crash(self.name, code, tail, problem)

    def kill(self) -> None:
        """SIGKILL to the child's whole group (whatever it started ends too), then its pipes closed."""
        if self.owner != os.getpid():
            self.forget()
            return
        if not self.killed:
            self.killed = True
            _kill_group(self.proc)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError, ValueError):
                    pipe.close()

    def close(self) -> None:
        """``kill``, and the stderr file closed (a crash report after it has no stderr to quote)."""
        self.kill()
        self.stderr.close()

    def forget(self) -> None:
        """In a process forked from the owner: let go of this process's copies of the pipes and kill
        nothing, so that the owner's child still sees EOF when the owner ends, and nothing here writes
        into the owner's conversation."""
        if self.forgotten:
            return
        self.forgotten = self.killed = True
        # Each descriptor is pointed at /dev/null rather than closed: its file object still owns the number
        # and closes it in its own time (closing it here, which flushes, could wait forever on a buffer lock
        # a thread of the owner held at the fork; closing the number alone would close it twice).
        devnull = os.open(os.devnull, os.O_RDWR)
        try:
            for stream in (self.proc.stdin, self.proc.stdout, self.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError, ValueError):
                        os.dup2(devnull, stream.fileno())
        finally:
            os.close(devnull)
        # Its Popen is the owner's to reap: this process must not wait for it.
        self.proc.returncode = 0


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=REAP_S)
