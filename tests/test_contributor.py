"""The contributor's path: `add` from BibTeX and arXiv, exports that round-trip, `diff` on a
real git repository, `links` against a local server, and CITATION.cff against its schema."""

from __future__ import annotations

import csv
import datetime as dt
import http.server
import io
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import bibtexparser
import jsonschema
import pybtex.database
import pytest
import yaml

from conftest import CORPUS_FIXTURES, FIXTURES, REPO, edit
from litcorpus.analysis.result import check
from litcorpus.model.corpus import load_corpus
from litcorpus.publish.export import to_bibtex, to_csl_json, to_csv, to_json
from litcorpus.workflow.links import check_links

BIB = CORPUS_FIXTURES / "bibtex"


def litcorpus(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "litcorpus", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


# ---------------------------------------------------------------- add


def test_add_from_bibtex_fills_facts_and_leaves_tags_to_decide(mini_root: Path) -> None:
    result = litcorpus("add", "--root", str(mini_root), "--bibtex", str(BIB / "good.bib"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[:3] == [
        "wrote papers/weiss2025magrpo.yaml",
        "wrote papers/okkey2026.yaml",
        "wrote papers/sparse.yaml",
    ]
    data = yaml.safe_load((mini_root / "papers/weiss2025magrpo.yaml").read_text())
    assert data["title"] == "MAGRPO-Lite: Café-Style Über-Agents that Learn When to Stop"
    assert data["authors"] == ["Weiß, Jörg", "van der Berg, Anna", "Ng, Andrew Y.", "others"]
    assert (data["year"], data["venue"]) == (2025, "COLM 2025")  # @string macro resolved
    assert data["ids"] == {"arxiv": "2509.99999"}
    assert data["url"] == "https://arxiv.org/abs/2509.99999"
    assert data["added"] == dt.date.today().isoformat()  # the day it enters the corpus
    doi = yaml.safe_load((mini_root / "papers/okkey2026.yaml").read_text())
    assert doi["ids"] == {"doi": "10.1234/jmae.2026.7"}
    assert doi["url"] == "https://doi.org/10.1234/jmae.2026.7"
    text = (mini_root / "papers/weiss2025magrpo.yaml").read_text()
    assert "# Category (required): one of rl_method, framework" in text
    report = check(mini_root)
    left = {(p.path, p.field) for p in report.problems if p.code == "missing-field"}
    assert ("papers/weiss2025magrpo.yaml", "category") in left
    assert ("papers/weiss2025magrpo.yaml", "summary") in left
    assert ("papers/sparse.yaml", "year") in left and ("papers/sparse.yaml", "venue") in left
    assert {p.code for p in report.problems} <= {"missing-field", "prisma-mismatch"}


def test_add_reads_standard_input(mini_root: Path) -> None:
    bib = "@article{stdin2026, title={From Standard Input}, author={In, Std}, year={2026}}"
    result = litcorpus("add", "--root", str(mini_root), "--bibtex", "-", stdin=bib)
    assert result.returncode == 0 and (mini_root / "papers/stdin2026.yaml").is_file()


def test_add_reports_a_malformed_entry_and_writes_nothing(mini_root: Path) -> None:
    before = sorted(p.name for p in (mini_root / "papers").iterdir())
    result = litcorpus("add", "--root", str(mini_root), "--bibtex", str(BIB / "malformed.bib"))
    assert result.returncode == 1
    assert "line 7: cannot parse '@article{broken2026,'" in result.stderr
    assert "end of file" in result.stderr and result.stderr.count("\n") <= 4
    assert "Traceback" not in result.stderr
    assert sorted(p.name for p in (mini_root / "papers").iterdir()) == before


def test_add_refuses_duplicates_naming_the_record(mini_root: Path) -> None:
    result = litcorpus("add", "--root", str(mini_root), "--bibtex", str(BIB / "duplicates.bib"))
    assert result.returncode == 1
    assert "same arxiv id 2501.00001 as papers/alpha-rl.yaml" in result.stderr
    assert "near-identical title to papers/alpha-rl.yaml" in result.stderr
    assert "same arxiv id 2301.00003 as exclusions/E001.yaml" in result.stderr
    assert not (mini_root / "papers/again.yaml").exists()


def test_add_never_overwrites(mini_root: Path) -> None:
    alpha = (mini_root / "papers/alpha-rl.yaml").read_bytes()
    bib = "@article{alpha-rl, title={A Different Paper Entirely}, author={X, Y}, year={2024}}"
    result = litcorpus("add", "--root", str(mini_root), "--bibtex", "-", stdin=bib)
    assert result.returncode == 0
    assert (mini_root / "papers/alpha-rl.yaml").read_bytes() == alpha
    assert "wrote papers/x2024different.yaml" in result.stdout


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        if path == "/api/query":
            body = (FIXTURES / "arxiv/2412.01928.xml").read_bytes()
            self._send(200, body, "application/atom+xml")
        elif path == "/ok":
            self._send(200, b"fine")
        elif path == "/moved":
            self.send_response(301)
            self.send_header("Location", "/ok")
            self.end_headers()
        elif path == "/gone":
            self._send(404, b"no")
        elif path == "/blocked":
            self._send(403, b"robots go away")
        elif path == "/slow":
            time.sleep(1.5)
            self._send(200, b"late")
        elif path == "/drip":  # an answer a byte at a time, each in time for a read's timeout
            try:
                for byte in b"HTTP/1.1 200 OK\r\n" + b"X: " + b"y" * 200:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(0.1)
            except (BrokenPipeError, ConnectionResetError):
                pass
        else:
            self._send(500, b"?")

    def _send(self, code: int, body: bytes, kind: str = "text/plain") -> None:
        try:
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up first (the timeout case)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_add_from_arxiv_via_local_api(mini_root: Path, server: str) -> None:
    env = {"LITCORPUS_ARXIV_API": f"{server}/api/query"}
    result = litcorpus("add", "--root", str(mini_root), "--arxiv", "2412.01928", env=env)
    assert result.returncode == 0, result.stderr
    data = yaml.safe_load((mini_root / "papers/motwani2024malt.yaml").read_text())
    assert data["title"] == "MALT: Improving Reasoning with Multi-Agent LLM Training"
    assert data["authors"] == ["Motwani, Sumeet Ramesh", "Smith, Chandler"]
    assert (data["year"], data["venue"], data["ids"]) == (
        2024,
        "COLM 2025",
        {"arxiv": "2412.01928"},
    )
    again = litcorpus("add", "--root", str(mini_root), "--arxiv", "2412.01928", env=env)
    assert again.returncode == 1 and "papers/motwani2024malt.yaml" in again.stderr


def test_add_from_arxiv_offline_says_so(mini_root: Path) -> None:
    env = {"LITCORPUS_ARXIV_API": "http://127.0.0.1:9/api/query"}
    result = litcorpus("add", "--root", str(mini_root), "--arxiv", "2412.01928", env=env)
    assert result.returncode == 1
    assert "cannot reach the arXiv API" in result.stderr and "offline" in result.stderr
    assert "Traceback" not in result.stderr


# ---------------------------------------------------------------- export


def test_bibtex_export_parses_cleanly_and_round_trips() -> None:
    corpus = load_corpus(REPO)
    text = to_bibtex(corpus)
    library = bibtexparser.parse_string(
        text, append_middleware=[bibtexparser.middlewares.LatexDecodingMiddleware()]
    )
    assert library.failed_blocks == []
    pyb = pybtex.database.parse_string(text, "bibtex")
    papers = {r.stem: r.data for r in corpus.of("paper")}
    assert set(pyb.entries) == {e.key for e in library.entries} == set(papers)
    for entry in library.entries:
        d = papers[entry.key]
        title = entry.fields_dict["title"].value.replace("{", "").replace("}", "")
        assert title == d["title"], entry.key
        assert entry.fields_dict["year"].value == str(d["year"])
    types = {e.key: e.entry_type for e in library.entries}
    assert types["magrpo"] == "article" and types["puppeteer"] == "inproceedings"
    assert types["claude-code-subagents"] == "misc" and types["kimi-k2-5"] == "misc"
    assert "{LLM}" in pyb.entries["magrpo"].fields["title"]  # acronyms brace-protected
    assert "Gr\\'egoire" in pyb.entries["gaia2023"].persons["author"][0].first_names[0]


def test_other_exports() -> None:
    corpus = load_corpus(REPO)
    entries = len(list((REPO / "papers").glob("*.yaml")))
    csl = json.loads(to_csl_json(corpus))
    assert len(csl) == entries and {"id", "type", "title", "author", "issued", "URL"} <= set(csl[0])
    rows = list(csv.reader(io.StringIO(to_csv(corpus))))
    assert len(rows) == entries + 1 and rows[0][:4] == ["key", "title", "authors", "year"]
    assert [d["key"] for d in json.loads(to_json(corpus))] == sorted(
        r.stem for r in corpus.of("paper")
    )


def test_export_command_to_file(mini_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "papers.bib"
    result = litcorpus("export", "--root", str(mini_root), "--format", "bibtex", "--out", str(out))
    assert result.returncode == 0 and out.read_text().startswith("@article{alpha-rl,")


# ---------------------------------------------------------------- diff


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), *args],
        check=True,
        capture_output=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.org",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.org",
        },
    )


