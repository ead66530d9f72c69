"""Paths from outside the process, checked once, and files written whole or not at all.

Every path a command writes goes through here: the checkpoint a sweep appends to, the directory of a
threshold's checkpoints, the proof directory, ``export -o``, ``threshold --evidence``. Each is refused as
bad input (ValueError naming the path and what is wrong) before any work: an empty path (it would mean the
current directory, or nothing at all), a directory where a file goes and a file where a directory goes, a
path under a file, a device or a pipe where a file is appended to, a symbolic link whose target is
missing. What the operating system refuses later (permissions, a full disk, ``/proc``) is a ValueError
naming the path too, never an OSError escaping as a bug.

A file written whole (``write_whole``) goes to a temporary file beside it and is renamed over the path once
complete, so that an interrupt or a crash leaves the old file or none, never a truncated one, and a
symbolic link at the path is replaced, never followed (unless asked: the user's own ``-o`` link is
followed to its target). A path that is a device or a pipe (``-o /dev/stdout``) cannot be replaced: it is
written in place.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import stat
import tempfile
from collections.abc import Iterator
from typing import BinaryIO


def _os_error(path: str | os.PathLike[str], what: str, exc: OSError) -> ValueError:
    return ValueError(f"cannot write {what} {str(path)!r}: {exc.strerror or exc}")


def as_path(path: object, what: str) -> pathlib.Path:
    """``path`` (str or os.PathLike) as a Path; an empty one, or one with a NUL byte, is refused."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what} must be a path, got {path!r} ({type(path).__name__})")
    text = os.fspath(path)
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a text path, got {path!r}")
    if not text:
        raise ValueError(f"{what} is an empty path: name a file or directory")
    if "\0" in text:
        raise ValueError(f"{what} {text!r} contains a NUL byte")
    return pathlib.Path(text)


def _info(path: pathlib.Path, what: str, follow: bool = True) -> os.stat_result | None:
    """The path's stat (None when nothing is there); a path under a file, or one too long, is refused."""
    try:
        return path.stat() if follow else path.lstat()
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise ValueError(f"{what} {str(path)!r} is under a file, not a directory") from None
    except OSError as exc:
        raise ValueError(f"cannot use {what} {str(path)!r}: {exc.strerror or exc}") from None


def _refuse_dangling(path: pathlib.Path, what: str) -> None:
    if _info(path, what) is None and _info(path, what, follow=False) is not None:
        raise ValueError(f"{what} {str(path)!r} is a symbolic link to {os.readlink(path)!r}, which does "
                         "not exist")


def _existing_parent(path: pathlib.Path, what: str) -> pathlib.Path:
    """The nearest ancestor of ``path`` that exists: it must be a directory."""
    parent = path.absolute().parent
    while True:
        info = _info(parent, what)
        if info is not None:
            if not stat.S_ISDIR(info.st_mode):
                raise ValueError(f"{what} {str(path)!r} is under {str(parent)!r}, which is not a directory")
            return parent
        parent = parent.parent


def _probe_writable(folder: pathlib.Path, name: str, path: pathlib.Path, what: str) -> None:
    """Show at once that files can be made in ``folder`` by making and removing one (``name`` starts its
    name), so that a long computation does not end on a path it cannot write; ValueError naming ``path``."""
    try:
        handle, made = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".probe")
        os.close(handle)
        os.unlink(made)
    except OSError as exc:
        raise _os_error(path, what, exc) from None


def directory_to_write(path: object, what: str, *, probe: bool = False) -> pathlib.Path:
    """A directory nqcsp will write files into: an existing directory, or a path where one can be made
    (checked before any work; made by ``make_directory``). With ``probe``, the directory (or, not made
    yet, the one it will be made in) is shown writable at once (``/proc/self`` is a directory, but
    nothing can be written there)."""
    folder = as_path(path, what)
    _refuse_dangling(folder, what)
    info = _info(folder, what)
    if info is None:
        parent = _existing_parent(folder, what)
        if probe:
            _probe_writable(parent, "nqcsp", folder, what)
    elif not stat.S_ISDIR(info.st_mode):
        raise ValueError(f"{what} {str(folder)!r} is not a directory")
    elif probe:
        _probe_writable(folder, "nqcsp", folder, what)
    return folder


