"""Readers of the JSON that search services and reference managers write: OpenAlex works (one
work, a `results` page, a list, or JSON Lines; abstracts rebuilt from `abstract_inverted_index`),
the Semantic Scholar Graph API (a search page's `data`, a batch list, one paper), Crossref works
(`work-list` or one `work` message) and CSL-JSON (Zotero's export, one item or a list).

JSON is parsed with every object's keys checked: a key given twice would otherwise keep only
its last value, silently.
"""

from __future__ import annotations

import json
from typing import Any

from .found import (
    Found,
    SourceError,
    date_from_parts,
    family_given,
    normal_ids,
    person,
    text,
    venue,
    year_of,
)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise SourceError(
                "import-duplicate-key",
                f"a JSON object gives '{key}' twice; nothing was written",
                "keep one value of each key",
            )
        out[key] = value
    return out


def parse_json(data: str, name: str) -> Any:
    """The one JSON document DATA holds, or the documents of its lines (JSON Lines)."""
    try:
        return json.loads(data, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as whole:
        lines = [line for line in data.splitlines() if line.strip()]
        if len(lines) < 2 or not lines[0].lstrip().startswith("{"):
            raise _invalid(name, whole) from whole
        docs = []
        for n, line in enumerate(data.splitlines(), 1):
            if line.strip():
                try:
                    docs.append(json.loads(line, object_pairs_hook=_unique_keys))
                except json.JSONDecodeError as exc:
                    raise SourceError(
                        "import-invalid",
                        f"{name}:{n}: line {n} is not JSON ({exc.msg}); nothing was written",
                        "a JSON Lines file holds one complete JSON object per line",
                    ) from exc
        return docs


def _invalid(name: str, exc: json.JSONDecodeError) -> SourceError:
    truncated = exc.pos >= len(exc.doc.rstrip()) - 1
    return SourceError(
        "import-invalid",
        f"{name}:{exc.lineno}: not valid JSON at column {exc.colno} ({exc.msg})"
        + ("; the file seems cut short" if truncated else "")
        + "; nothing was written",
        "export the search again",
    )


def _objects(doc: Any, name: str, what: str) -> list[dict[str, Any]]:
    items = doc if isinstance(doc, list) else [doc]
    bad = next((i for i, item in enumerate(items, 1) if not isinstance(item, dict)), None)
    if bad is not None and items[bad - 1] is not None:
        raise SourceError(
            "import-invalid",
            f"{name}: item {bad} is not a {what} object; nothing was written",
        )
    return [item for item in items if isinstance(item, dict)]  # a batch lists misses as null


def _inverted(index: Any) -> str:
    """The abstract an OpenAlex inverted index ({word: [positions]}) stands for."""
    if not isinstance(index, dict):
        return ""
    at: dict[int, str] = {}
    for word, positions in index.items():
        for p in positions if isinstance(positions, list) else []:
            if isinstance(p, int):
                at[p] = word
    return " ".join(at[p] for p in sorted(at))


def openalex_records(doc: Any, name: str) -> list[Found]:
    pages = doc if isinstance(doc, list) else [doc]
    if pages and all(isinstance(p, dict) and "results" in p for p in pages):  # pages, or lines
        doc = [w for p in pages for w in (p["results"] if isinstance(p["results"], list) else [])]
    out = []
    for i, w in enumerate(_objects(doc, name, "OpenAlex work"), 1):
        loc = _dict(w.get("primary_location"))
        source = _dict(loc.get("source"))
        ids = _dict(w.get("ids"))
        urls = [
            lo.get("landing_page_url")
            for lo in w.get("locations") or []
            if isinstance(lo, dict) and lo.get("landing_page_url")
        ]
        date = text(w.get("publication_date"))
        out.append(
            Found(
                title=text(w.get("title") or w.get("display_name")),
                authors=[
                    person((a.get("author") or {}).get("display_name") or a.get("raw_author_name"))
                    for a in w.get("authorships") or []
                    if isinstance(a, dict)
                ],
                year=_int(w.get("publication_year")) or year_of(date),
                date=date,
                venue=venue(source.get("display_name")),
                ids=normal_ids(
                    dois=[w.get("doi"), ids.get("doi")],
                    urls=urls,
                    openalex=ids.get("openalex") or w.get("id"),
                ),
                abstract=_inverted(w.get("abstract_inverted_index")) or text(w.get("abstract")),
                where=f"work {i}",
            )
        )
    return out


def semanticscholar_records(doc: Any, name: str) -> list[Found]:
    if isinstance(doc, dict) and ("data" in doc or "total" in doc):
        doc = doc.get("data") or []  # a search page (with nothing found, it has no `data`)
    out = []
    for i, p in enumerate(_objects(doc, name, "Semantic Scholar paper"), 1):
        p = p.get("citedPaper") or p.get("citingPaper") or p  # citation lists wrap papers
        ext, journal = _dict(p.get("externalIds")), _dict(p.get("journal"))
        date = text(p.get("publicationDate"))
        out.append(
            Found(
                title=text(p.get("title")),
                authors=[person(a.get("name")) for a in p.get("authors") or [] if a],
                year=_int(p.get("year")) or year_of(date),
                date=date,
                venue=venue(p.get("venue") or journal.get("name")),
                ids=normal_ids(
                    dois=ext.get("DOI"),
                    arxiv=ext.get("ArXiv"),
                    semanticscholar=p.get("paperId"),
                ),
                url=text(p.get("url")) if "semanticscholar" not in str(p.get("url")) else "",
                abstract=text(p.get("abstract")),
                where=f"paper {i}",
            )
        )
    return out


def crossref_records(doc: Any, name: str) -> list[Found]:
    if isinstance(doc, dict) and "message" in doc:
        msg = doc["message"]
        doc = msg.get("items", []) if isinstance(msg, dict) and "items" in msg else msg
    out = []
    for i, w in enumerate(_objects(doc, name, "Crossref work"), 1):
        date = ""
        for k in ("published", "issued", "published-print", "published-online", "created"):
            if isinstance(w.get(k), dict) and (date := date_from_parts(w[k].get("date-parts"))):
                break
        out.append(
            Found(
                title=text(w.get("title")),
                authors=[_csl_name(a) for a in w.get("author") or [] if isinstance(a, dict)],
                year=year_of(date),
                date=date,
                venue=venue(w.get("container-title") or w.get("publisher")),
                ids=normal_ids(dois=w.get("DOI"), urls=w.get("URL")),
                abstract=text(w.get("abstract")),
                where=f"work {i}",
            )
        )
    return out


def _csl_name(a: dict[str, Any]) -> str:
    if a.get("literal") or a.get("name"):
        return person(a.get("literal") or a.get("name"))
    particle = " ".join(text(a.get(k)) for k in ("non-dropping-particle", "dropping-particle"))
    family = f"{particle.strip()} {text(a.get('family'))}".strip()
    given = f"{text(a.get('given'))} {text(a.get('suffix'))}".strip()
    return family_given(family, given)


def csl_records(doc: Any, name: str) -> list[Found]:
    out = []
    seen: dict[str, int] = {}
    for i, item in enumerate(_objects(doc, name, "CSL-JSON item"), 1):
        key = str(item.get("id", ""))
        if key and key in seen:
            raise SourceError(
                "import-duplicate-key",
                f"{name}: items {seen[key]} and {i} share the id '{key}'; nothing was written",
                "export the collection again, or remove one of the two items",
            )
        seen[key] = i
        issued = _dict(item.get("issued"))
        date = date_from_parts(issued.get("date-parts")) or text(issued.get("raw"))[:10]
        arxiv_hints = [item.get(k) for k in ("number", "archive_location", "note") if item.get(k)]
        publisher = text(item.get("publisher"))
        out.append(
            Found(
                title=text(item.get("title")),
                authors=[_csl_name(a) for a in item.get("author") or [] if isinstance(a, dict)],
                year=year_of(date),
                date=date,
                venue=venue(item.get("container-title") or publisher),
                ids=normal_ids(
                    dois=item.get("DOI"),
                    arxiv=[str(h).split()[0] for h in arxiv_hints],
                    urls=item.get("URL"),
                ),
                url=text(item.get("URL")),
                abstract=text(item.get("abstract")),
                where=f"item {i}",
                key=key,
            )
        )
    return out


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