def test_diff_reports_entries_counts_cells_and_claims(mini_root: Path) -> None:
    git(mini_root, "init", "-q")
    git(mini_root, "add", "-A")
    git(mini_root, "commit", "-qm", "base")
    edit(mini_root / "papers/alpha-rl.yaml", "[spawn, delegate]", "[spawn, delegate, stop]")
    (mini_root / "papers/gamma-survey.yaml").unlink()
    for md in ("json", "markdown", "text"):
        result = litcorpus("diff", "HEAD", "--root", str(mini_root), "--format", md)
        assert result.returncode == 0, result.stderr
        if md == "json":
            d = json.loads(result.stdout)
        elif md == "markdown":
            assert (
                "| orchestration-learning-gap | stop x yes | empty (0) | sparse (1) |"
                in result.stdout
            )
        else:
            assert "  - paper gamma-survey" in result.stdout
    assert d["removed"] == [{"kind": "paper", "key": "gamma-survey"}]
    assert d["changed"] == [
        {
            "kind": "paper",
            "key": "alpha-rl",
            "fields": [
                {
                    "field": "orchestration_decisions",
                    "old": ["spawn", "delegate"],
                    "new": ["spawn", "delegate", "stop"],
                }
            ],
        }
    ]
    assert {"axis": "orchestration_decisions", "value": "stop", "old": 0, "new": 1} in d["counts"]
    assert {"axis": "category", "value": "survey", "old": 1, "new": 0} in d["counts"]
    assert [c["id"] for c in d["claims"]] == ["no-stop"]
    cell = next(
        c
        for c in d["cells"]
        if (c["gap"], c["row"], c["col"]) == ("orchestration-learning-gap", "stop", "yes")
    )
    assert (cell["old_state"], cell["new_state"]) == ("empty", "sparse")