def make_directory(path: object, what: str) -> pathlib.Path:
    """``directory_to_write``, then made (with its parents) when missing."""
    folder = directory_to_write(path, what)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _os_error(folder, what, exc) from None
    return folder


def file_to_append(path: object, what: str) -> pathlib.Path:
    """A file nqcsp appends records to and reads back (a checkpoint): missing, or a regular file (a
    symbolic link to one included). A directory, a device (``/dev/null``), a pipe, or a dangling link is
    refused; missing parent directories are made."""
    file = as_path(path, what)
    _refuse_dangling(file, what)
    info = _info(file, what)
    if info is None:
        make_directory(file.parent, what)
    elif stat.S_ISDIR(info.st_mode):
        raise ValueError(f"{what} {str(file)!r} is a directory, not a file")
    elif not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{what} {str(file)!r} is not a regular file (a device, a pipe or a socket)")
    return file


def file_to_write(path: object, what: str, *, probe: bool = False) -> pathlib.Path:
    """A file nqcsp will write whole (``write_whole``): not a directory, in an existing directory. With
    ``probe``, that directory is shown writable at once by making and removing a file in it, so that a
    long computation does not end on a path it cannot write."""
    file = as_path(path, what)
    info = _info(file, what)
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise ValueError(f"{what} {str(file)!r} is a directory, not a file")
    folder = file.absolute().parent
    folder_info = _info(folder, what)
    if folder_info is None:
        raise ValueError(f"{what} {str(file)!r}: the directory {str(folder)!r} does not exist")
    if not stat.S_ISDIR(folder_info.st_mode):
        raise ValueError(f"{what} {str(file)!r} is under {str(folder)!r}, which is not a directory")
    if probe and (info is None or stat.S_ISREG(info.st_mode)):
        _probe_writable(folder, file.name, file, what)
    return file


@contextlib.contextmanager
def write_whole(path: object, what: str, *, follow_link: bool = False) -> Iterator[BinaryIO]:
    """A binary file at ``path`` written whole or not at all (see the module's doc): the bytes written to
    the handle go to a temporary file in the same directory, renamed over ``path`` when the block ends
    without an exception; on any exception, Ctrl-C included, the temporary file is removed and ``path`` is
    left as it was. A symbolic link at ``path`` is replaced, or with ``follow_link`` its target written
    (the user's own ``-o link``). A device or a pipe is written in place."""
    file = file_to_write(path, what)
    target = _info(file, what) if follow_link else _info(file, what, follow=False)
    if target is not None and not stat.S_ISREG(target.st_mode) and not stat.S_ISLNK(target.st_mode):
        try:
            with open(file, "wb") as handle:
                yield handle
        except BrokenPipeError:
            raise           # the reader went away: the command's own quiet ending, not bad input
        except OSError as exc:
            raise _os_error(file, what, exc) from None
        return
    if follow_link and file.is_symlink():
        file = pathlib.Path(os.path.realpath(file))
    try:
        descriptor, temporary = tempfile.mkstemp(dir=file.absolute().parent, prefix=f".{file.name}.",
                                                 suffix=".part")
    except OSError as exc:
        raise _os_error(file, what, exc) from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            yield handle
            handle.flush()
            # mkstemp makes the file readable by its owner alone; a file written whole gets the mode any
            # file the user makes gets (0666 less the umask), as open() would have given it.
            os.fchmod(handle.fileno(), 0o666 & ~_umask())
        os.replace(temporary, file)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise _os_error(file, what, exc) from None
        raise


def _umask() -> int:
    # The umask can only be read by setting it: set and restored at once.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def remove_owned(folder: pathlib.Path, names: tuple[str, ...], what: str) -> None:
    """Remove the files ``names`` from ``folder`` (files nqcsp itself writes there, left by an earlier
    run), so that none is taken for part of what this run wrote. A symbolic link is removed, never its
    target; a directory of that name is refused."""
    for name in names:
        path = folder / name
        info = _info(path, what, follow=False)
        if info is None:
            continue
        if stat.S_ISDIR(info.st_mode):
            raise ValueError(f"{what} {str(folder)!r} holds a directory {name!r} where nqcsp writes a file")
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise _os_error(path, what, exc) from None
