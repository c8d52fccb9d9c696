"""`litcorpus search add` and `search update` against recorded answers of the four services
(tests/recorded.py serves tests/fixtures/services/ on 127.0.0.1; facts from its PROVENANCE):
paged answers, an empty window, a 429 then the page, a 500 that never clears, a run killed
between two pages and started again; windows that never overlap; the drafts and the pull
request's body."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

from recorded import Recorded
from test_search_import import tree

S2_TOTAL = 2674  # 1000 + 1000 + 674 records over the three recorded bulk pages


def litcorpus(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "litcorpus", *args, "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **env},
    )


def save(root: Path, source: str, query: str, start: str = "2026-07-01") -> None:
    run = litcorpus(root, {}, "search", "add", "--source", source, "--query", query,
                    "--family", "multi_agent_llm", "--from", start)  # fmt: skip
    assert run.returncode == 0, run.stderr


def logged(root: Path) -> list[dict]:
    return yaml.safe_load((root / "searches.yaml").read_text(encoding="utf-8"))["searches"]


def test_add_saves_and_refuses_what_it_cannot_run(clone: Path) -> None:
    save(clone, "arxiv", "all:multi-agent AND all:reinforcement")
    text = (clone / "saved-searches.yaml").read_text(encoding="utf-8")
    assert '  - id: "R001"\n    source: "arxiv"\n' in text
    again = litcorpus(clone, {}, "search", "add", "--source", "arxiv", "--query",
                      "all:multi-agent AND all:reinforcement")  # fmt: skip
    assert again.returncode == 1 and "R001 saves that query on arxiv already" in again.stderr
    bad = litcorpus(clone, {}, "search", "add", "--source", "crossref", "--query", "a\x1bb")
    assert bad.returncode == 2 and "\x1b" not in bad.stderr
    assert json.loads(litcorpus(clone, {}, "check", "--format", "json").stdout)["ok"]


def test_paged_answers_are_imported_as_one_search_per_saved_search(clone: Path) -> None:
    save(clone, "arxiv", "all:testing")
    save(clone, "semanticscholar", "kubernetes")
    with Recorded() as server:
        run = litcorpus(clone, server.env(), "search", "update", "--until", "2026-12-01")
    assert run.returncode == 0, run.stderr
    # arXiv: start 0 and 10 (ten entries each of 214881), then an empty page ends it
    assert [r["start"] for r in server.requests["arxiv"]] == ["0", "10", "20"]
    first = server.requests["arxiv"][0]["search_query"]
    assert first == "(all:testing) AND submittedDate:[202607010000 TO 202612012359]"
    # Semantic Scholar: three pages in token order, the last one without a token
    tokens = [r.get("token") for r in server.requests["semanticscholar"]]
    assert tokens[0] is None and len(tokens) == 3 and tokens[1] != tokens[2]
    assert server.requests["semanticscholar"][0]["publicationDateOrYear"] == "2026-07-01:2026-12-01"
    assert f"R002 2026-07-01..2026-12-01: logged S002: {S2_TOTAL} records found in 3 pages" in (
        run.stdout
    )
    s1, s2 = logged(clone)
    assert (s1["saved"], s1["window_from"], s1["window_to"]) == ("R001", "2026-07-01", "2026-12-01")
    assert (s1["records_found"], s1["database"]) == (20, "arXiv")
    assert (s2["saved"], s2["records_found"], s2["database"]) == (
        "R002",
        S2_TOTAL,
        "Semantic Scholar",
    )
    # the raw answers are in the store, their manifest's digest in the log
    store = clone / "screening" / ".store"
    manifest = json.loads((store / "S002.raw").read_text())
    assert [p["records"] for p in manifest["pages"]] == [1000, 1000, 674]
    import hashlib

    assert hashlib.sha256((store / "S002.raw").read_bytes()).hexdigest() == s2["sha256"]
    page1 = (store / "S002.pages" / "page-001.raw").read_bytes()
    assert hashlib.sha256(page1).hexdigest() == manifest["pages"][0]["sha256"]
    # replayed without the network: the same records, in the same order
    from litcorpus.searching.update import replay

    again = replay(clone, "S002")
    assert len(again) == S2_TOTAL and again[0].ids.get("semanticscholar")
    assert json.loads(litcorpus(clone, {}, "check", "--format", "json").stdout)["ok"]


def test_nothing_new_logs_nothing_and_windows_never_overlap(clone: Path) -> None:
    save(clone, "openalex", "biodiversity AND finance")
    with Recorded() as server:
        env = server.env()
        first = litcorpus(clone, env, "search", "update", "--until", "2026-11-07")
        again = litcorpus(clone, env, "search", "update", "--until", "2026-11-07")
        later = litcorpus(clone, env, "search", "update", "--until", "2026-12-07")
    assert first.returncode == again.returncode == later.returncode == 0, first.stderr
    assert "R001: up to date (searched up to 2026-11-07)" in again.stdout
    a, b = logged(clone)
    assert (a["window_from"], a["window_to"]) == ("2026-07-01", "2026-11-07")
    assert (b["window_from"], b["window_to"]) == ("2026-11-08", "2026-12-07")
    assert a["records_found"] == b["records_found"] == 10  # the recorded page, trimmed to 10
    assert b["duplicates"] == 10  # the same recorded page: every record queued already
    windows = [r["filter"] for r in server.requests["openalex"]]
    assert windows == [
        "from_publication_date:2026-07-01,to_publication_date:2026-11-07",
        "from_publication_date:2026-11-08,to_publication_date:2026-12-07",
    ]


def test_an_empty_window_is_logged_with_nothing_found(clone: Path) -> None:
    save(clone, "semanticscholar", "n0 r3sult s3arch t3rm")
    script = {"semanticscholar": [(200, "semanticscholar/search-empty-total0.json")]}
    with Recorded(script) as server:
        run = litcorpus(clone, server.env(), "search", "update")
    assert run.returncode == 0, run.stderr
    (entry,) = logged(clone)
    assert (entry["records_found"], entry["duplicates"]) == (0, 0)
    assert json.loads(litcorpus(clone, {}, "check", "--format", "json").stdout)["ok"]


def test_a_429_is_waited_out_and_a_500_that_never_clears_fails_alone(clone: Path) -> None:
    save(clone, "semanticscholar", "turing")
    save(clone, "crossref", "widget")
    save(clone, "arxiv", "all:testing")
    script = {
        "semanticscholar": [
            (429, "semanticscholar/search-turing-429-too-many-requests.json"),
            (200, "semanticscholar/search-turing-allfields-200-after-429.json"),
        ],
        "crossref": [(500, "crossref/works-invalid-cursor-500-server-error.json")],
    }
    with Recorded(script, repeat=frozenset({"crossref"})) as server:
        run = litcorpus(clone, server.env(), "search", "update")
    assert run.returncode == 1
    assert len(server.requests["semanticscholar"]) == 2  # the 429, then the page
    assert len(server.requests["crossref"]) == 5  # five tries, then the search is failed
    assert "R002 2026-07-01.." in run.stderr and "answered 500 after 5 tries" in run.stderr
    assert "2 logged, 0 up to date, 1 failed" in run.stdout
    assert [e["saved"] for e in logged(clone)] == ["R001", "R003"]
    assert logged(clone)[0]["records_found"] == 10  # the recorded page after the 429
    assert json.loads(litcorpus(clone, {}, "check", "--format", "json").stdout)["ok"]


def test_a_run_killed_between_pages_goes_on_from_there(clone: Path) -> None:
    save(clone, "semanticscholar", "kubernetes")
    with Recorded(hold={"semanticscholar": 2}) as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "litcorpus", "search", "update", "--root", str(clone)],
            env={**os.environ, **server.env()},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(600):  # until the second page is asked for (and held)
            if len(server.requests["semanticscholar"]) == 2:
                break
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        assert not (clone / "searches.yaml").exists()  # nothing logged
        state = json.loads((clone / "screening/.store/runs/R001/state.json").read_text())
        assert len(state["pages"]) == 1 and state["next"]
        server.hold.clear()
        run = litcorpus(clone, server.env(), "search", "update")
    assert run.returncode == 0, run.stderr
    tokens = [r.get("token") for r in server.requests["semanticscholar"]]
    assert tokens[0] is None and tokens[1] == tokens[2] and None not in tokens[1:]
    assert len(tokens) == 4  # page 1 once, page 2 twice (the killed request), page 3
    (entry,) = logged(clone)
    assert entry["records_found"] == S2_TOTAL
    assert not (clone / "screening/.store/runs/R001").exists()


def test_the_update_round_drafts_entries_and_writes_the_pull_request(clone: Path) -> None:
    save(clone, "arxiv", "all:testing")
    save(clone, "semanticscholar", "kubernetes")
    with Recorded() as server:
        assert litcorpus(clone, server.env(), "search", "update").returncode == 0
    before = {k: v for k, v in tree(clone).items() if not k.startswith("screening/drafts/")}
    drafted = litcorpus(clone, {}, "search", "draft", "--top", "5")
    assert drafted.returncode == 0, drafted.stderr
    assert "drafted 5 entries in screening/drafts/" in drafted.stdout
    drafts = sorted((clone / "screening/drafts").glob("Q*.yaml"))
    assert len(drafts) == 5
    text = drafts[0].read_text(encoding="utf-8")
    assert text.startswith(f"# Draft for {drafts[0].stem}:") and "\nkey: " in text
    assert "Suggested tags" in text and "not curated" in text
    after = {k: v for k, v in tree(clone).items() if not k.startswith("screening/drafts/")}
    assert after == before  # drafts only
    body = clone.parent / "update.md"
    out = litcorpus(clone, {}, "search", "report", "--out", str(body))
    assert out.returncode == 0, out.stderr
    md = body.read_text(encoding="utf-8")
    assert "| S002 | R002 |" in md and f"| {S2_TOTAL} |" in md
    assert "## The queue, most relevant first" in md and "## PRISMA 2020 update flow" in md
    assert "Estimated relevant among them" in md
    check = litcorpus(clone, {}, "check", "--strict", "--format", "json")
    assert json.loads(check.stdout)["ok"], check.stdout


def test_fifty_saved_searches_in_one_update(clone: Path) -> None:
    for i in range(50):
        save(clone, "crossref", f"widget {i}")
    with Recorded() as server:
        run = litcorpus(clone, server.env(), "search", "update")
    assert run.returncode == 0, run.stderr
    assert "50 logged, 0 up to date, 0 failed" in run.stdout
    assert len(logged(clone)) == 50 and len(server.requests["crossref"]) == 50
