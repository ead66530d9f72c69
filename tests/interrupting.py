"""Ctrl-C in tests: a child started with SIGINT at its default action, in its own process group, and
interrupted once it is ready; the group is killed whatever happens, so nothing outlives the test.

A child inherits an ignored SIGINT (pytest started from a script with `&`, some CI runners), and a Python
that starts with SIGINT ignored installs no KeyboardInterrupt handler: the signal would do nothing and the
test would wait for its deadline. Resetting it in the child makes the test independent of its parent.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_interruptible(args: list[str], **popen_kwargs) -> subprocess.Popen:
    """Popen with text pipes for stderr and (unless ``stdout`` is given) stdout, SIGINT at its default, in
    a new process group."""
    popen_kwargs.setdefault("stdout", subprocess.PIPE)
    return subprocess.Popen(args, start_new_session=True, preexec_fn=_default_sigint,
                            stderr=subprocess.PIPE, text=True, **popen_kwargs)


def interrupt_when(proc: subprocess.Popen, ready: Callable[[str, str], bool], deadline_s: float = 60, *,
                   to_group: bool = False, may_finish: bool = False) -> tuple[int, str, str, float]:
    """Send SIGINT once ``ready(stdout_so_far, stderr_so_far)`` (to the whole process group with
    ``to_group``, as a terminal does); return (rc, stdout, stderr, seconds from the signal to the exit).
    With ``may_finish`` a child that ends before it is ready is no failure (0 seconds, no signal sent).
    The child's process group is killed on the way out if it is still there."""
    out: list[str] = []
    err: list[str] = []

    def pump(stream, into):
        for chunk in iter(lambda: stream.read(1), ""):
            into.append(chunk)

    threads = [threading.Thread(target=pump, args=(stream, into), daemon=True)
               for stream, into in ((proc.stdout, out), (proc.stderr, err)) if stream is not None]
    for thread in threads:
        thread.start()
    start = time.monotonic()
    try:
        while not ready("".join(out), "".join(err)):
            if may_finish and proc.poll() is not None:
                break
            assert proc.poll() is None, "finished before it could be interrupted: " + "".join(err)[-500:]
            assert time.monotonic() - start < deadline_s, "".join(err)[-500:]
            time.sleep(0.05)
        sent = time.monotonic()
        if proc.poll() is None:
            if to_group:
                os.killpg(proc.pid, signal.SIGINT)
            else:
                proc.send_signal(signal.SIGINT)
        try:
            rc = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            for thread in threads:
                thread.join(5)
            raise AssertionError("still running 30 s after SIGINT: " + "".join(err)[-2000:]) from None
        took = time.monotonic() - sent
    finally:
        # The command's workers share its group: none may keep running after the test, pass or fail.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    for thread in threads:
        thread.join(5)
    return rc, "".join(out), "".join(err), took


def ready_after(seconds: float, ready: Callable[[str, str], bool]) -> Callable[[str, str], bool]:
    """``ready``, then ``seconds`` more: for a child that must be well inside its work when interrupted."""
    seen: list[float] = []

    def check(out: str, err: str) -> bool:
        if not seen and ready(out, err):
            seen.append(time.monotonic())
        return bool(seen) and time.monotonic() - seen[0] >= seconds

    return check
