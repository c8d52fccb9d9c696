"""The four search services a saved search re-runs on, one page at a time: the request for a
page of a query within a window of days, and what the answer says of the next page.

- arXiv (export.arxiv.org/api/query): `search_query` is the saved query AND'ed with
  `submittedDate:[FROM0000 TO TO2359]`, oldest first; pages by `start`. The API asks for three
  seconds between requests (the politeness delay).
- OpenAlex (/works): `search` with `from_publication_date` and `to_publication_date` filters;
  pages by `cursor` (`meta.next_cursor`, until a page comes back short); `mailto` puts the
  run in the polite pool.
- Semantic Scholar (/graph/v1/paper/search/bulk): `query` in its bulk syntax with
  `publicationDateOrYear=FROM:TO`; pages by the continuation `token`; an API key from
  `LITCORPUS_S2_API_KEY` is sent as `x-api-key` when given.
- Crossref (/works): `query` with `from-index-date` and `until-index-date` filters; pages by
  `cursor` (`message.next-cursor`, until a page comes back short: the last page repeats the
  cursor); `mailto`.

Each service's address comes from LITCORPUS_ARXIV_API, LITCORPUS_OPENALEX_API,
LITCORPUS_S2_API or LITCORPUS_CROSSREF_API, so an update can run against a mirror or a
recording. A page is asked for with httpx and retried with backoff (tenacity) on 429, on 5xx
and on timeouts, honouring Retry-After.

The services' Python clients are not used for the requests: a run must keep every answer as it
came (so an import can be replayed offline) and start again from the page a killed run
reached, and none of them offers both. `arxiv` hands back parsed results only and retries at
once on 429; `pyalex` builds its search addresses on api.openalex.org whatever its configured
base; `semanticscholar` keeps the continuation token private, so a run cannot resume from it;
`habanero` runs its cursor loop inside one call. The requests follow each API's documented
parameters instead, and the answers are read by the same readers as exported files.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from ..model.errors import CommandError

MAX_ANSWER = 64 << 20
TIMEOUT = 60.0
ATTEMPTS = 5
BASES = {
    "arxiv": ("LITCORPUS_ARXIV_API", "https://export.arxiv.org/api/query"),
    "openalex": ("LITCORPUS_OPENALEX_API", "https://api.openalex.org"),
    "semanticscholar": ("LITCORPUS_S2_API", "https://api.semanticscholar.org"),
    "crossref": ("LITCORPUS_CROSSREF_API", "https://api.crossref.org"),
}
POLITENESS = {"arxiv": 3.0, "openalex": 0.1, "semanticscholar": 1.0, "crossref": 0.1}
S2_FIELDS = "title,authors,year,externalIds,venue,journal,publicationDate,abstract,url"
PAGE = {"arxiv": 100, "openalex": 200, "semanticscholar": 1000, "crossref": 100}


class ServiceError(CommandError):
    """A page that could not be had: the service's answer, or its absence, said in one line."""


@dataclass(slots=True)
class Clock:
    """Sleeps between requests as each API asks, and adds up how long (reported apart)."""

    scale: float = 1.0  # LITCORPUS_POLITENESS: 0 against a recording on this machine
    slept: float = 0.0
    last: dict[str, float] = field(default_factory=dict)

    def wait(self, service: str) -> None:
        gap = POLITENESS[service] * self.scale
        since = time.monotonic() - self.last.get(service, -1e9)
        if since < gap:
            time.sleep(gap - since)
            self.slept += gap - since
        self.last[service] = time.monotonic()


def base(service: str) -> str:
    variable, default = BASES[service]
    return (os.environ.get(variable) or default).rstrip("/")


