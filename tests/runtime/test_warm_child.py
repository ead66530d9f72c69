"""The warm-child helper: a child asked with a deadline, killed with its group, described when it crashes,
and living as long as the process that owns it, whichever thread started it; a process pool likewise."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from nqcsp.runtime.parallel import ProcessPool, iter_outcomes
from nqcsp.runtime.warm_child import ChildCrashed, WarmChild, run_on_lasting_thread

# A child on the helper's child side: tied to its parent, answers on the answer channel, and does as told.
ECHO_CHILD = textwrap.dedent("""
    import json, os, sys, time
    from nqcsp.runtime.warm_child import answer_channel, die_with_parent
    die_with_parent()
    answers = answer_channel()
    print("a banner on stdout, which must not reach the owner")
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("sleep"):
            time.sleep(message["sleep"])
        if message.get("exit") is not None:
            print("about to exit", file=sys.stderr, flush=True)
            os._exit(message["exit"])
        if message.get("garbage"):
            answers.write("[1, 2]\\n")
        else:
            answers.write(json.dumps({"echo": message, "pid": os.getpid()}) + "\\n")
        answers.flush()
""")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


@pytest.fixture
def echo(tmp_path):
    script = tmp_path / "echo_child.py"
    script.write_text(ECHO_CHILD)
    started: list[WarmChild] = []

    def start() -> WarmChild:
        child = WarmChild.start([sys.executable, str(script)], name="the echo child")
        started.append(child)
        return child

    yield start
    for child in started:
        child.close()


def test_a_child_answers_json_lines_and_its_stdout_noise_stays_out(echo):
    child = echo()
    answer = child.ask({"x": 1}, time.perf_counter() + 60)
    assert answer is not None and answer["echo"] == {"x": 1} and answer["pid"] == child.pid
    assert child.ask({"x": 2}, None)["echo"] == {"x": 2}


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads process states from /proc")
def test_a_child_started_by_a_thread_that_ended_lives_on(echo):
    # Linux's parent-death signal follows the thread that forked the child: one started by a thread that
    # then ended was killed at once, though its owner process lived on.
    children: list[WarmChild] = []
    thread = threading.Thread(target=lambda: children.append(echo()))
    thread.start()
    thread.join()
    child = children[0]
    assert child.ask({"x": 1}, time.perf_counter() + 60) is not None  # armed: it said ready
    time.sleep(0.5)
    assert _alive(child.pid)
    assert child.ask({"x": 3}, time.perf_counter() + 60)["echo"] == {"x": 3}


def test_at_the_deadline_the_whole_group_is_killed_and_none_returned(echo):
    child = echo()
    assert child.ask({"sleep": 60}, time.perf_counter() + 0.3) is None
    assert not child.alive()
    with pytest.raises(ProcessLookupError):
        os.killpg(child.pid, 0)


def test_a_killed_child_is_never_written_to(echo):
    child = echo()
    child.kill()
    # Not "ValueError: write to closed file": a crash report naming the child.
    with pytest.raises(ChildCrashed, match="the echo child crashed: its process killed by signal 9"):
        child.send({"x": 1})


def test_a_child_that_exits_is_described_with_its_code_and_stderr(echo):
    child = echo()
    with pytest.raises(ChildCrashed) as crashed:
        child.ask({"exit": 3}, time.perf_counter() + 60)
    crash = crashed.value.crash
    # The banner printed on stdout went to stderr, not among the answers.
    said = "a banner on stdout, which must not reach the owner about to exit"
    assert crash.code == 3 and crash.stderr_tail == said
    assert str(crashed.value) == f"the echo child crashed: its process exited with code 3; it said: {said}"
    assert crash.record() == {"status": "CRASH", "error": str(crashed.value)}


def test_an_answer_that_is_not_a_json_object_is_a_crash_and_the_child_killed(echo):
    child = echo()
    with pytest.raises(ChildCrashed, match=r"the echo child answered b'\[1, 2\]', not a JSON object"):
        child.ask({"garbage": True}, time.perf_counter() + 60)
    assert not child.alive()


OWNER = textwrap.dedent("""
    import sys, threading, time
    from nqcsp.runtime.warm_child import WarmChild
    children = []
    thread = threading.Thread(target=lambda: children.append(WarmChild.start([sys.executable, sys.argv[1]],
                                                                             name="echo")))
    thread.start()
    thread.join()
    assert children[0].ask({"x": 1}, time.perf_counter() + 60) is not None
    # Busy, not reading its stdin: EOF cannot end it, only the kernel's signal (or its parent watch).
    children[0].send({"sleep": 60})
    print(children[0].pid, flush=True)
    time.sleep(120)
