"""The one error every refusal and failed write raises: a stable code, a message and a hint."""

from __future__ import annotations

# Every code a refusal or a failed write can carry. Codes are stable: tests and tools match them.
CODES: dict[str, str] = {
    "output-refused": "The output would replace or enter something the tool did not write.",
    "output-missing-folder": "The folder that should hold the output does not exist.",
    "write-failed": "The system refused a write (permissions, a full disk, a read-only tree).",
    "locked": "Another run holds the lock on the corpus.",
    "journal-refused": "A journal names what its tool never writes, or does not match its files; "
    "nothing is removed.",
}


class OutputError(Exception):
    """An output that is refused, or that could not be written; nothing was changed."""

    def __init__(self, code: str, message: str, hint: str | None = None) -> None:
        if code not in CODES:
            raise ValueError(f"unregistered output code {code!r}")
        super().__init__(message)
        self.code, self.message, self.hint = code, message, hint

    def __str__(self) -> str:
        return f"{self.code}: {self.message}" + (f" ({self.hint})" if self.hint else "")


def os_failure(exc: OSError, path: object) -> OutputError:
    """A failed write as an OutputError naming the path and the system's reason."""
    where = exc.filename if exc.filename is not None else path
    return OutputError(
        "write-failed",
        f"cannot write {where}: {exc.strerror or exc}; nothing was changed",
    )
