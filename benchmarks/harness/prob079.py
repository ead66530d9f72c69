"""CSPLib prob079's excluded-diagonals instances as completion problems, converted by CSPLib's own
``models/diagtoqueens.py`` in a subprocess (taken by path from a copy of ``Problems/prob079``: nothing of it
is in this repository), and cached as JSON lines. The field suite and the cost-of-the-guarantee study
(``python -m benchmarks certified``) both read them from here.

``phase_instances`` takes them at the phase transition: CSPLib's published files (n <= 21) or, beyond them,
new ones from CSPLib's own generator ``data/queens-diag-gen.py``, run by path with the settings of CSPLib's
data (every row and column keeps at least 4 cells no excluded diagonal covers).
"""

from __future__ import annotations

import ast
import json
import pathlib
import re
import subprocess
import sys
import tarfile

CONVERT = """
import ast, sys
sys.path.insert(0, sys.argv[1])
import diagtoqueens
numbers = ast.literal_eval(sys.stdin.read())
diagtoqueens.printqueensfromdiag(int(sys.argv[2]), numbers)
"""


# The largest board of CSPLib's data and generator runs is n = 30; past this a file is no excluded-diagonals
# instance of theirs, and its converted board (about 260 n rows) would be too big to build.
MAX_SIZE = 64


class Prob079Error(ValueError):
    """A copy of CSPLib's Problems/prob079 that cannot give the instances asked for: one line naming the
    file or the program of the copy (``python -m benchmarks run`` prints it and exits 2)."""


def excluded_diagonals(param: str, where: str = "a parameter text") -> list[int]:
    """CSPLib's parameter text as the numbers its converter reads: n, count, (diagonal, kind) pairs; a
    Prob079Error naming ``where`` when it is not one (no n, no list, a pair off the board)."""
    size = re.search(r"\bn =\s*(\d+)", param)
    listed = re.search(r"diags =\s*(\[.*\])", param, re.S)
    if size is None or listed is None:
        raise Prob079Error(f"{where}: no {'n =' if size is None else 'diags ='} line: not an "
                           "excluded-diagonals parameter file of CSPLib's")
    n = int(size.group(1))
    try:
        diags = ast.literal_eval(listed.group(1))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise Prob079Error(f"{where}: its diags list is not a list of numbers") from None
    if not 1 <= n <= MAX_SIZE:
        raise Prob079Error(f"{where}: n = {n}, not 1..{MAX_SIZE}")
    if not isinstance(diags, list) or not all(
            isinstance(pair, list) and len(pair) == 2 and all(type(x) is int for x in pair)
            and 0 <= pair[0] <= 2 * n - 2 and pair[1] in (0, 1) for pair in diags):
        raise Prob079Error(f"{where}: its diags are not [diagonal, kind] pairs with a diagonal of "
                           f"0..{2 * n - 2} and a kind of 0 or 1")
    return [n, len(diags), *(x for pair in diags for x in pair)]


def _run(prob079: pathlib.Path, program: str, argv: list[str], text: str = "") -> str:
    """The standard output of a program of the copy, or a Prob079Error naming it and its last words."""
    try:
        return subprocess.run(argv, input=text, capture_output=True, text=True, timeout=120,
                              check=True).stdout
    except subprocess.TimeoutExpired:
        raise Prob079Error(f"{prob079 / program}: gave no answer in 120 s") from None
    except subprocess.CalledProcessError as exc:
        last = (exc.stderr.strip().splitlines() or ["no message"])[-1]
        raise Prob079Error(f"{prob079 / program} failed (exit {exc.returncode}): {last[:200]}") from None


def convert(prob079: pathlib.Path, numbers: list[int], diagonals: int) -> tuple[int, list[tuple[int, int]]]:
    program = "models/diagtoqueens.py"
    out = _run(prob079, program, [sys.executable, "-c", CONVERT, str(prob079 / "models"), str(diagonals)],
               repr(numbers))
    size = re.search(r"letting n =\s*(\d+)", out)
    listed = re.search(r"letting init =\s*(\[.*\])", out, re.S)
    try:
        init = ast.literal_eval(listed.group(1)) if listed else None
        return int(size.group(1)), [(int(r), int(c)) for r, c in init]  # type: ignore[union-attr]
    except (AttributeError, TypeError, ValueError, SyntaxError, MemoryError, RecursionError):
        raise Prob079Error(f"{prob079 / program}: printed no 'letting n' and 'letting init' of a completion "
                           "problem") from None


