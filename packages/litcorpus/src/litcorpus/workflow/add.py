"""Scaffolds new entries from BibTeX or from the arXiv API, never overwriting anything.

Reads BibTeX text (bibtexparser v2) or an arXiv Atom response; checks each new entry against
the corpus and the exclusions (same arXiv id or DOI, near-identical title); writes
papers/<key>.yaml with every bibliographic fact filled and each taxonomy field present but
empty, commented with its allowed values, so that `check` lists what is left to decide.
All entries are written or none.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz

from surewrite.files import write_new_files

from ..check.dedupe import TITLE_SIMILARITY, normalize_title, record_ids
from ..model.corpus import Corpus
from ..model.errors import CommandError
from ..model.queue import load_queue
from ..model.text import MAX_SLUG, SLUG
from ..publish.outputs import JOURNAL
from ..sources.atom import atom_records
from ..sources.bibtex import bibtex_records
from ..sources.detect import LABELS, decode, read_bytes, sniff
from ..sources.found import SourceError
from ..sources.found import arxiv_id as arxiv_id_of

ARXIV_API = os.environ.get("LITCORPUS_ARXIV_API", "https://export.arxiv.org/api/query")
MAX_ARXIV = 4 << 20  # the API's answer for one paper is a few kilobytes
STOP = {"a", "an", "the", "on", "of", "for", "and", "in", "to", "with", "via", "towards"}


class AddError(CommandError):
    """The input cannot be added; the message says why, and the hint what to do."""


@dataclass
class Draft:
    """One entry about to be written."""

    source: str
    facts: dict[str, Any]
    key: str = ""
    refused: list[str] = field(default_factory=list)


def read_bibtex(path: Path) -> str:
    """The text of a BibTeX file ('-': standard input), refusing what cannot be one: an
    empty input, or a file of another format (RIS, CSL-JSON, ...), named as what it is."""
    name = "standard input" if str(path) == "-" else str(path)
    try:
        data = decode(read_bytes(path), name)
    except SourceError as exc:
        raise AddError(exc.code, exc.message, exc.hint) from exc
    if not data.strip():
        raise AddError("import-empty", f"{name} is empty; nothing was written")
    looks, _ = sniff(data)
    if looks not in ("bibtex", None):
        seen = LABELS.get(looks or "", looks or "")
        raise AddError(
            "import-wrong-format",
            f"{name} is not BibTeX: it looks like {seen}; nothing was written",
            f"screen it with 'litcorpus search import {name} --source {looks} --query ...', "
            "or give its BibTeX"
            if looks in LABELS
            else "give the paper's BibTeX",
        )
    return data


def drafts_from_bibtex(text: str) -> list[Draft]:
    try:
        found = bibtex_records(text)
    except SourceError as exc:
        raise AddError(exc.code, exc.message, exc.hint) from exc
    if not found:
        raise AddError(
            "import-empty",
            "the input holds no BibTeX entry (@article{...}); nothing was written",
            "give the paper's BibTeX",
        )
    return [Draft(f.where, f.facts(), key=f.key) for f in found]


def _one_line(text: str, limit: int = 200) -> str:
    words = " ".join(text.split())
    return words if len(words) <= limit else words[: limit - 3] + "..."


def fetch_arxiv(arxiv_id: str, api: str = ARXIV_API, timeout: float = 20) -> str:
    """The arXiv API's answer for one id (new style, or old style such as cs/0112017)."""
    if arxiv_id_of(arxiv_id) != re.sub(r"v\d+$", "", arxiv_id.strip()):
        raise AddError(
            "unreadable-input",
            f"'{arxiv_id}' is not an arXiv id such as 2412.01928 or cs/0112017",
            usage=True,
        )
    url = f"{api}?id_list={urllib.parse.quote(arxiv_id.strip(), safe='/.')}&max_results=1"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            body = bytes(response.read(MAX_ARXIV + 1))
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise AddError(
            "arxiv-unavailable",
            f"cannot reach the arXiv API at {api} ({reason}); are you offline? "
            "Use --bibtex with the paper's BibTeX instead",
        ) from exc
    if len(body) > MAX_ARXIV:
        raise AddError(
            "arxiv-bad-answer",
            f"the arXiv API answered with more than {MAX_ARXIV:,} bytes for one paper; "
            "nothing was written",
        )
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AddError(
            "arxiv-bad-answer",
            f"the arXiv API answered with text that is not UTF-8 (byte {body[exc.start]:#04x} "
            f"at {exc.start}); nothing was written",
            "try again later, or use --bibtex",
        ) from exc


