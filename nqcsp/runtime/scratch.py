"""Scratch files that go with the processes holding them, however they end.

A sweep shares a file with its workers (the class sweep's cover cache, the row sweep's witnesses when no
checkpoint keeps them). Where /proc shows this process's descriptors, the file has no name in any folder:
an anonymous memory file (Linux's memfd) when asked for memory, else a file in the temporary folder removed
at once. Other processes of the machine open it as ``/proc/PID/fd/FD`` while this one holds it, and a
sweep killed by SIGKILL leaves nothing behind: the file is freed with the last process holding it (the
sweep and its workers, which die with it). Elsewhere it is a named file in the temporary folder, which
``release`` removes when the sweep ends.
"""

from __future__ import annotations

import os
import tempfile


def process_file(name: str, size: int = 0, *, in_memory: bool = False) -> tuple[str, int] | None:
    """A scratch file of ``size`` zero bytes (reserved, not sparse: a page of a mapped file that its file
    system cannot supply when first written kills the process with SIGBUS, and a container's /dev/shm is
    64 MB), as (the path other processes open it by, the open descriptor that keeps it); None when nothing
    has room for it. ``in_memory``: a memfd first, else a file in the temporary folder. ``name`` shows in
    /proc (the memfd's) or in the temporary folder (the file's prefix)."""
    by_descriptor = f"/proc/{os.getpid()}/fd"
    named = not os.path.isdir(by_descriptor)
    for anonymous in (True, False):
        if anonymous and (not in_memory or named or not hasattr(os, "memfd_create")):
            continue
        path: str | None = None
        try:
            if anonymous:
                handle = os.memfd_create(name, os.MFD_CLOEXEC)
            else:
                handle, path = tempfile.mkstemp(prefix=f"{name}-")
        except OSError:
            continue
        if size:
            try:
                os.posix_fallocate(handle, 0, size)
            except OSError:
                os.close(handle)
                if path is not None:
                    os.unlink(path)
                continue
        if named and path is not None:
            return path, handle
        if path is not None:
            os.unlink(path)
        return f"{by_descriptor}/{handle}", handle
    return None


def release(path: str, handle: int) -> None:
    """Let go of what ``process_file`` gave: its descriptor closed, a named file removed."""
    os.close(handle)
    if not path.startswith("/proc/"):
        os.unlink(path)
