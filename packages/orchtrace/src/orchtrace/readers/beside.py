"""Where the files an export names beside itself are read from, set by whoever knows the
folder the export came from (orchtrace import, orchtrace table); unset, none is found."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

# A file named by a plain name beside the export (an ATIF trajectory's sub-trajectories): a
# function from that name to the file's bytes (None: no such file).
BESIDE: ContextVar[Callable[[str], bytes | None] | None] = ContextVar("beside", default=None)
# The same for a relative path below that folder (a Claude Code session's subagents/ folder)
BELOW: ContextVar[Callable[[str], bytes | None] | None] = ContextVar("below", default=None)