def drafts_from_arxiv(atom: str, requested: str | None = None) -> list[Draft]:
    """The draft of the paper REQUESTED (any version) from the API's answer ATOM; an answer
    that holds anything else, or not that paper, is refused (AddError), whole."""
    try:
        found = atom_records(atom, "the arXiv API's answer")
    except SourceError as exc:
        raise AddError("arxiv-unavailable", _one_line(exc.message), exc.hint) from exc
    if not found:
        raise AddError("arxiv-unavailable", "the arXiv API returned no entry for this id")
    wanted = arxiv_id_of(requested) if requested else None
    others = [str(f.ids.get("arxiv")) for f in found if f.ids.get("arxiv") != wanted]
    if wanted and (others or len(found) != 1):
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        raise AddError(
            "arxiv-bad-answer",
            f"the arXiv API answered {wanted} with {len(found)} entries"
            + (f", for {shown}" if others else "")
            + "; nothing was written",
            "try again later, or use --bibtex with the paper's BibTeX",
        )
    return [Draft(f"arXiv {f.ids['arxiv']}", f.facts()) for f in found]


_FOLD = str.maketrans(
    {
        "ß": "ss",
        "æ": "ae",
        "Æ": "AE",
        "ø": "o",
        "Ø": "O",
        "œ": "oe",
        "Œ": "OE",
        "ł": "l",
        "Ł": "L",
        "đ": "d",
        "Đ": "D",
        "þ": "th",
    }
)


def _ascii(text: str) -> str:
    """Lower-case ASCII for keys: accents dropped, letters without a decomposition spelled out."""
    plain = unicodedata.normalize("NFKD", text.translate(_FOLD))
    return plain.encode("ascii", "ignore").decode().lower()


def make_key(facts: dict[str, Any], taken: set[str], proposed: str = "") -> str:
    """The BibTeX key when it is a safe, free slug; else family name + year + title word."""
    if proposed and SLUG.match(proposed) and len(proposed) <= MAX_SLUG and proposed not in taken:
        return proposed
    authors = facts.get("authors") or ["anonymous"]
    family = re.sub(r"[^a-z0-9]", "", _ascii(str(authors[0]).split(",")[0])) or "anonymous"
    words = [
        w for w in re.findall(r"[a-z0-9]+", _ascii(str(facts.get("title", "")))) if w not in STOP
    ]
    base = f"{family}{facts.get('year', '')}{words[0] if words else ''}"[: MAX_SLUG - 4]
    key, n = base, 2
    while key in taken:
        key, n = f"{base}-{n}", n + 1
    return key


def find_duplicates(drafts: list[Draft], corpus: Corpus) -> None:
    """Mark drafts that duplicate a record (or an earlier draft) with the reason."""
    schemes = corpus.taxonomy.id_schemes
    owners: dict[tuple[str, str], str] = {}
    titles: list[tuple[str, str]] = []
    for rec in corpus:
        for ident in record_ids(rec, schemes):
            owners.setdefault(ident, rec.path)
        title = rec.data.get(corpus.taxonomy.kinds[rec.kind].title_field)
        if isinstance(title, str):
            titles.append((normalize_title(title), rec.path))
    for q in load_queue(corpus.root, corpus.taxonomy).open():
        where = f"{q.id}, queued by search {q.data.get('search')} (decide it with screen decide)"
        for s, v in (q.data.get("ids") or {}).items():
            owners.setdefault((s, str(v).lower()), where)
        titles.append((normalize_title(str(q.data.get("title", ""))), where))
    for d in drafts:
        ids = {(s, str(v).lower()) for s, v in d.facts.get("ids", {}).items()}
        for ident in sorted(ids):
            if ident in owners:
                d.refused.append(f"same {ident[0]} id {ident[1]} as {owners[ident]}")
        norm = normalize_title(str(d.facts.get("title", "")))
        for other, path in titles:
            if norm and fuzz.ratio(norm, other) >= TITLE_SIMILARITY:
                d.refused.append(f"near-identical title to {path}")
                break
        for ident in ids:
            owners.setdefault(ident, d.source)
        titles.append((norm, d.source))


