"""The stopwatch of the time-limit tests (tests/timing.py): the wall clock less the time the process waited
for a CPU, so that a busy machine does not fail a promise the code kept, and work past a limit still does."""

import contextlib
import os
import subprocess
import sys
import time

import pytest
from timing import ChildStopwatch, Stopwatch

needs_schedstat = pytest.mark.skipif(
    not os.path.exists("/proc/self/task") or not hasattr(os, "sched_setaffinity"),
    reason="run-queue waits are read from Linux's schedstat")


def _spin(seconds: float) -> None:
    """Work on the CPU for ``seconds`` of this thread's CPU time."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


_HOG = "import time\nend = time.time() + 30\nwhile time.time() < end: pass\n"


@contextlib.contextmanager
def _one_busy_cpu():
    """This process pinned to one CPU with a busy process beside it (each gets about half of it); yields
    the CPU, for a child to be pinned there too."""
    before = os.sched_getaffinity(0)
    cpu = min(before)
    hog = subprocess.Popen([sys.executable, "-c", _HOG], preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
    try:
        os.sched_setaffinity(0, {cpu})
        time.sleep(0.2)                         # the hog is running
        yield cpu
    finally:
        os.sched_setaffinity(0, before)
        hog.kill()
        hog.wait()


@needs_schedstat
def test_time_spent_waiting_for_a_cpu_is_not_counted_and_work_is():
    with _one_busy_cpu(), Stopwatch() as watch:
        _spin(0.6)
    assert watch.wall >= 0.9, watch             # the CPU was shared: the wall clock shows it
    assert 0.5 <= watch.seconds <= 0.9, watch   # the work itself is what is counted


def test_sleeping_is_not_waiting_for_a_cpu():
    with Stopwatch() as watch:
        time.sleep(0.3)
    # At most the moment between waking and running is waited (on a busy machine, some hundredths).
    assert watch.wall >= 0.3 and watch.waited <= watch.wall - 0.3 + 0.01, watch


@needs_schedstat
def test_a_child_is_timed_to_its_end_less_its_wait_for_a_cpu():
    with _one_busy_cpu() as cpu:
        child = subprocess.Popen([sys.executable, "-c", "import time\nend = time.thread_time() + 0.6\n"
                                  "while time.thread_time() < end: pass\n"],
                                 preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
        watch = ChildStopwatch(child.pid).start()
        assert watch.wait(child, 30)
    assert watch.wall >= 0.9 and 0.5 <= watch.seconds <= watch.wall - 0.3, watch
