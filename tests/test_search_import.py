"""Search exports that other projects committed, read as `litcorpus search import` reads them:
records, identifiers and duplicates as derived by hand from the raw files (see
tests/fixtures/search/PROVENANCE.md, which lists each file's facts), and bad exports of every
format refused with one line, a code and exit 1, with nothing written."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from conftest import FIXTURES
from litcorpus.sources.detect import decode, records, sniff

SEARCH = FIXTURES / "search"


def read(rel: str, fmt: str) -> list:
    return records(decode((SEARCH / rel).read_bytes(), rel), fmt, rel)


def litcorpus(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        [sys.executable, "-m", "litcorpus", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".litcorpus.lock"  # the empty, git-ignored lock file
    }


# --- the readers, on real exports ---------------------------------------------------------


def test_arxiv_feed_keeps_old_style_ids_and_drops_versions() -> None:
    found = read("arxiv/arxiv-query-nicotine-2026.xml", "arxiv")
    assert [f.ids["arxiv"] for f in found] == [
        "1509.01687", "1206.3474", "2511.17570", "2004.14943", "1902.05515",
        "2603.02047", "0901.0089", "2212.06330", "q-bio/0509018", "0902.1417",
    ]  # fmt: skip
    old = found[8]
    assert old.authors == ["Beckstein, Oliver", "Sansom, Mark S. P."]
    assert (old.date, old.year) == ("2005-09-15", 2005)
    assert old.ids == {"arxiv": "q-bio/0509018", "doi": "10.1088/1478-3975/3/2/007"}
    assert old.url == "https://arxiv.org/abs/q-bio/0509018"
    assert found[1].ids["doi"] == "10.1016/j.ssc.2013.06.001"
    # the abstract is read (it stays in the local store): the fixture's own words
    assert found[0].abstract == "Fixture text: abstract replaced."


def test_older_arxiv_feed_format() -> None:
    found = read("arxiv/arxiv-query-cs-ro-2025.xml", "arxiv")
    assert [f.ids for f in found] == [{"arxiv": "2510.14968"}, {"arxiv": "2510.14827"}]
    assert found[0].authors[0] == "Yan, Mingxuan" and len(found[0].authors) == 4
    assert found[1].authors[0] == "Zhu, Yufei" and len(found[1].authors) == 6
    assert all(f.venue == "arXiv" and "\n" not in f.title for f in found)


def test_openalex_single_work_and_its_inverted_abstract() -> None:
    (work,) = read("openalex/openalex-work-W2109415576.json", "openalex")
    assert work.ids == {"doi": "10.1073/pnas.1414271111", "openalex": "W2109415576"}
    assert (work.year, work.date) == (2014, "2014-10-27")
    assert len(work.authors) == 5 and work.authors[0] == "Makris, Eleftherios"
    assert work.venue == "Proceedings of the National Academy of Sciences"
    # the fixture's index: "the" at positions 2 and 7
    assert work.abstract == (
        "Fixture text: the abstract is replaced and the index holds fixture words only"
    )


def test_openalex_arxiv_doi_is_an_arxiv_id() -> None:
    journal, preprint = read("openalex/openalex-works-title-search-chemcrow.json", "openalex")
    assert journal.ids == {"doi": "10.1038/s42256-024-00832-8", "openalex": "W4396723768"}
    assert preprint.ids == {"arxiv": "2304.05376", "openalex": "W4365597205"}
    assert (preprint.year, journal.year) == (2023, 2024)
    (paperqa,) = read("openalex/openalex-works-title-search-paperqa.json", "openalex")
    assert paperqa.ids["arxiv"] == "2312.07559" and "doi" not in paperqa.ids
    assert paperqa.authors[0] == "Lála, Jakub" and len(paperqa.authors) == 6


def test_semantic_scholar_batch_search_and_match() -> None:
    batch = read("semanticscholar/s2-paper-batch.json", "semanticscholar")
    assert [f.ids["semanticscholar"][:8] for f in batch] == ["c31c87c5", "cb1ebd91", "0f40b1f0"]
    assert [f.ids["doi"] for f in batch] == [
        "10.2139/ssrn.288970", "10.2139/ssrn.2250500", "10.1257/rct.1355",
    ]  # fmt: skip
    assert [f.year for f in batch] == [2001, 2013, 2023]
    search = read("semanticscholar/s2-paper-search-turing.json", "semanticscholar")
    assert len(search) == 10 and "Church\u2013Turing" in search[1].title
    (match,) = read("semanticscholar/s2-paper-search-match-paperqa.json", "semanticscholar")
    # DOI 10.48550/arXiv.2312.07559 (mixed case) is the arXiv id, not a DOI of its own
    assert match.ids == {
        "arxiv": "2312.07559",
        "semanticscholar": "7e55d8701785818776323b4147cb13354c820469",
    }


def test_crossref_work_list_and_single_work() -> None:
    items = read("crossref/crossref-works-query-ecology-boettiger.json", "crossref")
    assert [f.ids["doi"] for f in items] == [
        "10.1111/ele.14024", "10.1111/ele.13085", "10.1007/s12080-020-00477-4",
        "10.1101/055319", "10.1111/2041-210x.14013",
    ]  # fmt: skip
    assert items[0].title == "The forecast trap"
    (work,) = read("crossref/crossref-work-10.1038-s42256-024-00832-8.json", "crossref")
    assert work.date == "2024-05-08" and len(work.authors) == 6
    assert "jats" not in work.abstract and work.abstract.endswith(
        "Fixture text: abstract replaced."
    )


@pytest.mark.parametrize(
    "name, count, first, last",
    [
        ("ovid-psycinfo-crlf.ris", 6, "10.1002/cpp.2398", "10.1007/s10880-019-09649-9"),
        ("zotero-pubmed-crlf.ris", 6, "10.5114/pg.2018.81081", "10.1097/md.0000000000016231"),
        ("scopus.ris", 3, "10.1016/j.psyneuen.2019.104501", "10.1016/j.jpsychores.2019.109836"),
        ("web-of-science.ris", 10, "10.1016/j.jarmac.2018.03.001", "10.1080/1068316x.2013.777963"),
    ],
)
def test_ris_of_four_tools(name: str, count: int, first: str, last: str) -> None:
    found = read(f"ris/{name}", "ris")
    assert len(found) == count
    assert (found[0].ids["doi"], found[-1].ids["doi"]) == (first, last)
    assert all(f.title and f.year for f in found)


def test_ris_t1_a1_tags_and_crlf() -> None:
    raw = (SEARCH / "ris/ovid-psycinfo-crlf.ris").read_bytes()
    assert raw.count(b"\r\n") == raw.count(b"\n") and b"T1  - " in raw and b"A1  - " in raw
    found = read("ris/ovid-psycinfo-crlf.ris", "ris")
    assert found[0].authors[:2] == ["Trindade, Ines A", "Irons, Chris"]
    assert found[0].year == 2019 and "\r" not in found[0].title


def test_csl_json_from_zotero() -> None:
    found = read("csl-json/zotero-better-csl-json-library.json", "csl-json")
    assert [f.key for f in found] == [
        "abnar2019blackbox", "aitchison2017you", "alexandrescu2006factored",
        "bar-ashersiegal2020perspectives",
    ]  # fmt: skip
    # container-title "arXiv:1906.01539 [cs, q-bio]", URL http://arxiv.org/abs/1906.01539
    assert found[0].ids == {"arxiv": "1906.01539"} and found[0].venue == "arXiv"
    assert found[1].ids == {"doi": "10.1016/j.conb.2017.08.010"}
    assert found[3].authors == []  # a book with editors only


def test_zotero_own_csl_json_export() -> None:
    # Zotero's own "CSL JSON" export (ids http://zotero.org/users/...; years as strings in
    # date-parts): four Italian books by publisher, two with editors only, no DOI; and one
    # arXiv preprint given by its DataCite DOI 10.48550/ARXIV.2410.00917 (upper case), which is
    # an arXiv id. Its DOI, title and type keys are Crossref's too: it is still CSL-JSON.
    books = read("csl-json/zotero-csl-json-classics-books.json", "csl-json")
    assert [(b.year, b.venue, b.ids) for b in books] == [
        (1987, "Giardini", {}),
        (2006, "Accademia Roveretana degli Agiati", {}),
        (2001, "Vita e Pensiero", {}),
        (2000, "Quasar", {}),
    ]
    assert books[0].authors == ["Arrighetti, Graziano"] and books[1].authors == []
    assert books[2].title.startswith("Φάτις νικηφόρος.")
    (preprint,) = read("csl-json/zotero-csl-json-arxiv-preprint.json", "csl-json")
    assert preprint.ids == {"arxiv": "2410.00917"} and preprint.authors == ["AbuGhanem, M."]
    assert (preprint.year, preprint.venue) == (2024, "arXiv")
    raw = (SEARCH / "csl-json/zotero-csl-json-arxiv-preprint.json").read_bytes()
    assert sniff(decode(raw, "preprint.json"))[0] == "csl-json"


def test_an_openalex_snapshot_part_with_untitled_works(clone: Path) -> None:
    # A part of OpenAlex's snapshot (works/updated_date=2023-05-16/part_000, one work a line):
    # 27 works, 16 of them grants with an empty title (lines 2, 3, 9, 11-16, 18-22, 24, 27).
    # All 27 are read; the import keeps the 16 untitled ones out, counted, and queues the 11
    # titled ones: first W4206759534, "Manufacturers' Literature", Analytical Chemistry,
    # 1992-05-01, DOI 10.1021/ac00033a733; last W4313188262, a grant of 2006, DOI 10.3030/658846.
    rel = "openalex/openalex-snapshot-works-part-2023-05-16.jsonl"
    everything = read(rel, "openalex")
    assert len(everything) == 27
    untitled = [i for i, f in enumerate(everything, 1) if not f.title]
    assert untitled == [2, 3, 9, 11, 12, 13, 14, 15, 16, 18, 19, 20, 21, 22, 24, 27]
    found = [f for f in everything if f.title]
    assert len(found) == 11
    first, last = found[0], found[-1]
    assert first.title == "Manufacturers' Literature" and first.venue == "Analytical Chemistry"
    assert first.ids == {"doi": "10.1021/ac00033a733", "openalex": "W4206759534"}
    assert (first.year, first.date) == (1992, "1992-05-01")
    assert last.ids == {"doi": "10.3030/658846", "openalex": "W4313188262"} and last.year == 2006
    run = litcorpus("search", "import", str(SEARCH / rel), "--root", str(clone),
                    "--source", "openalex", "--query", "q")  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "27 records found, 0 duplicates removed, 11 queued, 16 kept out" in run.stdout
    assert "work 2: no title: kept out of the queue" in run.stderr
    logged = yaml.safe_load((clone / "searches.yaml").read_text())["searches"][-1]
    assert (logged["records_found"], logged["unscreenable"]) == (27, 16)
    assert litcorpus("check", "--root", str(clone)).returncode == 0


def test_csv_quotes_doubled_inside_a_cell_are_read_as_quotes() -> None:
    # Python's sniffer guesses "quotes not doubled" for this file (written by csv.writer with
    # every cell quoted), which split the first cell holding "" into two: a row of 4 cells
    # under a header of 3 was refused
    data = (
        '"title","year","abstract"\r\n'
        '"One","2026","A monitor, after each round, of ""useful convergence"", stops."\r\n'
        '"Two","2025","Plain."\r\n'
    )
    found = records(decode(data.encode(), "s.csv"), "csv", "s.csv")
    assert [(r.title, r.abstract) for r in found] == [
        ("One", 'A monitor, after each round, of "useful convergence", stops.'),
        ("Two", "Plain."),
    ]


def test_particles_stay_with_the_family_name() -> None:
    from litcorpus.sources.found import person

    assert person("Ludwig van Beethoven") == "van Beethoven, Ludwig"
    assert person("Martin Luther King Jr.") == "King, Martin Luther Jr."
    assert person("Gertrude van den Brink") == "van den Brink, Gertrude"
    assert person("Beethoven, Ludwig van") == "Beethoven, Ludwig van"  # has its comma already
    assert person("DeepSeek-AI") == "DeepSeek-AI"


# --- importing: the log, the queue, the duplicates ----------------------------------------


def test_import_logs_counts_and_queues_facts_only(clone: Path) -> None:
    run = litcorpus(
        "search", "import", str(SEARCH / "arxiv/arxiv-query-nicotine-2026.xml"), "--root",
        str(clone), "--source", "arxiv", "--query", "all:nicotine", "--date-run", "2026-11-30",
        "--family", "benchmark",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "logged search S001: 10 records found, 0 duplicates removed, 10 queued" in run.stdout
    log = yaml.safe_load((clone / "searches.yaml").read_text())["searches"]
    assert log == [
        {
            "id": "S001", "source": "arxiv", "database": "arXiv", "method": "database",
            "query": "all:nicotine", "date_run": "2026-11-30", "records_found": 10,
            "duplicates": 0, "file": "arxiv-query-nicotine-2026.xml",
            "sha256": hashlib.sha256(_file(ATOM)).hexdigest(),
            "query_family": "benchmark",
        }
    ]  # fmt: skip
    queue = [
        json.loads(line) for line in (clone / "screening/queue.jsonl").read_text().splitlines()
    ]
    assert [q["id"] for q in queue] == [f"Q{i:04d}" for i in range(1, 11)]
    assert queue[8]["ids"] == {"arxiv": "q-bio/0509018", "doi": "10.1088/1478-3975/3/2/007"}
    assert all(q["state"] == "pending" and q["search"] == "S001" for q in queue)
    committed = b"".join(
        (clone / p).read_bytes() for p in ("searches.yaml", "screening/queue.jsonl")
    )
    assert b"Fixture text" not in committed and b"abstract" not in committed
    store = json.loads((clone / "screening/.store/S001.json").read_text())
    assert store["abstracts"]["Q0001"] == "Fixture text: abstract replaced."
    assert (clone / "screening/.store/S001.raw").read_bytes() == (
        SEARCH / "arxiv/arxiv-query-nicotine-2026.xml"
    ).read_bytes()
    check = litcorpus("check", "--strict", "--root", str(clone))
    assert check.returncode == 0, check.stdout


def test_one_work_across_three_services_is_queued_once(clone: Path) -> None:
    """OpenAlex gives ChemCrow twice (the journal article, 2024, and the arXiv preprint, 2023:
    titles 92% alike); Semantic Scholar's match names both ids; Crossref the journal DOI."""
    steps = [
        ("openalex/openalex-works-title-search-chemcrow.json", "openalex", (2, 1, 1)),
        ("semanticscholar/s2-paper-search-match-chemcrow.json", "semanticscholar", (1, 1, 0)),
        ("crossref/crossref-work-10.1038-s42256-024-00832-8.json", "crossref", (1, 1, 0)),
    ]
    for rel, fmt, (found, dups, queued) in steps:
        run = litcorpus("search", "import", str(SEARCH / rel), "--root", str(clone), "--source",
                        fmt, "--query", "chemcrow")  # fmt: skip
        assert run.returncode == 0, run.stderr
        assert f"{found} records found, {dups} duplicates removed, {queued} queued" in run.stdout
    first = litcorpus("search", "import", str(SEARCH / steps[0][0]), "--root", str(clone),
                      "--source", "openalex", "--query", "again")  # fmt: skip
    assert "2 records found, 2 duplicates removed, 0 queued" in first.stdout
    queue = [json.loads(x) for x in (clone / "screening/queue.jsonl").read_text().splitlines()]
    assert len(queue) == 1
    # the journal article was queued; its preprint joined it (arXiv id), and so did S2's id
    assert queue[0]["ids"] == {
        "doi": "10.1038/s42256-024-00832-8", "openalex": "W4396723768", "arxiv": "2304.05376",
        "semanticscholar": "354dcdebf3f8b5feeed5c62090e0bc1f0c28db06",
    }  # fmt: skip
    dups = [json.loads(x) for x in (clone / "screening/duplicates.jsonl").read_text().splitlines()]
    assert [d["reason"] for d in dups[:2]] == [
        "title 92% similar; preprint (2023) and published version joined",
        "same arXiv id 2304.05376",
    ]
    assert all(d["duplicate_of"] == "Q0001" for d in dups)
    assert litcorpus("check", "--strict", "--root", str(clone)).returncode == 0