def request(
    service: str, query: str, window: tuple[dt.date, dt.date], cursor: Any
) -> tuple[str, dict[str, str], dict[str, str]]:
    """The address, parameters and headers of the page at CURSOR (None: the first page)."""
    start, end = window
    mailto = os.environ.get("LITCORPUS_MAILTO", "")
    headers = {"User-Agent": "litcorpus (search update)" + (f"; mailto:{mailto}" if mailto else "")}
    if service == "arxiv":
        days = f"submittedDate:[{start:%Y%m%d}0000 TO {end:%Y%m%d}2359]"
        params = {
            "search_query": f"({query}) AND {days}",
            "start": str(cursor or 0),
            "max_results": str(PAGE["arxiv"]),
            "sortBy": "submittedDate",
            "sortOrder": "ascending",
        }
        return base(service), params, headers
    if service == "openalex":
        window_filter = f"from_publication_date:{start},to_publication_date:{end}"
        params = {"search": query, "filter": window_filter, "per-page": str(PAGE["openalex"])}
        params["cursor"] = cursor or "*"
        if mailto:
            params["mailto"] = mailto
        return f"{base(service)}/works", params, headers
    if service == "semanticscholar":
        params = {"query": query, "publicationDateOrYear": f"{start}:{end}", "fields": S2_FIELDS}
        if cursor:
            params["token"] = cursor
        if key := os.environ.get("LITCORPUS_S2_API_KEY"):
            headers["x-api-key"] = key
        return f"{base(service)}/graph/v1/paper/search/bulk", params, headers
    window_filter = f"from-index-date:{start},until-index-date:{end}"
    params = {"query": query, "filter": window_filter, "rows": str(PAGE["crossref"])}
    params["cursor"] = cursor or "*"
    if mailto:
        params["mailto"] = mailto
    return f"{base(service)}/works", params, headers


def next_cursor(service: str, raw: bytes, cursor: Any) -> tuple[Any, int]:
    """The cursor of the page after RAW (None: RAW was the last) and how many records RAW
    holds; an answer that is not the service's is a ServiceError."""
    try:
        if service == "arxiv":
            return _arxiv_next(raw, int(cursor or 0))
        doc = json.loads(raw)
        if service == "semanticscholar":
            data = doc.get("data") or []  # an empty answer has no `data` at all
            return (doc.get("token") if data else None), len(data)
        # a short page is the last: Crossref repeats the cursor on it
        if service == "openalex":
            items, cursor = doc["results"], doc["meta"].get("next_cursor")
        else:
            items, cursor = doc["message"]["items"], doc["message"].get("next-cursor")
        return (cursor if len(items) >= PAGE[service] else None), len(items)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ServiceError(
            "search-unavailable",
            f"{service} answered with something that is not a page of results ({exc!r:.80})",
        ) from exc


def _arxiv_next(raw: bytes, start: int) -> tuple[int | None, int]:
    from xml.etree import ElementTree as ET

    root = ET.fromstring(raw)
    atom, search = "{http://www.w3.org/2005/Atom}", "{http://a9.com/-/spec/opensearch/1.1/}"
    entries = len(root.findall(f"{atom}entry"))
    total = int(root.findtext(f"{search}totalResults") or 0)
    after = start + entries
    return (after if entries and after < total else None), entries


def fetch(url: str, params: dict[str, str], headers: dict[str, str]) -> bytes:
    """One page's answer as it came; retried with backoff on 429, 5xx and timeouts."""
    import httpx
    import tenacity

    def retryable(exc: BaseException) -> bool:
        if isinstance(exc, httpx.HTTPStatusError):
            return exc.response.status_code == 429 or exc.response.status_code >= 500
        return isinstance(exc, httpx.TransportError)

    def wait(state: tenacity.RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        said = (
            exc.response.headers.get("Retry-After")
            if isinstance(exc, httpx.HTTPStatusError)
            else None
        )
        scale = float(os.environ.get("LITCORPUS_RETRY_WAIT", "1"))
        if said and said.isdigit():
            return min(float(said), 120.0) * scale
        return min(2.0**state.attempt_number, 60.0) * scale

    @tenacity.retry(
        retry=tenacity.retry_if_exception(retryable),
        wait=wait,
        stop=tenacity.stop_after_attempt(ATTEMPTS),
        reraise=True,
    )
    def get() -> bytes:
        with (
            httpx.Client(timeout=TIMEOUT, follow_redirects=True) as client,
            client.stream("GET", url, params=params, headers=headers) as response,
        ):
            response.raise_for_status()
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_ANSWER:
                    raise ServiceError(
                        "search-unavailable", f"{url}: an answer over {MAX_ANSWER:,} bytes"
                    )
            return bytes(body)

    try:
        return get()
    except httpx.HTTPStatusError as exc:
        raise ServiceError(
            "search-unavailable",
            f"{url} answered {exc.response.status_code} after {ATTEMPTS} tries",
        ) from exc
    except httpx.TransportError as exc:
        raise ServiceError(
            "search-unavailable",
            f"cannot reach {url} ({type(exc).__name__}) after {ATTEMPTS} tries",
        ) from exc


def query_url(url: str, params: dict[str, str]) -> str:
    """The address as sent, for the log and the messages."""
    return f"{url}?{urlencode(params)}"
