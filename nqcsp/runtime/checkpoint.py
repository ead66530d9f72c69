"""Checkpoints of long runs as JSON lines: a header naming the run, then one line per finished task.

A task's line is written, flushed and synced before the task counts, so an interrupt or a crash loses at
most the tasks that were running; a resumed run skips every task whose line is there and reads its result
back, so nothing is counted twice. A half-written last line (a crash mid-write) is cut off on resume.
"""

from __future__ import annotations

import json
import os
import pathlib
from typing import Any


class Checkpoint:
    """Finished tasks of one run (``done``: task id -> its record), appended to as tasks finish."""

    def __init__(self, path: str | os.PathLike[str], header: dict[str, Any]) -> None:
        self.path = pathlib.Path(path)
        self.header = header
        self.done: dict[str, dict[str, Any]] = {}
        if self.path.exists() and self.path.stat().st_size:
            self._load()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._append({"header": header})

    def _load(self) -> None:
        data = self.path.read_bytes()
        lines = data.split(b"\n")
        good = 0          # bytes of complete, parsable lines
        records = []
        for number, line in enumerate(lines):
            if not line.strip():
                good += len(line) + 1
                continue
            try:
                record = json.loads(line)
            except ValueError:
                if number == len(lines) - 1 or all(not rest.strip() for rest in lines[number + 1:]):
                    break       # the torn last line of a crash: dropped, its task runs again
                raise ValueError(f"checkpoint {str(self.path)!r}: line {number + 1} is not JSON") from None
            records.append(record)
            good += len(line) + 1
        if not records or records[0].get("header") != self.header:
            found = records[0].get("header") if records else None
            raise ValueError(f"checkpoint {str(self.path)!r} belongs to another run: its header is {found}, "
                             f"this run's is {self.header}")
        if good < len(data):
            with open(self.path, "r+b") as handle:
                handle.truncate(min(good, len(data)))
        for record in records[1:]:
            self.done.setdefault(str(record["task"]), record)

    def _append(self, record: dict[str, Any]) -> None:
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, separators=(",", ":")) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def record(self, task: str, record: dict[str, Any]) -> None:
        """Keep a finished task (a second record of the same task is ignored)."""
        if task in self.done:
            return
        record = {"task": task, **record}
        self._append(record)
        self.done[task] = record