def test_openalex_style_bibtex_meets_the_exclusion_it_duplicates(
    clone: Path, tmp_path: Path
) -> None:
    """An arXiv DOI and an arXiv venue as OpenAlex-based tools write them: a retitled
    AgentBench is the excluded record E020 (arXiv 2308.03688), not a new paper."""
    bib = tmp_path / "openalex.bib"
    bib.write_text(
        "@article{w1, title = {AgentBench: evaluating LLMs as agents (v3)}, author = {Liu, Xiao},"
        " year = {2023}, journal = {arXiv (Cornell University)},"
        " doi = {10.48550/arxiv.2308.03688}}\n"
        "@article{w2, title = {A new study of agent teams}, author = {Doe, Jane}, year = {2025},"
        " journal = {ArXiv.org}, doi = {https://doi.org/10.48550/arXiv.2501.00001}}\n",
        encoding="utf-8",
    )
    run = litcorpus("search", "import", str(bib), "--root", str(clone), "--source", "bibtex",
                    "--query", "agents", "--database", "OpenAlex")  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "= exclusions/E020.yaml: same arXiv id 2308.03688" in run.stdout
    (queued,) = [json.loads(x) for x in (clone / "screening/queue.jsonl").read_text().splitlines()]
    assert queued["ids"] == {"arxiv": "2501.00001"} and queued["venue"] == "arXiv"
    # add: the same file is refused as a duplicate of E020 and of the queued record
    before = tree(clone)
    added = litcorpus("add", "--root", str(clone), "--bibtex", str(bib))
    assert added.returncode == 1
    assert "same arxiv id 2308.03688 as exclusions/E020.yaml" in added.stderr
    assert "Q0001, queued by search S001" in added.stderr
    assert tree(clone) == before


