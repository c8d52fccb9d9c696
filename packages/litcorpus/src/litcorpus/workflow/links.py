"""Checks every URL in the corpus: bounded concurrency, per-request timeouts and retries.

Each URL is ok, redirected (with its target), dead (404, 410), unverifiable (bot protection:
401, 403, 429 or 503 from hosts known to block robots) or error (DNS, TLS, refused, timeout,
other statuses). The timeout bounds a whole request, not each read: a server that drips its
answer a byte at a time is cut off when the time is up. Results are cached for a day in
.cache/links.json below the root; a cache that is not what this module writes is ignored.
"""

from __future__ import annotations

import http.client
import io
import json
import socket
import ssl
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..model.corpus import Corpus

CACHE = ".cache/links.json"
CACHE_SECONDS = 24 * 3600
USER_AGENT = "litcorpus-linkcheck/0.1"
# Hosts that answer robots with 401/403/429/503 although the page exists for a browser.
BOT_PROTECTED = frozenset(
    {
        "openai.com",
        "www.anthropic.com",
        "anthropic.com",
        "docs.anthropic.com",
        "www.kimi.com",
        "pubsonline.informs.org",
        "doi.org",
        "dx.doi.org",
        "www.worldscientific.com",
        "docs.crewai.com",
        "cognition.ai",
        "docs.devinenterprise.com",
        "openreview.net",
    }
)
DEAD = {404, 410}
BLOCKED = {401, 403, 429, 503}
RETRY = {429, 500, 502, 503, 504}


@dataclass
class LinkResult:
    url: str
    status: str
    code: int | None = None
    target: str | None = None
    detail: str = ""
    records: list[str] = field(default_factory=list)
    checked_at: float = 0.0


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # report redirects instead of following them


class _Deadline:
    """A connected socket whose reads and writes wait only for what is left of one deadline
    (http.client reads the answer through makefile, so it reads through here)."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self._sock, self._deadline = sock, deadline

    def arm(self) -> None:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("timed out")
        self._sock.settimeout(left)

    def sendall(self, data: Any, flags: int = 0) -> None:
        self.arm()
        self._sock.sendall(data, flags)

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self._sock.makefile("rb", buffering=0), self))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class _DeadlineReader(io.RawIOBase):
    """The socket's own reader, armed with what is left of the deadline before each read."""

    def __init__(self, raw: Any, sock: _Deadline) -> None:
        super().__init__()
        self._raw, self._sock = raw, sock

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        self._sock.arm()
        return int(self._raw.readinto(buffer))

    def close(self) -> None:
        self._raw.close()
        super().close()


class _HTTPConnection(http.client.HTTPConnection):
    """An HTTP connection whose timeout is one deadline for the whole exchange."""

    def connect(self) -> None:
        deadline = time.monotonic() + float(self.timeout or 10.0)
        super().connect()
        self.sock = _Deadline(self.sock, deadline)


class _HTTPSConnection(http.client.HTTPSConnection):
    def connect(self) -> None:
        deadline = time.monotonic() + float(self.timeout or 10.0)
        super().connect()
        self.sock = _Deadline(self.sock, deadline)


class _HTTP(urllib.request.HTTPHandler):
    def http_open(self, req: Any) -> Any:
        return self.do_open(_HTTPConnection, req)


class _HTTPS(urllib.request.HTTPSHandler):
    def https_open(self, req: Any) -> Any:
        return self.do_open(_HTTPSConnection, req, context=getattr(self, "_context", None))


def collect_urls(corpus: Corpus) -> dict[str, list[str]]:
    """Every URL of every record, with the records that hold it."""
    urls: dict[str, list[str]] = {}
    for rec in corpus:
        data = rec.data
        for url in [data.get("url"), *(data.get("extra_urls") or [])]:
            if isinstance(url, str) and url.startswith(("http://", "https://")):
                urls.setdefault(url, []).append(rec.path)
    return urls


