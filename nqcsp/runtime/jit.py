"""numba, imported the one way every kernel module imports it: ``from nqcsp.runtime.jit import njit``.

Two costs of a fresh process are cut here (``python -X importtime -m nqcsp count 10``):
- numba probes for BLAS when it first loads a kernel (``numba.np.arraymath``), and the probe imports
  ``scipy.linalg``, which pulls in f2py, unittest and charset_normalizer: about 0.35 s. No kernel of
  nqcsp uses linear algebra, so the probe is answered "no BLAS" by hiding ``scipy.linalg`` for the length
  of the import; anything imported later sees scipy as usual.
- the cyclic garbage collector runs dozens of passes over the hundreds of thousands of objects numba
  creates while it imports; it is paused meanwhile (nothing numba builds then is garbage).
"""

from __future__ import annotations

import gc
import sys
from typing import Any

_PROBED_BY_NUMBA = "scipy.linalg"


def _import_numba() -> None:
    if "numba.np.arraymath" in sys.modules:
        return
    collecting = gc.isenabled()
    hide = _PROBED_BY_NUMBA not in sys.modules
    gc.disable()
    if hide:
        sys.modules[_PROBED_BY_NUMBA] = None  # type: ignore[assignment]  # makes its import fail
    try:
        import numba
        import numba.np.arraymath  # noqa: F401 - the probe runs here, while scipy.linalg is hidden
    finally:
        if hide and sys.modules.get(_PROBED_BY_NUMBA, 0) is None:
            del sys.modules[_PROBED_BY_NUMBA]
        if collecting:
            gc.enable()


_import_numba()

from llvmlite import binding, ir  # noqa: E402
from numba import njit  # noqa: E402
from numba.core import cgutils, event, types  # noqa: E402
from numba.extending import intrinsic  # noqa: E402


def njit_unrefcounted(**options: Any) -> Any:
    """``njit`` for kernels that allocate nothing, compiled without numba's reference counting (the
    private ``_nrt`` option): otherwise every array bound to a name, each inlined helper's parameters
    included, costs two atomic operations, and in the search and check loops that was a third of the
    time."""
    return njit(_nrt=False, **options)  # type: ignore[call-overload]


_PREFETCH_NAME = "llvm.prefetch.p0" if binding.llvm_version_info[0] >= 15 else "llvm.prefetch.p0i8"


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the CPU to fetch array[index] into cache, without waiting: for loops of random lookups into
    tables far beyond the cache (qs4's greedy start, the verifier's bit marks), which latency, not
    bandwidth, bounds."""
    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        byte_ptr = builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(8).as_pointer())
        int32 = ir.IntType(32)
        signature_ir = ir.FunctionType(ir.VoidType(), [byte_ptr.type, int32, int32, int32])
        fn = cgutils.get_or_insert_function(builder.module, signature_ir, _PREFETCH_NAME)
        # read, high temporal locality, data cache
        builder.call(fn, [byte_ptr, ir.Constant(int32, 0), ir.Constant(int32, 3), ir.Constant(int32, 1)])
        return context.get_dummy_value()
    return types.void(array, types.int64), codegen


# Said once per process on stderr when numba starts compiling (its cache has no copy: a fresh install, or
# a source changed since): otherwise the first commands sit silent for seconds to tens of seconds (23.8 s
# for the first `nqcsp solve 6 --queen 0,0` on a fresh machine). Only when stderr is a terminal, where a
# person waits: a log, a pipe or a captured stream keeps what it had, one line of an error at most.
COMPILE_NOTICE = ("nqcsp: compiling numba kernels for their first use (once after installing; "
                  "'nqcsp warmup' compiles them all ahead)...")


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):   # no stream, or a closed one
        return False


class _CompileNotice(event.Listener):
    """numba's "numba:compile" event starts only on a cache miss, so a warm cache never shows it."""

    def __init__(self) -> None:
        self.shown = False

    def on_start(self, event: event.Event) -> None:
        if not self.shown and _stderr_is_terminal():
            self.shown = True
            sys.stderr.write(COMPILE_NOTICE + "\n")
            sys.stderr.flush()

    def on_end(self, event: event.Event) -> None:
        pass


_NOTICE = _CompileNotice()
event.register("numba:compile", _NOTICE)


def hold_compile_notice() -> None:
    """No compile notice in this process: for a command that shows its own progress (``nqcsp warmup``)."""
    _NOTICE.shown = True


def needs_compiling(kernel: Any) -> bool:
    """Whether calling ``kernel`` (a numba dispatcher called from Python) will compile it: no version is
    loaded in this process and numba's cache holds none for its current source (a fresh install, or a
    source changed since). Compiling takes seconds that no deadline can cut, so a stage with a time
    limit asks this first. A numba whose cache is laid out otherwise is taken as cached: the question
    is then never asked wrongly, only not asked."""
    if kernel.overloads:
        return False
    try:
        index = kernel._cache._cache_file._load_index()
    except AttributeError:
        return False
    return not index


__all__ = ["cgutils", "hold_compile_notice", "intrinsic", "needs_compiling", "njit", "njit_unrefcounted",
           "prefetch", "types"]
