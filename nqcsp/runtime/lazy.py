"""Importing heavy modules on first use, safely from many threads at once: the one place that does it.

``import nqcsp`` stays light because numba kernels, OR-Tools and PySAT are imported when first needed.
Python's import system lets a second thread see a module that a first thread is still executing (a
"partially initialized module" whose functions are not defined yet), and a numba module takes most of a
second to execute. So every lazy import of a kernel or backend module goes through ``load``, which
imports under one lock, and ``loaded`` answers only for modules that ``load`` finished.
"""

from __future__ import annotations

import importlib
import sys
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


# Seconds before a numba kernel's first call in a process, which no deadline can interrupt: importing
# numba and loading the cached kernel (0.5 to 0.9 s measured on the shared 2-core machine), or, numba
# imported already (another kernel ran), loading the cached kernel alone (0.02 to 0.05 s measured: qs4's
# and the queen-set kernels'), with margin.
NUMBA_AND_KERNEL_LOAD_S = 0.8
KERNEL_LOAD_S = 0.2


def kernel_startup_s(module: str, kernel: str) -> float:
    """Seconds before ``module.kernel`` (a numba dispatcher) can run in this process: 0 once a version is
    loaded here, ``KERNEL_LOAD_S`` when numba is imported (only the cached kernel to load), else
    ``NUMBA_AND_KERNEL_LOAD_S``. Compiling on a cold cache is ``nqcsp.runtime.jit.needs_compiling``'s."""
    found = loaded(module) or sys.modules.get(module)
    if getattr(getattr(found, kernel, None), "overloads", None):
        return 0.0
    return KERNEL_LOAD_S if "numba" in sys.modules else NUMBA_AND_KERNEL_LOAD_S


class MissingDependency(ImportError):
    """A backend or feature the caller named whose optional dependency is not installed here (a module or
    an executable); its message names what to install. Any other ImportError raised while solving is a
    bug, reported as one. The CLI reports it as bad input: one line, exit 2."""


def pip_extra(extra: str) -> str:
    """How a missing dependency's message says to install nqcsp's optional ``extra``."""
    return f"pip install 'nqcsp[{extra}]'"