def _q(value: Any) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(str(value), ensure_ascii=False)


def render_entry(
    key: str, facts: dict[str, Any], corpus: Corpus, today: dt.date, search: str | None = None
) -> str:
    """papers/KEY.yaml's scaffold: FACTS filled in, every taxonomy field present and commented
    with its allowed values, dated TODAY, naming the SEARCH that found it (when one did)."""
    tax = corpus.taxonomy
    lines = [f"key: {key}", f"title: {_q(facts.get('title', ''))}", "authors:"]
    lines += [f"  - {_q(a)}" for a in facts.get("authors", [])] or ['  # - "Family, Given"']
    year = facts.get("year")
    lines.append(f"year: {year}" if isinstance(year, int) else "year:  # the year, e.g. 2026")
    lines.append(
        f"venue: {_q(facts['venue'])}"
        if facts.get("venue")
        else "venue:  # where it appeared: arXiv, a conference, a journal"
    )
    lines.append("affiliation:  # the first author's affiliation, or unknown")
    if facts.get("ids"):
        lines.append("ids:")
        lines += [f"  {s}: {_q(v)}" for s, v in facts["ids"].items()]
    lines.append(f"url: {_q(facts['url'])}" if facts.get("url") else "url:  # https://...")
    for axis in tax.axes_for("paper"):
        allowed = ", ".join(axis.current_ids)
        rule = (
            "required"
            if axis.required
            else "required when "
            + "; ".join(f"{k} is {' or '.join(v)}" for k, v in axis.required_when.items())
            if axis.required_when
            else "optional"
        )
        if axis.only_when:
            rule += ", only when " + "; ".join(
                f"{k} is {' or '.join(v)}" for k, v in axis.only_when.items()
            )
        kind = "list of" if axis.multi else "one of"
        lines.append(f"# {axis.label} ({rule}): {kind} {allowed}")
        lines.append(f"{axis.id}:{' []' if axis.multi and not axis.required_when else ''}")
    lines.append("summary:  # one sentence, in your own words")
    lines.append("notes:  # what you read (an arXiv id or address); say 'abstract only' if so")
    lines.append("# each O-tag needs orchestration_evidence: {spawn: {source, quote, where}}")
    lines.append(f"added: {_q(today.isoformat())}")
    if search:
        lines.append(f"search: {_q(search)}")
    return "\n".join(lines) + "\n"


def add_entries(corpus: Corpus, drafts: list[Draft], today: dt.date | None = None) -> list[Path]:
    """Write each draft to papers/<key>.yaml: all or nothing, never overwriting. Each entry
    is dated TODAY (default: the current date), the day it enters the corpus."""
    today = today or dt.date.today()
    folder = corpus.root / corpus.taxonomy.kinds["paper"].dir
    taken = {r.stem for r in corpus.of("paper")} | {p.stem for p in folder.glob("*.yaml")}
    find_duplicates(drafts, corpus)
    refused = [f"{d.source}: {'; '.join(d.refused)}" for d in drafts if d.refused]
    if refused:
        raise AddError(
            "add-refused",
            "refused, nothing was written:\n  " + "\n  ".join(refused),
            "an entry that duplicates a record is already in the corpus: drop it from the "
            "input; of two near-identical entries in the input, keep the one you mean",
        )
    for d in drafts:
        d.key = make_key(d.facts, taken, d.key)
        taken.add(d.key)
    files = {
        folder / f"{d.key}.yaml": render_entry(d.key, d.facts, corpus, today).encode()
        for d in drafts
    }
    write_new_files(files, corpus.root / JOURNAL)
    return list(files)
