"""How an entry is named in a few words: its authors, its byline ("Liu et al., 2025") and its
short name ("C3", "HALO"). Statistics name example entries and pages show bylines, so both
read these from here.
"""

from __future__ import annotations

from typing import Any

TRUNCATED = "others"  # the last author of a truncated list
SHORT_TITLE_WORDS = 4  # a title's head before ': ' names the work when it is this short
SHORT_TITLE_CHARS = 32


def authors(data: dict[str, Any]) -> list[str]:
    return [a for a in data.get("authors") or [] if isinstance(a, str)]


def first_author(data: dict[str, Any]) -> str:
    """The first author's family name, capitalised as a sentence starts ('De Witt')."""
    named = [a for a in authors(data) if a != TRUNCATED]
    first = (named[0].split(",")[0].strip() if named else "") or "Anonymous"
    return first[0].upper() + first[1:]


def author_list(data: dict[str, Any]) -> str:
    """Every author as written, '; ' between them; a truncated list ends in 'et al.'."""
    names = authors(data)
    more = bool(names) and names[-1] == TRUNCATED
    listed = "; ".join(a for a in names if a != TRUNCATED)
    return f"{listed} et al." if more else listed


def byline(data: dict[str, Any], venue: bool = True) -> str:
    """'First et al., 2025 · Venue': 'et al.' whenever there is more than one author or the
    list is truncated."""
    more = " et al." if len(authors(data)) > 1 else ""
    where = f" · {data['venue']}" if venue and data.get("venue") else ""
    return f"{first_author(data)}{more}, {data.get('year')}{where}"


def short_name(data: dict[str, Any]) -> str:
    """The entry's `name`; else its title's head before ': ' when that is short ('GAIA');
    else its byline without the venue."""
    name = data.get("name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    title = str(data.get("title") or "")
    head = title.split(": ", 1)[0] if ": " in title else ""
    if head and len(head.split()) <= SHORT_TITLE_WORDS and len(head) <= SHORT_TITLE_CHARS:
        return head
    return byline(data, venue=False)


def plain_value(value: Any) -> str:
    """A field's value in a sentence: a list joined by commas, nothing as 'none'."""
    if value in (None, [], ""):
        return "none"
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)
