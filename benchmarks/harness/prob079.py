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


def excluded_diagonals(param: str) -> list[int]:
    """CSPLib's parameter text as the numbers its converter reads: n, count, (diagonal, kind) pairs."""
    n = int(re.search(r"n =\s*(\d+)", param).group(1))
    diags = ast.literal_eval(re.search(r"diags =\s*(\[.*\])", param, re.S).group(1))
    return [n, len(diags), *(x for pair in diags for x in pair)]


def convert(prob079: pathlib.Path, numbers: list[int], diagonals: int) -> tuple[int, list[tuple[int, int]]]:
    out = subprocess.run([sys.executable, "-c", CONVERT, str(prob079 / "models"), str(diagonals)],
                         input=repr(numbers), capture_output=True, text=True, timeout=120, check=True).stdout
    n = int(re.search(r"letting n =\s*(\d+)", out).group(1))
    init = ast.literal_eval(re.search(r"letting init =\s*(\[.*\])", out, re.S).group(1))
    return n, [(int(r), int(c)) for r, c in init]


GENERATOR = "data/queens-diag-gen.py"
# The second argument of CSPLib's generator in every file of its data (diag-S-4-SEED.param).
MIN_IN_FILE = 4
SOURCES = ("csplib", "generator")


def generated_param(prob079: pathlib.Path, size: int, seed: int) -> str:
    """The parameter text CSPLib's generator prints for a board of ``size`` and ``seed``."""
    script = prob079 / GENERATOR
    if not script.is_file():
        raise ValueError(f"{prob079} has no {GENERATOR}: not a copy of CSPLib's Problems/prob079")
    return subprocess.run([sys.executable, str(script), str(size), str(MIN_IN_FILE), str(seed)],
                          capture_output=True, text=True, timeout=120, check=True).stdout


def published_params(prob079: pathlib.Path, size: int, count: int) -> list[tuple[str, str]]:
    """The first ``count`` parameter files (by name) of CSPLib's ``data/diag-SIZE.tar.gz``."""
    archive_path = prob079 / "data" / f"diag-{size}.tar.gz"
    if not archive_path.is_file():
        raise ValueError(f"no {archive_path}: CSPLib publishes excluded-diagonals files for n = 8..21 only; "
                         "take a larger board from its generator")
    with tarfile.open(archive_path) as archive:
        members = sorted((m for m in archive.getmembers() if m.name.endswith(".param")),
                         key=lambda m: m.name)[:count]
        return [(pathlib.Path(m.name).stem, archive.extractfile(m).read().decode()) for m in members]


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
        numbers = excluded_diagonals(param)
        if numbers[1] < excluded:
            raise ValueError(f"{name} lists {numbers[1]} diagonals, fewer than the {excluded} asked for")
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
            n, queens = convert(prob079, excluded_diagonals(param), size - below_n)
            found.append({"name": f"{name}-{size - below_n}", "size": size, "n": n, "queens": queens})
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("".join(json.dumps(i) + "\n" for i in found))
    return found