""")


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads process states from /proc")
def test_a_child_dies_with_its_owner_killed_by_sigkill(tmp_path):
    script = tmp_path / "echo_child.py"
    script.write_text(ECHO_CHILD)
    owner = subprocess.Popen([sys.executable, "-c", OWNER, str(script)], stdout=subprocess.PIPE, text=True)
    pid = None
    try:
        pid = int(owner.stdout.readline())
        assert _alive(pid)
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait(10)
        gone_by = time.monotonic() + 5
        while _alive(pid) and time.monotonic() < gone_by:
            time.sleep(0.05)
        assert not _alive(pid)
    finally:
        owner.kill()
        if pid is not None and _alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_the_lasting_thread_runs_the_call_and_hands_back_its_exception():
    ran_on: list[str] = []
    thread = threading.Thread(target=lambda: ran_on.append(run_on_lasting_thread(
        lambda: threading.current_thread().name)))
    thread.start()
    thread.join()
    assert ran_on == ["nqcsp-launcher"]
    assert run_on_lasting_thread(lambda: threading.current_thread().name) == threading.main_thread().name
    with pytest.raises(ZeroDivisionError):
        run_on_lasting_thread(lambda: 1 / 0)
    outcome: list[BaseException] = []

    def off_main() -> None:
        try:
            run_on_lasting_thread(json.loads, "{")
        except ValueError as exc:
            outcome.append(exc)

    thread = threading.Thread(target=off_main)
    thread.start()
    thread.join()
    assert len(outcome) == 1 and isinstance(outcome[0], json.JSONDecodeError)


def test_a_pool_first_used_by_a_thread_that_ended_keeps_its_workers():
    # Its workers were forked by that thread, and died with it: the next submit raised BrokenProcessPool.
    pool = ProcessPool(2)
    try:
        first: list[int] = []
        thread = threading.Thread(target=lambda: first.extend(
            o.value for _, o in iter_outcomes(abs, [(-1,), (-2,)], executor=pool)))
        thread.start()
        thread.join()
        assert sorted(first) == [1, 2]
        time.sleep(0.5)
        later = [outcome for _, outcome in iter_outcomes(abs, [(-3,), (-4,)], executor=pool)]
        assert sorted(o.value for o in later) == [3, 4] and all(o.attempts == 1 for o in later)
    finally:
        pool.kill()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_process_that_forgets_the_child_leaves_it_the_owners(echo):
    child = echo()
    assert child.ask({"x": 1}, time.perf_counter() + 60) is not None
    forked = os.fork()
    if forked == 0:  # holds nothing of the child once it forgot it, and lives on meanwhile
        child.forget()
        time.sleep(30)
        os._exit(0)
    try:
        assert child.ask({"x": 2}, time.perf_counter() + 60)["echo"] == {"x": 2}
        time.sleep(0.3)                     # the fork has forgotten the child
        # The owner lets go of its end: the child sees EOF and ends, though the fork is still alive.
        child.proc.stdin.close()
        assert child.proc.wait(10) == 0
    finally:
        os.kill(forked, signal.SIGKILL)
        os.waitpid(forked, 0)