def test_diff_of_an_unknown_ref_fails_cleanly(mini_root: Path) -> None:
    git(mini_root, "init", "-q")
    result = litcorpus("diff", "no-such-ref", "--root", str(mini_root))
    assert result.returncode == 1 and "cannot read git ref" in result.stderr


# ---------------------------------------------------------------- links


def test_link_checker_classifies(server: str, tmp_path: Path) -> None:
    urls = {
        f"{server}/{p}": [f"papers/{p}.yaml"] for p in ("ok", "moved", "gone", "blocked", "slow")
    }
    urls["https://nonexistent.invalid/x"] = ["papers/dns.yaml"]
    results = {
        r.url.rsplit("/", 1)[1]: r
        for r in check_links(
            urls,
            tmp_path / "links.json",
            workers=4,
            timeout=0.5,
            retries=1,
            protected=frozenset({"127.0.0.1"}),
            progress=False,
        )
    }
    assert results["ok"].status == "ok"
    assert (results["moved"].status, results["moved"].target) == ("redirected", f"{server}/ok")
    assert (results["gone"].status, results["gone"].code) == ("dead", 404)
    assert (results["blocked"].status, results["blocked"].code) == ("unverifiable", 403)
    assert results["slow"].status == "error" and "timeout" in results["slow"].detail
    assert results["x"].status == "error"
    cached = json.loads((tmp_path / "links.json").read_text())
    assert set(cached) == set(urls)
    start = time.monotonic()  # a second run within a day is served from the cache
    again = check_links(urls, tmp_path / "links.json", timeout=0.5, progress=False)
    assert time.monotonic() - start < 0.5
    assert [r.status for r in again] == [r.status for r in results.values()]


