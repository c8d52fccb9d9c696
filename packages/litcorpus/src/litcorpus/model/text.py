"""What text in the corpus's files may hold, the same rules for records and for the declarative
files (taxonomy.yaml, claims.yaml, releases.yaml, searches.yaml): no control character, no
bidirectional override, a line break only in prose; record keys and the ids that become file
names are slugs. Reads nothing; the checks return what is wrong, the callers place it.
"""

from __future__ import annotations

import datetime as dt
import re
from urllib.parse import SplitResult, urlsplit

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
# Everything `hidden_removed` takes out of a one-line value: controls, line feeds, bidi.
_HIDDEN = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# Characters a URL never holds as they are (RFC 3986): they would end a link early elsewhere.
URL_UNSAFE = re.compile(r"[\s\"'<>{}\\^`|]")
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


def url_problem(value: str) -> tuple[str, str] | None:
    """What is wrong with VALUE as one http(s) address (message, hint), or None."""
    try:
        parts = urlsplit(value)
    except ValueError:  # an unclosed IPv6 bracket, a bad port
        parts = None
    if parts is not None and parts.scheme not in ("http", "https"):
        return (
            f"URL scheme '{parts.scheme}' is not allowed",
            "only http:// and https:// links are accepted",
        )
    if (
        parts is None
        or not _host_ok(parts)
        or URL_UNSAFE.search(value)
        or CONTROL.search(value)
        or BIDI.search(value)
        or not _balanced(value)
    ):
        return (
            f"'{value}' is not a well-formed URL",
            "one absolute address: no spaces, quotes, angle brackets, braces or unbalanced "
            "parentheses (percent-encode them); put further addresses in extra_urls",
        )
    return None


def _host_ok(parts: SplitResult) -> bool:
    try:
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        return False
    return bool(parts.hostname) and "." in str(parts.hostname)


def _balanced(text: str) -> bool:
    """Whether every parenthesis in TEXT closes one opened before it."""
    if ")" not in text:  # most addresses hold none: no walk
        return "(" not in text
    depth = 0
    for c in text:
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth < 0:
            return False
    return depth == 0


def hidden_removed(value: str) -> tuple[str, int]:
    """VALUE as one line with its control and bidirectional characters removed (each taken
    as a space, runs of spaces folded), and how many there were."""
    if _HIDDEN.search(value) is None:  # nearly every value: one scan
        return value, 0
    found = len(_HIDDEN.findall(value))
    return " ".join(_HIDDEN.sub(" ", value).split()), found


def option_problem(value: str) -> str | None:
    """What an option's text may not hold (it is written into the corpus's files as it is):
    control characters, line breaks and bidirectional controls; None when it is plain."""
    bad = CONTROL.search(value) or BIDI.search(value) or re.search("\n", value)
    if bad is None:
        return None
    return f"holds the character U+{ord(bad.group()):04X}, which no file of the corpus may hold"
