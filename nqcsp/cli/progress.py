"""The progress bar of long sweeps over sets of queens: tasks done with their rate and an ETA, classes so
far; on stderr, and only when stderr is a terminal (a log file gets no bar)."""

from __future__ import annotations

import sys
from typing import Any


class SweepBar:
    """``update(k, account)`` after each task of the sweep of k queens (a
    ``nqcsp.studies.queen_sets.SetSweep``)."""

    def __init__(self, enabled: bool, force: bool = False) -> None:
        self.enabled = enabled and (force or sys.stderr.isatty())
        self.bar: Any = None
        self.k: int | None = None

    def update(self, k: int, account: Any) -> None:
        if not self.enabled:
            return
        from tqdm import tqdm

        if self.bar is None or k != self.k:
            if self.bar is not None:
                self.bar.close()
            self.bar = tqdm(total=account.tasks, unit="task", desc=f"{k} queens", file=sys.stderr,
                            initial=account.resumed, dynamic_ncols=True)
            self.k = k
        self.bar.update(account.tasks_done - self.bar.n)
        self.bar.set_postfix(classes=account.classes, blocked=len(account.blocked), refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
