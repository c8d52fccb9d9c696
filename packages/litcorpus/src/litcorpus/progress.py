"""Progress of long runs: library functions take a PROGRESS callback, the CLI draws it.

`progress(stage, done, total)` reports that DONE of TOTAL items of STAGE are finished. The
terminal view redraws one line on stderr ("writing files 1,200/10,250"), at most ten times a
second, and exists only when stderr is a terminal: piped or logged runs stay quiet.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

Progress = Callable[[str, int, int], None]


class TerminalProgress:
    """One line on stderr, redrawn in place; each stage ends with its final count."""

    def __init__(self) -> None:
        self.stage, self.line, self.drawn = "", "", 0.0

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if stage == self.stage and done < total and now - self.drawn < 0.1:
            return
        if stage != self.stage:
            self.close()
            self.stage = stage
        self.drawn = now
        self.line = f"{stage} {done:,}/{total:,}"
        sys.stderr.write(f"\r\x1b[K{self.line}")
        sys.stderr.flush()

    def close(self) -> None:
        """End the current line (a finished stage stays visible above the next)."""
        if self.line:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self.line = ""


def terminal_progress() -> TerminalProgress | None:
    """A progress view when stderr is a terminal, else None."""
    return TerminalProgress() if sys.stderr.isatty() else None
