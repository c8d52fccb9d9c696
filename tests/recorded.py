"""The four search services answered from recordings other projects made of them
(tests/fixtures/services/, see its PROVENANCE.md), on 127.0.0.1, for the tests and for trying
`litcorpus search update` without the network:

    .venv/bin/python tests/recorded.py --port 8765

prints the variables that point litcorpus at it. Each service answers by its paging
parameter: arXiv's `start` 0 and 10 give the two recorded pages of one query and later starts
an empty feed; Semantic Scholar's bulk search gives its three recorded pages in token order;
OpenAlex and Crossref give a recorded page that is their last (shorter than a full page).
A test may put scripted answers (status, file) in front, per service (a 429 before the page,
a 500 that never clears), and hold the Nth request of a service (a run killed there)."""

from __future__ import annotations

import argparse
import json
import threading
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

HERE = Path(__file__).resolve().parent / "fixtures" / "services"
S2 = [
    "semanticscholar/bulk-kubernetes-page1-token.json",
    "semanticscholar/bulk-kubernetes-page2-token.json",
    "semanticscholar/bulk-kubernetes-page3-last-no-token.json",
]
PATHS = {
    "arxiv": "/arxiv",
    "openalex": "/openalex",
    "semanticscholar": "/s2",
    "crossref": "/crossref",
}
VARIABLES = {
    "arxiv": "LITCORPUS_ARXIV_API",
    "openalex": "LITCORPUS_OPENALEX_API",
    "semanticscholar": "LITCORPUS_S2_API",
    "crossref": "LITCORPUS_CROSSREF_API",
}


def _token_of(rel: str) -> str | None:
    token = json.loads((HERE / rel).read_text(encoding="utf-8")).get("token")
    return token if isinstance(token, str) else None


def recorded(service: str, params: dict[str, str]) -> tuple[int, str]:
    """The recorded answer (status, file) to a page request of SERVICE."""
    if service == "arxiv":
        start = params.get("start", "0")
        page = {"0": "query-testing-start0-max10.xml", "10": "query-testing-start10-max10.xml"}
        return 200, "arxiv/" + page.get(start, "idlist-0000.0000-empty.xml")
    if service == "semanticscholar":
        token = params.get("token")
        order = [None, *(_token_of(rel) for rel in S2[:-1])]
        return (200, S2[order.index(token)]) if token in order else (400, S2[0])
    if service == "openalex":
        return 200, "openalex/works-filter-biodiversity-finance-cursor-page1.json"
    return 200, "crossref/works-query-widget-cursor-page2.json"


class Recorded:
    """A server on 127.0.0.1 answering the services' paths; SCRIPT[service] is a list of
    (status, file) answers given first, in order, the last one repeated when REPEAT is set."""

    def __init__(
        self,
        script: dict[str, list[tuple[int, str]]] | None = None,
        port: int = 0,
        repeat: frozenset[str] = frozenset(),
        hold: dict[str, int] | None = None,
    ) -> None:
        self.script = {k: list(v) for k, v in (script or {}).items()}
        self.repeat, self.hold = repeat, dict(hold or {})
        self.requests: dict[str, list[dict[str, str]]] = defaultdict(list)
        self.release = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                service = next((s for s, p in PATHS.items() if parts.path.startswith(p)), None)
                if service is None:
                    self.send_error(404)
                    return
                params = {k: v[-1] for k, v in parse_qs(parts.query).items()}
                server.requests[service].append(params)
                n = len(server.requests[service])
                if server.hold.get(service) == n:  # the Nth request waits (a run killed here)
                    server.release.wait(60)
                queue = server.script.get(service)
                if queue:
                    status, rel = (
                        queue[0] if len(queue) == 1 and service in server.repeat else queue.pop(0)
                    )
                else:
                    status, rel = recorded(service, params)
                body = (HERE / rel).read_bytes()
                self.send_response(status)
                kind = "application/atom+xml" if rel.endswith(".xml") else "application/json"
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> Recorded:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def env(self) -> dict[str, str]:
        """The variables that point litcorpus at this server, politeness and backoff off."""
        port = self.httpd.server_address[1]
        out = {VARIABLES[s]: f"http://127.0.0.1:{port}{p}" for s, p in PATHS.items()}
        return {**out, "LITCORPUS_POLITENESS": "0", "LITCORPUS_RETRY_WAIT": "0"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    with Recorded(port=args.port) as server:
        for name, value in server.env().items():
            print(f"export {name}={value}", flush=True)
        server.thread.join()


if __name__ == "__main__":
    main()
