"""The first run says what it is doing: while numba compiles a kernel (its cache has no copy), one line on
stderr says so, once per process, where stderr is a terminal; a warm cache, a pipe or a log never sees it,
and stdout stays the answer (issue 50)."""

import os
import subprocess
import sys

import numpy as np

import nqcsp.runtime.jit as jit

# A kernel of its own, cached under a folder of the test's, so that the first process compiles it and the
# second loads numba's copy; stderr taken for a terminal, as a person's would be.
KERNEL = "from nqcsp.runtime.jit import njit\n\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n"
PROGRAM = ("import sys; sys.path.insert(0, sys.argv[1]); import nqcsp.runtime.jit as jit; "
           "jit._stderr_is_terminal = lambda: sys.argv[2] == 'terminal'; import cold_kernel; "
           "print(cold_kernel.twice(21)); print(cold_kernel.twice(4))")


def run(tmp_path, stderr):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-c", PROGRAM, str(tmp_path), stderr], capture_output=True,
                          text=True, env=env, timeout=120, check=True)


def test_the_notice_is_one_line_on_stderr_while_compiling_and_absent_once_cached(tmp_path):
    (tmp_path / "cold_kernel.py").write_text(KERNEL)
    first = run(tmp_path, "terminal")
    assert (first.stdout, first.stderr) == ("42\n8\n", jit.COMPILE_NOTICE + "\n")
    again = run(tmp_path, "terminal")
    assert (again.stdout, again.stderr) == ("42\n8\n", "")


def test_no_notice_where_stderr_is_not_a_terminal(tmp_path):
    (tmp_path / "cold_kernel.py").write_text(KERNEL)
    first = run(tmp_path, "pipe")
    assert (first.stdout, first.stderr) == ("42\n8\n", "")


def test_the_notice_names_the_warmup_command_and_shows_once(monkeypatch, capsys):
    monkeypatch.setattr(jit._NOTICE, "shown", False)
    monkeypatch.setattr(jit, "_stderr_is_terminal", lambda: True)

    @jit.njit  # not cached: it compiles in this process whatever the cache holds
    def plus_one(values):
        return values + 1

    assert plus_one(np.arange(3)).tolist() == [1, 2, 3]
    assert plus_one(np.arange(3.0)).tolist() == [1.0, 2.0, 3.0]   # a second signature compiles again
    err = capsys.readouterr().err
    assert err == jit.COMPILE_NOTICE + "\n" and "nqcsp warmup" in err