GENERATOR = "data/queens-diag-gen.py"
# The second argument of CSPLib's generator in every file of its data (diag-S-4-SEED.param).
MIN_IN_FILE = 4
SOURCES = ("csplib", "generator")


def generated_param(prob079: pathlib.Path, size: int, seed: int) -> str:
    """The parameter text CSPLib's generator prints for a board of ``size`` and ``seed``."""
    script = prob079 / GENERATOR
    if not script.is_file():
        raise Prob079Error(f"{prob079} has no {GENERATOR}: not a copy of CSPLib's Problems/prob079")
    return _run(prob079, GENERATOR, [sys.executable, str(script), str(size), str(MIN_IN_FILE), str(seed)])


def published_params(prob079: pathlib.Path, size: int, count: int) -> list[tuple[str, str]]:
    """The first ``count`` parameter files (by name) of CSPLib's ``data/diag-SIZE.tar.gz``."""
    archive_path = prob079 / "data" / f"diag-{size}.tar.gz"
    if not archive_path.is_file():
        raise Prob079Error(f"no {archive_path} in this copy (CSPLib publishes excluded-diagonals files for "
                           "n = 8..21 only; take a larger board from its generator)")
    try:
        with tarfile.open(archive_path) as archive:
            members = sorted((m for m in archive.getmembers() if m.isfile() and m.name.endswith(".param")),
                             key=lambda m: m.name)[:count]
            # A parameter file of CSPLib's is a few hundred bytes: a larger member is no such file.
            if any(m.size > 1 << 20 for m in members):
                raise Prob079Error(f"{archive_path}: a .param member over 1 MiB is no parameter file")
            return [(pathlib.Path(m.name).stem,
                     archive.extractfile(m).read().decode("utf-8", "replace"))  # type: ignore[union-attr]
                    for m in members]
    except (tarfile.TarError, OSError, EOFError) as exc:
        why = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise Prob079Error(f"{archive_path}: not a readable tar.gz ({why})") from None


def phase_instances(prob079: pathlib.Path, size: int, excluded: int, count: int,
                    source: str) -> list[dict]:
    """``count`` excluded-diagonals problems on a ``size`` board with the first ``excluded`` diagonals of
    each parameter file excluded (CSPLib's rule: a prefix of the list, never another subset), as
    completion problems. ``source``: "csplib" (its published files) or "generator" (seeds 1..count)."""
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r} of excluded-diagonals problems; "
                         f"known: {', '.join(SOURCES)}")
    if source == "csplib":
        params = published_params(prob079, size, count)
    else:
        params = [(f"diag-{size}-{MIN_IN_FILE}-{seed}", generated_param(prob079, size, seed))
                  for seed in range(1, count + 1)]
    found = []
    for name, param in params:
        numbers = excluded_diagonals(param, name)
        if numbers[1] < excluded:
            raise Prob079Error(f"{name} lists {numbers[1]} diagonals, fewer than the {excluded} asked for")
        n, queens = convert(prob079, numbers, excluded)
        found.append({"name": f"{name}-{excluded}", "size": size, "n": n, "queens": queens})
    return found


def instances(prob079: pathlib.Path, sizes: range, per_size: int, below_n: int,
              cache: pathlib.Path) -> list[dict]:
    if cache.exists():
        return [json.loads(line) for line in cache.read_text().splitlines()]
    found = []
    for size in sizes:
        for name, param in published_params(prob079, size, per_size):
            n, queens = convert(prob079, excluded_diagonals(param, name), size - below_n)
            found.append({"name": f"{name}-{size - below_n}", "size": size, "n": n, "queens": queens})
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("".join(json.dumps(i) + "\n" for i in found))
    return found


