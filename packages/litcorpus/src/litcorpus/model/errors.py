"""Errors that end a command (other than validation problems, which are reported as data):
each carries a stable code, a message and a hint, and is printed as one line."""

from __future__ import annotations

# Every code a command error can carry. Codes are stable: tests and tools match on them.
CODES: dict[str, str] = {
    "bad-ref": "A git ref that does not name a commit, or that reads as an option.",
    "bibtex-invalid": "BibTeX input that cannot be parsed, or with a repeated key or field.",
    "add-refused": "An entry to add duplicates a record or another entry of the input.",
    "unreadable-input": "An input that is missing, not a regular file, too large or not UTF-8.",
    "arxiv-unavailable": "The arXiv API could not be reached or answered with no paper.",
    "arxiv-bad-answer": "The arXiv API answered with something other than the paper asked for.",
    "readme-markers": "README.md lacks the markers around its generated list.",
    "bad-as-of": "An --as-of that names no release, or a day before the first record.",
    "release-refused": "A release that cannot be made: the corpus has problems or it exists.",
    "import-empty": "A search export or reference file that holds no record.",
    "import-wrong-format": "An export given as one format that is another (or none).",
    "import-invalid": "An export that is malformed or cut short.",
    "import-duplicate-key": "An export that repeats a record's key, a JSON key or a column.",
    "search-refused": "A search that cannot be logged: a bad query, day or search log.",
    "search-unavailable": "A search service could not be reached, or answered too much.",
    "decision-refused": "A screening decision that cannot be taken, and why.",
    "audit-undeclared": "taxonomy.yaml declares no blind second screening to compare.",
    "out-of-memory": "The run needed more memory than the process may use.",
    "system-error": "The system refused to read or write a file the run needed.",
    "site-dependency-missing": "A script the site ships from npm is not installed (npm ci).",
    "init-refused": "A new survey cannot be written there: the folder holds files, or the name.",
}


class CommandError(Exception):
    """A command cannot do what was asked; nothing was written."""

    def __init__(
        self, code: str, message: str, hint: str | None = None, usage: bool = False
    ) -> None:
        if code not in CODES:
            raise ValueError(f"unregistered command error code {code!r}")
        super().__init__(message)
        self.code, self.message, self.hint = code, message, hint
        self.usage = usage  # the command was called wrongly: exit 2, not 1

    def __str__(self) -> str:
        return f"{self.code}: {self.message}" + (f" ({self.hint})" if self.hint else "")
