"""Makes the standard streams safe to write before a command runs.

A stream the caller closed (`litcorpus check >&-`) is opened on the null device: what would
have been printed is discarded, as Python discards a print to a closed stream, the command's
exit status still says how it went, and no file the run opens can take the stream's number
(and receive what was meant for the terminal). A stream whose encoding cannot hold every
character (`PYTHONIOENCODING=ascii`) writes UTF-8, as click does for such a stream: every
format the tools print (JSON, CSV, BibTeX, Markdown) is UTF-8.
"""

from __future__ import annotations

import codecs
import os
import sys

_STREAMS = ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w"))


def standard_streams() -> None:
    """Reopen closed standard streams on the null device; make the others write UTF-8."""
    for fd, name, mode in _STREAMS:
        try:
            os.fstat(fd)
        except OSError:  # closed by the caller
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            setattr(sys, name, open(fd, mode, encoding="utf-8", closefd=False))  # noqa: SIM115
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None) or "utf-8"
        try:
            utf = codecs.lookup(encoding).name.startswith("utf")
        except LookupError:
            utf = False
        if not utf and hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8")
