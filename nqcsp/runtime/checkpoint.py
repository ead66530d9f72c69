"""Checkpoints of long runs as JSON lines: a header naming the run, then one line per finished task.

A task's line is written, flushed and synced before the task counts, so an interrupt or a crash loses at
most the tasks that were running; a resumed run skips every task whose line is there and reads its result
back, so nothing is counted twice. A half-written last line (a crash mid-write) is cut off on resume.

A checkpoint is input, like any file a user hands over: this module checks its form (the path is a regular
file or none, every line a JSON object, the header this run's, every other line a ``"task"`` named once),
and refuses anything else as bad input naming the file and the line. What a task's line *says* is for its
owner to check again before it counts (``nqcsp.studies.queen_sets`` recomputes every record from its task
and its witnesses): nothing read back is believed.
"""

from __future__ import annotations

import json
import os
from typing import Any

from nqcsp.runtime.limits import as_memory_limit, format_bytes
from nqcsp.runtime.paths import file_to_append
from nqcsp.runtime.values import Fields, JsonSyntaxError, parse_json


class Checkpoint:
    """Finished tasks of one run (``done``: task id -> its record), appended to as tasks finish. An
    existing file is read back within ``memory`` bytes (default: the memory available): its size, and
    each line's objects before that line is parsed."""

    def __init__(self, path: str | os.PathLike[str], header: dict[str, Any],
                 memory: int | None = None) -> None:
        self.path = file_to_append(path, "checkpoint")
        self.header = header
        self.memory = as_memory_limit(memory)
        self.done: dict[str, dict[str, Any]] = {}
        self.line_of: dict[str, int] = {}
        try:
            existing = self.path.stat().st_size
        except FileNotFoundError:
            existing = 0
        except OSError as exc:
            raise self._os_error(exc) from None
        if existing:
            self._load(existing)
        else:
            self._append({"header": header})

    def where(self, task: str) -> str:
        """Where the record of ``task`` was read: the file and its line, for messages."""
        return f"checkpoint {str(self.path)!r} line {self.line_of.get(task, '?')}"

    def _os_error(self, exc: OSError) -> ValueError:
        return ValueError(f"cannot use checkpoint {str(self.path)!r}: {exc.strerror or exc}")

    def _load(self, size: int) -> None:
        # The file, then its lines one at a time: each line's bytes and the objects parsed from it.
        if 2 * size > self.memory:
            raise ValueError(f"checkpoint {str(self.path)!r} holds {format_bytes(size)}, more than the "
                             f"memory limit of {format_bytes(self.memory)} lets it read")
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            raise self._os_error(exc) from None
        lines = data.split(b"\n")
        good = 0          # bytes of complete, parsable lines
        records: list[tuple[int, Any]] = []
        for number, line in enumerate(lines, 1):
            if not line.strip():
                good += len(line) + 1
                continue
            where = f"checkpoint {str(self.path)!r} line {number}"
            try:
                record = parse_json(line, where, self.memory, 2 * len(data))
            except JsonSyntaxError:
                if all(not rest.strip() for rest in lines[number:]):
                    break       # the torn last line of a crash: dropped, its task runs again
                raise
            records.append((number, record))
            good += len(line) + 1
        if not records:
            raise ValueError(f"checkpoint {str(self.path)!r} holds no line that is whole (or is not a "
                             f"checkpoint): this run's header is {json.dumps(self.header)}")
        # The first line is the header and nothing else; a header with a field more or less than this
        # run's is another run's (compared whole: every field of it names the question the tasks answer).
        number, first = records[0]
        found = Fields(first, f"checkpoint {str(self.path)!r} line {number}").keys(("header",)).data["header"]
        if found != self.header:
            raise ValueError(f"checkpoint {str(self.path)!r} belongs to another run: its header (line "
                             f"{number}) is {json.dumps(found, default=str)[:200]}, this run's is "
                             f"{json.dumps(self.header)}{_differs(found, self.header)}")
        for number, record in records[1:]:
            task = Fields(record, f"checkpoint {str(self.path)!r} line {number}").text("task")
            if task in self.done:
                raise ValueError(f"checkpoint {str(self.path)!r} line {number}: task {task!r} is recorded "
                                 f"twice (first on line {self.line_of[task]})")
            self.done[task] = record
            self.line_of[task] = number
        if good < len(data):
            try:
                with open(self.path, "r+b") as handle:
                    handle.truncate(min(good, len(data)))
            except OSError as exc:
                raise self._os_error(exc) from None

    def _append(self, record: dict[str, Any]) -> None:
        try:
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(record, separators=(",", ":"), allow_nan=False) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise self._os_error(exc) from None

    def record(self, task: str, record: dict[str, Any]) -> None:
        """Keep a finished task (a second record of the same task is ignored)."""
        if task in self.done:
            return
        record = {"task": task, **record}
        self._append(record)
        self.done[task] = record


def _differs(found: object, header: dict[str, Any]) -> str:
    """The first field in which another run's header differs from this run's, for the message."""
    if not isinstance(found, dict):
        return ""
    for key in header:
        if key not in found:
            return f" (it has no field {key!r})"
        if found[key] != header[key]:
            return f" (its {key!r} is {json.dumps(found[key], default=str)[:60]}, this run's " \
                   f"{json.dumps(header[key], default=str)[:60]})"
    extra = [key for key in found if key not in header]
    return f" (its field {extra[0]!r} is not this run's)" if extra else ""
