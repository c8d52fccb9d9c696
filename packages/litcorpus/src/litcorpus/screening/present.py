"""How the screen shows one record: title, byline, year, venue, ids, the abstract with the
inclusion criteria's key words highlighted, and the criteria themselves."""

from __future__ import annotations

import re
import textwrap
from typing import Any

from ..model.queue import Queued

BOLD, YELLOW, DIM, RESET = "\x1b[1m", "\x1b[1;33m", "\x1b[2m", "\x1b[0m"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def safe(text: Any) -> str:
    """TEXT with control characters (and terminal escapes among them) made harmless."""
    return _CONTROL.sub("\ufffd", str(text))


def highlighter(words: list[str]) -> re.Pattern[str] | None:
    """One pattern matching any of WORDS at the start of a word (orchestrat: orchestration)."""
    if not words:
        return None
    alts = sorted((re.escape(w) for w in words), key=len, reverse=True)
    return re.compile(r"(?<![\w-])(?:" + "|".join(alts) + r")[\w-]*", re.IGNORECASE)


def mark(text: str, pattern: re.Pattern[str] | None, color: bool) -> str:
    if pattern is None:
        return text
    if color:
        return pattern.sub(lambda m: f"{YELLOW}{m.group()}{RESET}", text)
    return pattern.sub(lambda m: f"*{m.group()}*", text)


def byline(authors: list[str], limit: int = 6) -> str:
    names = [a for a in authors if a != "others"]
    shown = "; ".join(names[:limit])
    return shown + (" et al." if len(names) > limit or "others" in authors else "")


def render(
    q: Queued,
    abstract: str,
    criteria: list[tuple[str, str]],
    words: list[str],
    position: str,
    color: bool = False,
    width: int = 92,
    twin: str = "",
) -> str:
    """The screen for Q: its facts, its abstract (highlighted), the criteria; TWIN describes
    the record Q may duplicate (alike titles, different ids), for the screener to judge."""
    d = q.data
    pattern = highlighter(words)
    b = (lambda s: f"{BOLD}{s}{RESET}") if color else (lambda s: s)
    dim = (lambda s: f"{DIM}{s}{RESET}") if color else (lambda s: s)
    ids = ", ".join(f"{k} {v}" for k, v in (d.get("ids") or {}).items()) or "none"
    lines = [
        dim(f"{q.id} · {position} · search {d.get('search')} · {q.state}"),
        b(mark(safe(d.get("title", "")), pattern, color)),
        safe(byline(d.get("authors") or [])),
        safe(f"{d.get('year') or 'year unknown'} · {d.get('venue') or 'venue unknown'} · {ids}"),
        safe(d.get("url", "")),
        "",
    ]
    if d.get("possible_duplicate"):
        lines[-1:] = [
            b(safe(f"Possible duplicate of {d['possible_duplicate']} (alike titles, other ids):")),
            safe(twin),
            "",
        ]
    text = safe(abstract) if abstract else "(no abstract in the local store)"
    wrapped = textwrap.wrap(text, width) or [text]
    lines += [mark(line, pattern, color) for line in wrapped]
    lines += ["", dim("Inclusion criteria:")]
    for cid, rule in criteria:
        lines += [
            dim(line) for line in textwrap.wrap(f"{cid} {rule}", width, subsequent_indent="   ")
        ]
    return "\n".join(lines)