def test_links_timeout_bounds_a_whole_request(mini_root: Path, server: str) -> None:
    """A server that drips its answer (20 s, each byte before a read's timeout) is cut off
    when the request's time is up, and is an error, not ok."""
    edit(mini_root / "papers/gamma-survey.yaml", "https://example.org/gamma.pdf", f"{server}/drip")
    args = ["links", "--root", str(mini_root), "--timeout", "1", "--retries", "0", "--no-cache"]
    result = subprocess.run(  # a bound on the hostile case, far above the one second asked
        [sys.executable, "-m", "litcorpus", *args, "--format", "json"],
        capture_output=True,
        text=True,
        timeout=12,
    )
    drip = next(r for r in json.loads(result.stdout) if r["url"].endswith("/drip"))
    assert (drip["status"], "timeout" in drip["detail"]) == ("error", True), drip


FRESH = {"url": "u", "status": "ok", "code": 200, "target": None, "detail": "", "checked_at": 1e18}


@pytest.mark.parametrize(
    "cache",
    [
        [1, 2],
        {"u": 1},
        {"u": {"status": "ok", "checked_at": 1e18}},
        {"u": {**FRESH, "code": "200"}},
    ],
    ids=["list", "number", "missing-fields", "wrong-type"],
)
def test_a_malformed_links_cache_is_ignored(server: str, tmp_path: Path, cache: object) -> None:
    """A cache that is not what the checker writes is checked again, not a traceback."""
    url = f"{server}/ok"
    (tmp_path / "links.json").write_text(json.dumps(cache).replace('"u"', json.dumps(url)))
    (result,) = check_links({url: ["papers/x.yaml"]}, tmp_path / "links.json", progress=False)
    assert (result.status, result.code) == ("ok", 200)


def test_links_command_changed_since(mini_root: Path, server: str) -> None:
    git(mini_root, "init", "-q")
    git(mini_root, "add", "-A")
    git(mini_root, "commit", "-qm", "base")
    edit(mini_root / "papers/gamma-survey.yaml", "https://example.org/gamma.pdf", f"{server}/gone")
    result = litcorpus(
        "links",
        "--root",
        str(mini_root),
        "--changed-since",
        "HEAD",
        "--no-cache",
        "--format",
        "json",
    )
    assert result.returncode == 1
    checked = json.loads(result.stdout)
    assert [(c["url"], c["status"]) for c in checked] == [(f"{server}/gone", "dead")]


# ---------------------------------------------------------------- citation


def test_citation_cff_is_valid() -> None:
    schema_file = REPO / ".cache" / "cff-schema-1.2.0.json"
    assert schema_file.is_file(), "run `make test` (it fetches the CFF schema from PyPI)"
    schema = json.loads(schema_file.read_text())
    data = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert list(jsonschema.Draft7Validator(schema).iter_errors(data)) == []
    broken = {**data, "cff-version": "9.9"}
    broken.pop("authors")
    assert list(jsonschema.Draft7Validator(schema).iter_errors(broken))


def test_repository_conventions_exist() -> None:
    for path in ("CONTRIBUTING.md", ".github/pull_request_template.md", ".github/workflows/ci.yml"):
        assert (REPO / path).is_file(), path
    workflow = (REPO / ".github/workflows/ci.yml").read_text()
    for step in (
        "make test",
        "litcorpus check",
        "litcorpus stats --check",
        "diff",
        "--format markdown",
    ):
        assert step in workflow


def test_contributing_lists_every_problem_code_with_its_severity() -> None:
    from litcorpus.model.problems import CODES, WARNINGS

    text = (REPO / "CONTRIBUTING.md").read_text()
    rows = re.findall(r"^\| `([a-z0-9-]+)` \| (error|warning) \| (.+) \|$", text, re.MULTILINE)
    assert rows == [
        (code, "warning" if code in WARNINGS else "error", meaning)
        for code, meaning in CODES.items()
    ]
