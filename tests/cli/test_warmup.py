"""``nqcsp warmup`` compiles every kernel ahead (issue 50): after it, on a cache it filled itself, no kernel
a command meets is left to compile, and the first commands wait for no compiler."""

import contextlib
import io
import os
import re
import subprocess
import sys

import pytest

from nqcsp.cli import cmd_warmup, main


def test_warmup_runs_and_says_how_many_kernels_are_ready():
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["warmup", "--no-progress"])
    assert code == 0, err.getvalue()
    own = [name for name, kernel in cmd_warmup.kernels() if not cmd_warmup.inlined(kernel)]
    ready = re.fullmatch(r"(\d+) numba kernels ready, \d+ of them compiled now, in [\d.]+ s "
                         r"\((\d+) that only large studies use compile when first used\)\n", out.getvalue())
    assert ready is not None, out.getvalue()
    assert int(ready[1]) + int(ready[2]) == len(own) and int(ready[2]) <= len(cmd_warmup.NOT_WARMED)


def test_the_kernel_list_finds_every_module_that_defines_kernels():
    # A new kernel module must be listed in KERNEL_MODULES, or warmup's check cannot see it.
    import pathlib

    root = pathlib.Path(cmd_warmup.__file__).resolve().parents[1]
    defining = {".".join(path.relative_to(root.parent).with_suffix("").parts)
                for path in root.rglob("*.py")
                if re.search(r"^@njit", path.read_text(), re.MULTILINE)}
    assert defining == set(cmd_warmup.KERNEL_MODULES)


@pytest.mark.slow
def test_after_warmup_on_a_cold_cache_only_the_named_kernels_are_left_to_compile(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-m", "nqcsp", "warmup"], capture_output=True, text=True, env=env,
                          timeout=900)
    assert done.returncode == 0 and " numba kernels ready, " in done.stdout, done.stderr
    listing = ("from nqcsp.cli import cmd_warmup as w; from nqcsp.runtime.jit import needs_compiling; "
               "print(' '.join(n for n, k in w.kernels() if not w.inlined(k) and needs_compiling(k)))")
    left = subprocess.run([sys.executable, "-c", listing], capture_output=True, text=True, env=env,
                          timeout=120, check=True).stdout.split()
    assert set(left) <= cmd_warmup.NOT_WARMED, set(left) - cmd_warmup.NOT_WARMED
    # The README's first commands then load what warmup compiled: no notice, on a terminal's stderr too.
    for argv, code in ((["solve", "8", "--queen", "0,3"], 0), (["solve", "6", "--queen", "0,0"], 1),
                       (["count", "8", "--queen", "0,3"], 0)):
        command = ("import sys; import nqcsp.runtime.jit as jit; jit._stderr_is_terminal = lambda: True; "
                   f"from nqcsp.cli import main; sys.exit(main({argv!r}))")
        run = subprocess.run([sys.executable, "-c", command], capture_output=True, text=True, env=env,
                             timeout=300)
        assert (run.returncode, run.stderr) == (code, ""), (argv, run.stderr)
