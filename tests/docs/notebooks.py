"""The notebooks of docs/notebooks/, executed: ``python tests/docs/notebooks.py`` runs each (nbclient, the
``python3`` kernel of this environment) and prints the seconds it took; ``tests/docs/test_notebooks.py``
runs them in the test suite. Each runs in a temporary folder, as a reader's fresh kernel would; the
repository keeps them without outputs (the site executes them when it is built)."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[2] / "docs" / "notebooks"
# Seconds a cell may take before the run is stopped as hung.
CELL_TIMEOUT_S = 300


def notebooks() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def execute(path: Path) -> tuple[object, float]:
    """The notebook executed (its cells' outputs filled in) and the seconds it took; a cell that raises
    raises ``nbclient.exceptions.CellExecutionError`` naming it."""
    import nbformat
    from nbclient import NotebookClient

    book = nbformat.read(path, as_version=4)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="nqcsp-notebook-") as folder:
        NotebookClient(book, timeout=CELL_TIMEOUT_S, kernel_name="python3",
                       resources={"metadata": {"path": folder}}).execute()
    return book, time.perf_counter() - started


def main() -> int:
    for path in notebooks():
        _, seconds = execute(path)
        print(f"{path.name}: {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