def check_url(
    url: str, timeout: float = 10.0, retries: int = 2, protected: frozenset[str] = BOT_PROTECTED
) -> LinkResult:
    opener = urllib.request.build_opener(_NoRedirect, _HTTP, _HTTPS)
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:  # an unclosed IPv6 bracket, a bad port
        return LinkResult(url, "error", None, None, "not a well-formed address")
    attempt = 0
    while True:
        attempt += 1
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
        try:
            with opener.open(request, timeout=timeout) as response:
                response.read(512)
                return LinkResult(url, "ok", response.status)
        except urllib.error.HTTPError as exc:
            code = exc.code
            if 300 <= code < 400:
                target = urllib.parse.urljoin(url, exc.headers.get("Location", ""))
                return LinkResult(url, "redirected", code, target)
            if code in DEAD:
                return LinkResult(url, "dead", code)
            if code in BLOCKED and host in protected:
                return LinkResult(url, "unverifiable", code, detail="bot protection")
            if code in RETRY and attempt <= retries:
                time.sleep(0.2 * attempt)
                continue
            return LinkResult(url, "error", code, detail=f"HTTP {code}")
        except TimeoutError:
            if attempt <= retries:
                continue
            return LinkResult(url, "error", detail=f"timeout after {timeout:g} s")
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, TimeoutError) and attempt <= retries:
                continue
            kind = (
                "TLS"
                if isinstance(reason, ssl.SSLError)
                else "DNS"
                if isinstance(reason, socket.gaierror)
                else "timeout"
                if isinstance(reason, TimeoutError)
                else "connection"
            )
            return LinkResult(url, "error", detail=f"{kind}: {reason}")
        except (OSError, ValueError) as exc:
            return LinkResult(url, "error", detail=str(exc))


_CACHED: dict[str, Any] = {  # what each cached result holds
    "url": str,
    "status": str,
    "code": (int, type(None)),
    "target": (str, type(None)),
    "detail": str,
    "checked_at": (int, float),
}


def _load_cache(path: Path) -> dict[str, dict[str, Any]]:
    """The cached results, each as check_links wrote it; anything else is left out."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {
        url: hit
        for url, hit in (raw.items() if isinstance(raw, dict) else [])
        if isinstance(hit, dict)
        and set(hit) == set(_CACHED)
        and all(isinstance(hit[k], t) and not isinstance(hit[k], bool) for k, t in _CACHED.items())
        and hit["url"] == url
        and hit["status"] in ("ok", "redirected", "dead", "unverifiable", "error")
    }


def check_links(
    urls: dict[str, list[str]],
    cache_file: Path | None = None,
    workers: int = 8,
    timeout: float = 10.0,
    retries: int = 2,
    protected: frozenset[str] = BOT_PROTECTED,
    progress: bool | None = None,
) -> list[LinkResult]:
    """Check URLS (url -> records), reusing results younger than a day from CACHE_FILE."""
    now = time.time()
    cache = _load_cache(cache_file) if cache_file else {}
    results: dict[str, LinkResult] = {}
    todo = []
    for url in urls:
        hit = cache.get(url)
        if hit and now - float(hit.get("checked_at", 0)) < CACHE_SECONDS:
            results[url] = LinkResult(**{**hit, "records": urls[url]})
        else:
            todo.append(url)
    show = sys.stderr.isatty() if progress is None else progress
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = {pool.submit(check_url, u, timeout, retries, protected): u for u in todo}
        for done, future in enumerate(as_completed(futures), 1):
            url = futures[future]
            result = future.result()
            result.records, result.checked_at = urls[url], now
            results[url] = result
            if show:
                print(f"\rchecked {done}/{len(todo)} links", end="", file=sys.stderr, flush=True)
    if show and todo:
        print(file=sys.stderr)
    if cache_file:
        cache.update(
            {u: {k: v for k, v in asdict(r).items() if k != "records"} for u, r in results.items()}
        )
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache_file.with_name(cache_file.name + ".tmp")
        tmp.write_text(json.dumps(cache, indent=1, sort_keys=True), encoding="utf-8")
        tmp.replace(cache_file)
    return [results[u] for u in urls]


def report_text(results: list[LinkResult]) -> str:
    order = {"dead": 0, "error": 1, "unverifiable": 2, "redirected": 3, "ok": 4}
    lines = []
    for r in sorted(results, key=lambda r: (order[r.status], r.url)):
        extra = f" -> {r.target}" if r.target else f" ({r.detail})" if r.detail else ""
        code = f" {r.code}" if r.code else ""
        lines.append(f"{r.status:<12}{code:>4} {r.url}{extra}  [{', '.join(r.records)}]")
    totals = {s: sum(r.status == s for r in results) for s in order}
    lines.append(", ".join(f"{n} {s}" for s, n in totals.items() if n) or "no links")
    return "\n".join(lines)
