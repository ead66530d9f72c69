"""Importing heavy modules on first use, safely from many threads at once: the one place that does it.

``import nqcsp`` stays light because numba kernels, OR-Tools and PySAT are imported when first needed.
Python's import system lets a second thread see a module that a first thread is still executing (a
"partially initialized module" whose functions are not defined yet), and a numba module takes most of a
second to execute. So every lazy import of a kernel or backend module goes through ``load``, which
imports under one lock, and ``loaded`` answers only for modules that ``load`` finished.
"""

from __future__ import annotations

import importlib
import threading
from types import ModuleType

_LOCK = threading.RLock()
_FINISHED: dict[str, ModuleType] = {}


def load(module: str) -> ModuleType:
    """The module, imported once under the lock; other threads wait until it is complete."""
    found = _FINISHED.get(module)
    if found is not None:
        return found
    with _LOCK:
        found = _FINISHED.get(module)
        if found is None:
            found = importlib.import_module(module)
            _FINISHED[module] = found
        return found


def loaded(module: str) -> ModuleType | None:
    """The module when ``load`` has finished importing it, else None (never a half-executed one)."""
    return _FINISHED.get(module)


class MissingDependency(ImportError):
    """A backend or feature the caller named whose optional dependency is not installed here (a module or
    an executable). Any other ImportError raised while solving is a bug, reported as one."""
