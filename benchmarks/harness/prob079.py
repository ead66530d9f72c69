"""CSPLib prob079's excluded-diagonals instances as completion problems, converted by CSPLib's own
``models/diagtoqueens.py`` in a subprocess (taken by path from a copy of ``Problems/prob079``: nothing of it
is in this repository), and cached as JSON lines. The field suite and the cost-of-the-guarantee study
(``python -m benchmarks certified``) both read them from here.
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


def instances(prob079: pathlib.Path, sizes: range, per_size: int, below_n: int,
              cache: pathlib.Path) -> list[dict]:
    if cache.exists():
        return [json.loads(line) for line in cache.read_text().splitlines()]
    found = []
    for size in sizes:
        with tarfile.open(prob079 / "data" / f"diag-{size}.tar.gz") as archive:
            members = sorted((m for m in archive.getmembers() if m.name.endswith(".param")),
                             key=lambda m: m.name)[:per_size]
            for member in members:
                param = archive.extractfile(member).read().decode()
                n, queens = convert(prob079, excluded_diagonals(param), size - below_n)
                found.append({"name": f"{pathlib.Path(member.name).stem}-{size - below_n}", "size": size,
                              "n": n, "queens": queens})
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("".join(json.dumps(i) + "\n" for i in found))
    return found


