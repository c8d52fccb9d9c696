"""What text in the corpus's files may hold, the same rules for records and for the declarative
files (taxonomy.yaml, claims.yaml, releases.yaml, searches.yaml): no control character, no
bidirectional override, a line break only in prose; record keys and the ids that become file
names are slugs. Reads nothing; the checks return what is wrong, the callers place it.
"""

from __future__ import annotations

import datetime as dt
import re

# C0 controls but the line feed, DEL and C1 controls: invisible, and harmful in every output.
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
# Bidirectional embeddings, overrides and isolates: they reorder how text is displayed.
BIDI = re.compile(r"[\u202a-\u202e\u2066-\u2069]")
# A record's key: the file name of the record and of its pages.
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
MAX_SLUG = 80
# An id of taxonomy.yaml or claims.yaml that names a file or a folder (a table, a figure, a
# record folder): lower-case words joined by single hyphens or underscores, never a path.
SAFE_ID = re.compile(r"[a-z0-9]+(?:[-_][a-z0-9]+)*\Z")
MAX_ID = 64
DAY = re.compile(r"\d{4}-\d{2}-\d{2}\Z")  # the one form of a day: no week dates, no 20260504
ID_HINT = "lower-case letters and digits, words joined by single '-' or '_' (at most 64)"


def key_ok(stem: str, pattern: str | None = None) -> bool:
    """Whether STEM is a record key: the kind's own pattern when it declares one, else a slug."""
    return bool(re.match(pattern, stem) if pattern else SLUG.match(stem)) and len(stem) <= MAX_SLUG


def id_ok(value: object) -> bool:
    """Whether VALUE may name a file: a safe id (see SAFE_ID)."""
    return isinstance(value, str) and len(value) <= MAX_ID and SAFE_ID.match(value) is not None


def parse_day(text: object) -> dt.date | None:
    """The day TEXT writes as YYYY-MM-DD, or None (Python's own reader also takes ISO weeks
    and the basic form, which no file of the corpus uses)."""
    if not isinstance(text, str) or not DAY.match(text):
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:  # 2026-13-01, 2026-02-30
        return None


def character_problems(value: str, prose: bool) -> list[tuple[str, str, str]]:
    """(code, message, hint) for each kind of character VALUE may not hold; PROSE allows line
    breaks."""
    out = []
    bad = CONTROL.search(value)
    if bad is None and not prose:
        bad = re.search("\n", value)
    if bad:
        out.append(
            (
                "control-character",
                f"holds the control character {bad.group()!r}",
                "a line break belongs only in text fields such as summary and notes"
                if bad.group() == "\n"
                else "delete it: most editors do not show it",
            )
        )
    bidi = BIDI.search(value)
    if bidi:
        out.append(
            (
                "bidi-control",
                f"holds the bidirectional control U+{ord(bidi.group()):04X}",
                "delete it: it reorders how the text is shown",
            )
        )
    return out
