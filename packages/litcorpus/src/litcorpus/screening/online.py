"""Runs a search against the arXiv or OpenAlex API when the machine is online, and returns the
response as it came (it is imported like an export, and kept in the local store). The
addresses can be pointed elsewhere (LITCORPUS_ARXIV_API, LITCORPUS_OPENALEX_API): the tests
serve recorded real responses from 127.0.0.1."""

from __future__ import annotations

import os
import urllib.error
import urllib.parse
import urllib.request

from ..model.errors import CommandError

ARXIV = "https://export.arxiv.org/api/query"
OPENALEX = "https://api.openalex.org"
MAX_RESPONSE = 64 << 20


def url_for(source: str, query: str, limit: int) -> str:
    if source == "arxiv":
        base = os.environ.get("LITCORPUS_ARXIV_API", ARXIV)
        terms = query if ":" in query else " AND ".join(f"all:{w}" for w in query.split())
        q = urllib.parse.urlencode({"search_query": terms, "start": 0, "max_results": limit})
        return f"{base}?{q}"
    base = os.environ.get("LITCORPUS_OPENALEX_API", OPENALEX).rstrip("/")
    q = urllib.parse.urlencode({"search": query, "per-page": min(limit, 200)})
    return f"{base}/works?{q}"


def fetch(source: str, query: str, limit: int, timeout: float = 30) -> tuple[bytes, str]:
    """The API's raw answer to QUERY, and a name for it."""
    url = url_for(source, query, limit)
    request = urllib.request.Request(url, headers={"User-Agent": "litcorpus (search run)"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read(MAX_RESPONSE + 1)
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise CommandError(
            "search-unavailable",
            f"cannot reach {url.split('?')[0]} ({reason}); are you offline?",
            "save the service's export and use 'litcorpus search import'",
        ) from exc
    if len(raw) > MAX_RESPONSE:
        raise CommandError("search-unavailable", f"the answer exceeds {MAX_RESPONSE:,} bytes")
    return raw, url
