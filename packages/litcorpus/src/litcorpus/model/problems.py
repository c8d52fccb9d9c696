"""Problems as data: what every validator returns, and how a report is printed.

A problem has a stable kebab-case `code`; the message says what is wrong and the hint what was
probably meant. A report is ok when it holds no errors (or, strictly, no problems at all).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning"]

# Every code a check can report, with what it means. Codes are stable: tools match on them.
CODES: dict[str, str] = {
    "unreadable-file": "The file could not be read.",
    "file-too-large": "The file exceeds the size limit for one record.",
    "binary-file": "The file holds NUL bytes.",
    "not-utf8": "The file is not valid UTF-8.",
    "bom": "The file starts with a byte-order mark.",
    "crlf": "The file uses CR or CRLF line endings.",
    "yaml-syntax": "The file is not well-formed YAML (tabs included).",
    "empty-file": "The file holds no YAML document.",
    "yaml-alias": "The file uses YAML anchors or aliases.",
    "yaml-tag": "The file uses an explicit YAML tag.",
    "too-deep": "The file nests deeper than a record can.",
    "duplicate-yaml-key": "A mapping holds the same key twice.",
    "symlink-outside": "A file the corpus reads is a link to a place outside the repository.",
    "unexpected-file": "A file in a record folder that is not a record; it is not read.",
    "wrong-extension": "A record file that ends in .yml rather than .yaml.",
    "not-a-mapping": "The document is not a mapping of fields.",
    "unknown-field": "A field (or id scheme) the taxonomy does not declare.",
    "missing-field": "A required field is absent or empty (required_when included).",
    "wrong-type": "A list where one value belongs, or the reverse, or text for a number.",
    "implicit-type": "An unquoted scalar that YAML would read as a bool, number or date.",
    "out-of-range": "A number outside its allowed range (a year in the future).",
    "bad-url": "A URL that is not one well-formed http(s) address.",
    "bad-date": "A date that is not a real YYYY-MM-DD day, or lies in the future.",
    "bad-author": "An author that is not 'Family, Given' or an organisation.",
    "bad-id": "An identifier that does not match its scheme's form.",
    "unknown-value": "A value that is not in the axis.",
    "retired-value": "A value the taxonomy has retired in favour of another.",
    "not-applicable": "An axis given for a record it does not apply to.",
    "duplicate-value": "The same value listed twice in a multi-valued axis.",
    "missing-evidence": "A tagged value (an orchestration sub-decision) with no evidence item.",
    "stray-evidence": "An evidence item for a value that no axis tags.",
    "unsafe-key": "A file name that is not a safe key.",
    "unsafe-id": "An id of taxonomy.yaml or claims.yaml that names a file and is not a safe slug.",
    "key-mismatch": "The key field differs from the file name.",
    "whitespace": "Text with leading or trailing spaces.",
    "control-character": "Text holding a control character (NUL, C0, C1), or a line break "
    "outside a text field.",
    "bidi-control": "Text holding a bidirectional embedding, override or isolate character.",
    "too-many-items": "A file holding more YAML items than any record needs.",
    "duplicate-key": "Two records share a key.",
    "duplicate-id": "Two records share an arXiv id, DOI or other identifier.",
    "near-duplicate-title": "Two records have near-identical titles.",
    "shared-address": "A record's url is another record's, or names another record's arXiv id.",
    "shared-id": "Two records share an identifier of a shared scheme (a code repository).",
    "retained-and-excluded": "The same work is both a retained entry and an exclusion.",
    "taxonomy-invalid": "taxonomy.yaml is malformed or refers to something undeclared.",
    "taxonomy-duplicate-id": "An axis, field or value id is declared twice.",
    "taxonomy-duplicate-code": "Two values of an axis share a code.",
    "taxonomy-duplicate-order": "Two values of an axis share an order.",
    "taxonomy-bad-redirect": "A retired value redirects to a value that is not current.",
    "claim-invalid": "A claim in claims.yaml is malformed or names an unknown entry.",
    "agreement-invalid": "A second reader's file that cannot be compared with the corpus.",
    "screening-audit-invalid": "A second screener's worksheet that cannot be compared with "
    "the corpus.",
    "prisma-mismatch": "The declared screening flow does not add up or differs from the records.",
    "release-invalid": "releases.yaml is malformed: a bad version or date, or out of order.",
    "search-invalid": "searches.yaml is malformed, or a record names a search it does not log.",
    "search-mismatch": "A logged search's counts do not add up with the records that name it.",
    "saved-search-invalid": "saved-searches.yaml is malformed, or names a service without an API.",
    "queue-invalid": "The screening queue (screening/*.jsonl) holds a malformed record.",
}
# The codes that report what a reader may still want to know, but that do not make the corpus
# wrong: they fail only `check --strict`. Every other code is an error.
WARNINGS = frozenset(
    {"unexpected-file", "whitespace", "near-duplicate-title", "shared-id", "retired-value"}
)


@dataclass(frozen=True, slots=True)
class Problem:
    path: str
    code: str
    message: str
    line: int | None = None
    column: int | None = None
    field: str | None = None
    hint: str | None = None

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unregistered problem code {self.code!r}")

    @property
    def severity(self) -> Severity:
        """A code's severity, the same wherever it is reported."""
        return "warning" if self.code in WARNINGS else "error"

    def text(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}:{self.column or 1}"
        hint = f" ({self.hint})" if self.hint else ""
        tag = "" if self.severity == "error" else " [warning]"
        return f"{where}: {self.code}{tag}: {self.message}{hint}"

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line or 0, self.column or 0, self.code)


@dataclass(slots=True)
class Report:
    problems: list[Problem] = field(default_factory=list)
    strict: bool = False

    def extend(self, problems: Iterable[Problem]) -> None:
        self.problems.extend(problems)

    def __iter__(self) -> Iterator[Problem]:
        return iter(sorted(self.problems, key=Problem.sort_key))

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def ok(self) -> bool:
        return not (self.problems if self.strict else self.errors)

    def to_dict(self) -> dict[str, object]:
        keys = ("path", "line", "column", "code", "severity", "field", "message", "hint")
        return {"ok": self.ok, "problems": [{k: getattr(p, k) for k in keys} for p in self]}

    def to_json(self) -> str:
        import json

        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def to_text(self) -> str:
        lines = [p.text() for p in self]
        n_err, n_warn = len(self.errors), len(self.problems) - len(self.errors)
        lines.append(f"{n_err} error(s), {n_warn} warning(s)" if self.problems else "ok")
        return "\n".join(lines)


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """The closest choice to WORD, if one is close enough to be a likely slip."""
    from rapidfuzz import fuzz, process  # only a problem needs a suggestion

    match = process.extractOne(
        word,
        list(choices),
        scorer=fuzz.ratio,
        processor=lambda s: s.lower().replace("-", "_"),
        score_cutoff=70,
    )
    return None if match is None else str(match[0])


def choices_hint(word: str, choices: list[str]) -> str:
    guess = did_you_mean(word, choices)
    listed = ", ".join(choices) if len(choices) <= 14 else ", ".join(choices[:14]) + ", ..."
    return (f"did you mean '{guess}'? " if guess else "") + f"allowed: {listed}"