# --- bad input -----------------------------------------------------------------------------


def _cut(rel: str) -> bytes:
    raw = (SEARCH / rel).read_bytes()
    return raw[: len(raw) // 2]


def _file(rel: str) -> bytes:
    return (SEARCH / rel).read_bytes()


ATOM = "arxiv/arxiv-query-nicotine-2026.xml"
WORK = "openalex/openalex-work-W2109415576.json"
SCOPUS = "ris/scopus.ris"
BAD = [
    ("arxiv-truncated", "arxiv", lambda: _cut(ATOM), "import-invalid"),
    ("openalex-truncated", "openalex", lambda: _cut(WORK), "import-invalid"),
    ("s2-truncated", "semanticscholar", lambda: _cut("semanticscholar/s2-paper-batch.json"),
     "import-invalid"),
    ("crossref-truncated", "crossref",
     lambda: _cut("crossref/crossref-works-query-ecology-boettiger.json"), "import-invalid"),
    ("ris-truncated", "ris", lambda: _cut("ris/zotero-pubmed-crlf.ris"), "import-invalid"),
    ("csl-truncated", "csl-json", lambda: _cut("csl-json/zotero-better-csl-json-library.json"),
     "import-invalid"),
    ("bibtex-truncated", "bibtex", lambda: b"@article{a, title = {Half", "bibtex-invalid"),
    ("csv-ragged", "csv", lambda: b"title,year\nA,2020,extra\n", "import-invalid"),
    ("wrong-source", "arxiv", lambda: _file(SCOPUS), "import-wrong-format"),
    ("ris-as-csl", "csl-json", lambda: _file(SCOPUS), "import-wrong-format"),
    ("openalex-as-crossref", "crossref", lambda: _file(WORK), "import-wrong-format"),
    ("empty", "ris", lambda: b"", "import-empty"),
    ("blank", "csv", lambda: b"\n  \n", "import-empty"),
    ("binary", "csv", lambda: b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "unreadable-input"),
    ("latin1", "csv", lambda: "title\nCaf\xe9\n".encode("latin-1"), "unreadable-input"),
    ("no-title-column", "csv", lambda: b"name,year\nA,2020\n", "import-invalid"),
    ("empty-feed", "arxiv", lambda: b'<feed xmlns="http://www.w3.org/2005/Atom"></feed>',
     "import-empty"),
    ("duplicate-json-key", "openalex",
     lambda: b'{"id": "https://openalex.org/W1", "title": "A", "title": "B"}',
     "import-duplicate-key"),
    ("duplicate-csl-id", "csl-json",
     lambda: b'[{"id": "a", "type": "book", "title": "A"},'
             b' {"id": "a", "type": "book", "title": "B"}]',
     "import-duplicate-key"),
    ("duplicate-bibtex-key", "bibtex", lambda: b"@misc{a, title={A}}\n@misc{a, title={B}}\n",
     "bibtex-invalid"),
    ("duplicate-column", "csv", lambda: b"title,Title\nA,B\n", "import-duplicate-key"),
]  # fmt: skip


@pytest.mark.parametrize("case, fmt, data, code", BAD, ids=[b[0] for b in BAD])
def test_a_bad_export_is_refused_and_nothing_is_written(
    clone: Path, tmp_path: Path, case: str, fmt: str, data: object, code: str
) -> None:
    file = tmp_path / f"{case}.export"
    file.write_bytes(data())  # type: ignore[operator]
    before = tree(clone)
    run = litcorpus("search", "import", str(file), "--root", str(clone), "--source", fmt,
                    "--query", "q")  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    assert f": {code}: " in run.stderr and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 or code == "bibtex-invalid"
    assert tree(clone) == before


def test_an_unknown_source_is_a_usage_error(clone: Path) -> None:
    run = litcorpus("search", "import", str(SEARCH / "ris/scopus.ris"), "--root", str(clone),
                    "--source", "scopus", "--query", "q")  # fmt: skip
    assert run.returncode == 2 and "'scopus' is not one of" in run.stderr
    assert not (clone / "searches.yaml").exists()


@pytest.mark.parametrize(
    "name, data, code",
    [
        ("lib.ris", (SEARCH / "ris/scopus.ris").read_bytes(), "import-wrong-format"),
        ("lib.json", _file("csl-json/zotero-better-csl-json-library.json"),
         "import-wrong-format"),
        ("empty.bib", b"", "import-empty"),
        ("comments.bib", b"% only a comment\n", "import-empty"),
    ],
)  # fmt: skip
def test_add_refuses_what_is_not_bibtex(
    clone: Path, tmp_path: Path, name: str, data: bytes, code: str
) -> None:
    (tmp_path / name).write_bytes(data)
    before = tree(clone)
    run = litcorpus("add", "--root", str(clone), "--bibtex", str(tmp_path / name))
    assert run.returncode == 1 and f"add: {code}: " in run.stderr, run.stderr
    assert "next: fill" not in run.stdout
    assert tree(clone) == before


def test_add_refuses_an_empty_standard_input(clone: Path) -> None:
    run = litcorpus("add", "--root", str(clone), "--bibtex", "-", stdin="")
    assert run.returncode == 1 and "import-empty: standard input is empty" in run.stderr


# --- online searches and add --arxiv, answered from 127.0.0.1 --------------------------------


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A local server of the files put in its folder, the way the APIs answer (any query)."""
    folder = tmp_path / "www"
    folder.mkdir()

    class Handler(SimpleHTTPRequestHandler):
        def do_GET(self) -> None:
            self.path = self.path.split("?", 1)[0]
            super().do_GET()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", folder
    server.shutdown()


def test_search_run_keeps_the_raw_answer(clone: Path, served: tuple[str, Path]) -> None:
    base, folder = served
    raw = (SEARCH / "arxiv/arxiv-query-cs-ro-2025.xml").read_bytes()
    (folder / "query").write_bytes(raw)
    run = litcorpus("search", "run", "--root", str(clone), "--source", "arxiv", "--query",
                    "neural", "--max", "2",
                    env={"LITCORPUS_ARXIV_API": f"{base}/query"})  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "2 records found, 0 duplicates removed, 2 queued" in run.stdout
    assert (clone / "screening/.store/S001.raw").read_bytes() == raw


def test_add_arxiv_keeps_particles_and_old_style_ids(clone: Path, served: tuple[str, Path]) -> None:
    base, folder = served
    (folder / "query").write_text(
        '<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/abs/cs/0112017v1'
        "</id><published>2001-12-19T00:00:00Z</published><title>An old title</title>"
        "<summary>x</summary><author><name>Ludwig van Beethoven</name></author></entry></feed>",
        encoding="utf-8",
    )
    run = litcorpus("add", "--root", str(clone), "--arxiv", "cs/0112017",
                    env={"LITCORPUS_ARXIV_API": f"{base}/query"})  # fmt: skip
    assert run.returncode == 0, run.stderr
    written = clone / run.stdout.split("wrote ", 1)[1].split()[0]
    text = written.read_text()
    assert '"van Beethoven, Ludwig"' in text and 'arxiv: "cs/0112017"' in text
    wrong = litcorpus("add", "--root", str(clone), "--arxiv", "cs/0112018",
                      env={"LITCORPUS_ARXIV_API": f"{base}/query"})  # fmt: skip
    assert wrong.returncode == 1 and "arxiv-bad-answer" in wrong.stderr


def test_a_zotero_bibliography_with_arxiv_dois(clone: Path) -> None:
    """DeepBench's 40 entries: seven arXiv-DOI entries (both spellings) and eprints beside
    journal DOIs; two pairs within the file are one work each."""
    found = {f.key: f for f in read("bibtex/zotero-deepbench-paper.bib", "bibtex")}
    assert len(found) == 40
    assert found["gonzalezGalaxyDetectionIdentification2018a"].ids == {"arxiv": "1809.01691"}
    assert found["andreopoulosGENIENeutrinoMonte2015"].ids == {"arxiv": "1510.05494"}
    assert found["gonzalezGalaxyDetectionIdentification2018a"].venue == "arXiv"  # {{arXiv}}
    assert found["lewisEfficientComputationCMB2000"].ids == {
        "arxiv": "astro-ph/9911177", "doi": "10.1086/309179",
    }  # fmt: skip
    assert found["heDeepResidualLearning2015d"].venue == "arXiv"  # journal = {CoRR}
    run = litcorpus("search", "import", str(SEARCH / "bibtex/zotero-deepbench-paper.bib"),
                    "--root", str(clone), "--source", "bibtex", "--query", "cosmology")  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "40 records found, 2 duplicates removed, 38 queued" in run.stdout
    assert "'GalSim: The Modular Galaxy Image Simulation Toolkit' = Q" in run.stdout
    assert ": same DOI id 10.1051/0004-6361/201322068" in run.stdout


def test_an_openalex_made_bibliography(clone: Path, tmp_path: Path) -> None:
    """AutoResearchClaw's 191 entries, built from OpenAlex records: refused whole while two keys
    each name two works; with the second of each renamed, OpenAlex's arXiv DOIs and arXiv
    categories given as journals come in as arXiv records."""
    raw = SEARCH / "bibtex/openalex-autoresearchclaw-references.bib"
    before = tree(clone)
    refused = litcorpus("search", "import", str(raw), "--root", str(clone), "--source", "bibtex",
                        "--query", "edge ai", "--database", "OpenAlex")  # fmt: skip
    assert refused.returncode == 1 and "bibtex-invalid" in refused.stderr
    assert "key 'denisova2024invariants' is used twice (lines 918 and 928)" in refused.stderr
    assert "key 'denisova2023invariants' is used twice (lines 1187 and 1264)" in refused.stderr
    assert tree(clone) == before
    lines = raw.read_text(encoding="utf-8").split("\n")
    lines[927] = lines[927].replace("invariants,", "invariantsb,")  # line 928
    lines[1263] = lines[1263].replace("invariants,", "invariantsb,")  # line 1264
    fixed = tmp_path / "references.bib"
    fixed.write_text("\n".join(lines), encoding="utf-8")
    found = {f.key: f for f in read(str(fixed), "bibtex")}
    assert len(found) == 191
    openalex_form = {
        "weber2024redpajama": "2411.12372", "liu2021aggregate": "2111.11057",
        "chen2024drimann": "2410.15621", "brandhofer2023optimal": "2308.00194",
    }  # fmt: skip
    for key, arxiv in openalex_form.items():
        assert (found[key].ids, found[key].venue) == ({"arxiv": arxiv}, "arXiv"), key
    # journal = {quant-ph}
    assert (found["tuziemski2025recent"].ids, found["tuziemski2025recent"].venue) == (
        {"arxiv": "2510.06337"}, "arXiv",
    )  # fmt: skip
    assert found["desislavov2021compute"].ids == {
        "arxiv": "2109.05472", "doi": "10.1016/j.suscom.2023.100857",
    }  # fmt: skip
    assert sum("arxiv" in f.ids for f in found.values()) == 116
    assert sum("doi" in f.ids for f in found.values()) == 95
    assert sum(not f.ids for f in found.values()) == 2
    run = litcorpus("search", "import", str(fixed), "--root", str(clone), "--source", "bibtex",
                    "--query", "edge ai", "--database", "OpenAlex")  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "191 records found, 0 duplicates removed, 191 queued" in run.stdout
    # Denisova's four "delta-invariants of Du Val del Pezzo surfaces of degree N": alike titles,
    # four arXiv ids, so four works; the last three are marked for the screener, not merged
    warned = run.stderr.strip().splitlines()
    assert [w.split("'")[1] for w in warned] == [
        "denisova2024invariantsb", "denisova2023invariants", "denisova2023invariantsb",
    ]  # fmt: skip
    assert all("marked as a possible duplicate" in w for w in warned)


def test_an_entry_whose_fields_name_two_arxiv_ids_is_said(clone: Path, tmp_path: Path) -> None:
    bib = tmp_path / "two.bib"
    bib.write_text(
        "@article{k1, title = {Agents that disagree}, author = {Doe, Jane}, year = {2025},\n"
        "  journal = {cs.MA}, eprint = {2501.00001}, archiveprefix = {arXiv},\n"
        "  url = {https://arxiv.org/abs/2404.12621v2}}\n",
        encoding="utf-8",
    )
    run = litcorpus("search", "import", str(bib), "--root", str(clone), "--source", "bibtex",
                    "--query", "agents")  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines() == [
        "litcorpus search import: warning: BibTeX entry 'k1' (line 1): "
        "arxiv 2501.00001 kept, 2404.12621 also named"
    ]
    (queued,) = [json.loads(x) for x in (clone / "screening/queue.jsonl").read_text().splitlines()]
    assert (queued["ids"], queued["venue"]) == ({"arxiv": "2501.00001"}, "arXiv")


def test_a_bibliography_with_broken_entries_is_refused_whole(clone: Path) -> None:
    """richai's first three entries lack the comma after their key (lines 1, 9 and 20)."""
    before = tree(clone)
    run = litcorpus("search", "import", str(SEARCH / "bibtex/richai-final-report-references.bib"),
                    "--root", str(clone), "--source", "bibtex", "--query", "q")  # fmt: skip
    assert run.returncode == 1 and "bibtex-invalid" in run.stderr
    assert all(f"line {n}: cannot parse" in run.stderr for n in (1, 9, 20))
    assert tree(clone) == before
