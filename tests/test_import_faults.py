"""Fault injection at the front of the review: dirty values that real services return, in every
format `search import` reads, never leave a queue or a search log that `check` refuses, and the
next import and decision still work. Options and folders that would poison the corpus (control
characters, symbolic links) are refused with one line and nothing written; a damaged queue is a
list of problems with line numbers, never a traceback or a lock."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_search_import import litcorpus as run_litcorpus
from test_search_import import tree

# Values real services and exports give (see issue notes in the test names).
SICI = "10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-0"  # Wiley, < and >
HASH = "10.1002/1096-9071(200006)61:2<207::AID-JMV7>3.0.CO;2-#"  # a SICI DOI ending in #
BRACKETS = "10.1890/0012-9623(2008)89[475:stdacc]2.0.co;2"  # as an OpenAlex page gives it
ESC_TITLE = "Agents that \x1b[31mlearn\x1b[0m to talk\x07"
BIDI_TITLE = "Debate \u202eesrever\u202c and \u2066isolate\u2069 as reward"
DIRTY = [
    {"title": "Clean multi-agent reinforcement learning", "doi": "10.1000/clean.1", "year": 2024},
    {"title": "A Wiley SICI identifier", "doi": SICI, "year": 1998},
    {"title": "A DOI that ends in a hash", "doi": HASH, "year": 2000},
    {"title": "A DOI with square brackets", "doi": BRACKETS, "year": 2008},
    {"title": ESC_TITLE, "doi": "10.1000/esc.2", "year": 2023},
    {"title": BIDI_TITLE, "doi": "10.1000/bidi.3", "year": 2023},
    {"title": "Year zero", "doi": "10.1000/y0.4", "year": 0},
    {"title": "Year far ahead", "doi": "10.1000/y9999.5", "year": 9999},
    {"title": "A nameless author", "doi": "10.1000/anon.6", "year": 2022, "nameless": True},
    {"title": "A script address", "doi": "10.1000/js.7", "year": 2021,
     "url": "javascript:alert(1)"},
    {"title": "", "doi": "10.1000/untitled.8", "year": 2021},
]  # fmt: skip
TITLED = [r for r in DIRTY if r["title"]]


def _name(r: dict) -> list[str]:
    return [] if r.get("nameless") else ["Ada Lovelace"]


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def arxiv(recs: list[dict]) -> str:
    entries = "".join(
        f"<entry><id>http://arxiv.org/abs/2401.{10000 + i}v1</id><title>{_xml(r['title'])}</title>"
        f"<published>{r['year']:04d}-01-02T00:00:00Z</published>"
        + "".join(f"<author><name>{n}</name></author>" for n in _name(r))
        + f"<arxiv:doi>{_xml(r['doi'])}</arxiv:doi></entry>"
        for i, r in enumerate(recs)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" '
        f'xmlns:arxiv="http://arxiv.org/schemas/atom">{entries}</feed>'
    )


def openalex(recs: list[dict]) -> str:
    works = [
        {
            "id": f"https://openalex.org/W{i + 1}",  # short ids, as real early works have
            "title": r["title"] or None,
            "publication_year": r["year"],
            "publication_date": str(r["year"]),  # a date given as a bare year string
            "doi": f"https://doi.org/{r['doi']}",
            "authorships": [{"author": {"display_name": None if r.get("nameless") else n}}
                            for n in _name(r) or [None]],
            "primary_location": {"landing_page_url": r.get("url")},
            "locations": [{"landing_page_url": r.get("url")}] if r.get("url") else [],
        }
        for i, r in enumerate(recs)
    ]  # fmt: skip
    return json.dumps({"meta": {"count": len(works)}, "results": works})


def semanticscholar(recs: list[dict]) -> str:
    papers = [
        {
            "paperId": hashlib.sha1(r["doi"].encode()).hexdigest(),
            "title": r["title"],
            "year": r["year"],
            "authors": [{"name": n} for n in _name(r)] + [{"name": None}] * bool(r.get("nameless")),
            "externalIds": {"DOI": r["doi"]},
            "url": r.get("url"),
        }
        for r in recs
    ]  # fmt: skip
    return json.dumps({"total": len(papers), "data": papers})


def crossref(recs: list[dict]) -> str:
    items = []
    for r in recs:
        item = {
            "DOI": r["doi"],
            "type": "journal-article",
            "author": [{"sequence": "first"}] if r.get("nameless") else [
                {"family": "Lovelace", "given": "Ada"}],
            "issued": {"date-parts": [[r["year"]]]},
            "URL": r.get("url") or f"https://doi.org/{r['doi']}",
        }  # fmt: skip
        if r["title"]:
            item["title"] = [r["title"]]
        items.append(item)
    return json.dumps({"status": "ok", "message-type": "work-list", "message": {"items": items}})


def ris(recs: list[dict]) -> str:
    out = []
    for r in recs:
        lines = ["TY  - JOUR"] + ([f"TI  - {r['title']}"] if r["title"] else [])
        lines += [f"AU  - {n}" for n in _name(r)] + [f"PY  - {r['year']}", f"DO  - {r['doi']}"]
        lines += [f"UR  - {r['url']}"] if r.get("url") else []
        out.append("\n".join([*lines, "ER  - ", ""]))
    return "\n".join(out)


def bibtex(recs: list[dict]) -> str:
    return "\n".join(
        f"@article{{k{i},\n  title = {{{r['title']}}},\n  author = {{{' and '.join(_name(r))}}},\n"
        f"  year = {{{r['year']}}},\n  doi = {{{r['doi']}}},\n"
        + (f"  url = {{{r['url']}}},\n" if r.get("url") else "")
        + "}\n"
        for i, r in enumerate(recs)
    )


def csl(recs: list[dict]) -> str:
    items = [
        {
            "id": f"item{i}",
            "type": "article-journal",
            "title": r["title"],
            "author": [{"family": "Lovelace", "given": "Ada"}] if _name(r) else [{}],
            "issued": {"date-parts": [[r["year"]]]},
            "DOI": r["doi"],
            **({"URL": r["url"]} if r.get("url") else {}),
        }
        for i, r in enumerate(recs)
    ]
    return json.dumps(items)


def csv_export(recs: list[dict]) -> str:
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["Title", "Authors", "Year", "DOI", "URL"])
    for r in recs:
        w.writerow([r["title"], "; ".join(_name(r)), r["year"], r["doi"], r.get("url", "")])
    return buf.getvalue()


WRITERS = {
    "arxiv": arxiv,
    "openalex": openalex,
    "semanticscholar": semanticscholar,
    "crossref": crossref,
    "ris": ris,
    "bibtex": bibtex,
    "csl-json": csl,
    "csv": csv_export,
}
# XML 1.0 cannot hold C0 controls: a feed with them is not a feed, and is refused whole.
NO_CONTROLS = {"arxiv"}


def litcorpus(
    *args: str, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return run_litcorpus(*args, stdin=stdin, env={"LITCORPUS_REVIEWER": "ana", **(env or {})})


def queue_of(root: Path) -> list[dict]:
    text = (root / "screening" / "queue.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _import(
    root: Path, data: str | bytes, fmt: str, *extra: str, family: str = "reinforcement_learning"
) -> subprocess.CompletedProcess[str]:
    file = root.parent / f"export.{fmt}"
    file.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    query = ["--query", "multi-agent reinforcement learning"]
    families = ["--family", family] if family else []
    return litcorpus("search", "import", str(file), "--root", str(root), "--source", fmt,
                     *query, *families, *extra)  # fmt: skip


@pytest.mark.parametrize("fmt", list(WRITERS))
def test_dirty_values_in_every_format_never_poison_the_queue(clone: Path, fmt: str) -> None:
    recs = [r for r in DIRTY if fmt not in NO_CONTROLS or r["title"] != ESC_TITLE]
    run = _import(clone, WRITERS[fmt](recs), fmt)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    queued = queue_of(clone)
    titled = [r for r in recs if r["title"]]
    assert len(queued) == len(titled)
    by_title = {q["title"]: q for q in queued}
    # control and bidirectional characters are removed, and the import says so
    if fmt not in NO_CONTROLS:
        assert "Agents that [31mlearn [0m to talk" in by_title
        assert "control or bidirectional characters removed" in run.stderr
    assert "Debate esrever and isolate as reward" in by_title
    # DOIs that hold <, >, # and [ ] are DOIs: kept, and their address percent-encoded
    sici = by_title["A Wiley SICI identifier"]
    assert sici["ids"]["doi"] == SICI.lower()
    assert "<" not in sici["url"]
    assert fmt == "arxiv" or sici["url"].upper().endswith("%3C693::AID-ASI4%3E3.0.CO;2-0")
    assert by_title["A DOI with square brackets"]["ids"]["doi"] == BRACKETS
    assert by_title["A DOI that ends in a hash"]["ids"]["doi"] == HASH.lower()
    # years out of range are dropped with a warning, never written
    assert by_title["Year zero"].get("year") is None
    assert by_title["Year far ahead"].get("year") is None
    assert "is not a year; dropped" in run.stderr
    assert by_title["A nameless author"]["authors"] == []
    assert not by_title["A script address"]["url"].startswith("javascript")
    # the untitled record is kept out and counted, not a refusal of the file
    assert "1 kept out with no title to screen" in run.stdout
    logged = yaml.safe_load((clone / "searches.yaml").read_text(encoding="utf-8"))["searches"]
    assert logged[-1]["unscreenable"] == 1
    assert logged[-1]["records_found"] == len(recs)
    check = litcorpus("check", "--root", str(clone), "--format", "json")
    assert json.loads(check.stdout)["ok"], check.stdout
    # the next import and a decision still work
    again = _import(clone, WRITERS[fmt](recs), fmt)
    assert again.returncode == 0, again.stderr
    assert f"{len(recs)} records found, {len(titled)} duplicates removed, 0 queued" in again.stdout
    qid = by_title["A script address"]["id"]
    done = litcorpus("screen", "decide", qid, "exclude", "--reason", "X2", "--root", str(clone),
                     "--note", "It studies a single agent.")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(litcorpus("check", "--root", str(clone), "--format", "json").stdout)["ok"]


def test_a_feed_with_control_characters_is_refused_whole(clone: Path) -> None:
    before = tree(clone)
    run = _import(clone, arxiv(DIRTY[4:5]), "arxiv")
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "\x1b" not in run.stderr
    assert tree(clone) == before


def test_a_nul_after_the_first_four_kilobytes(clone: Path) -> None:
    filler = [{"title": f"Padding record {i}", "doi": f"10.1000/pad.{i}", "year": 2020}
              for i in range(60)]  # fmt: skip
    text = ris(filler)
    assert len(text) > 4096
    text += ris([{"title": "A title with a \x00 NUL", "doi": "10.1000/nul.1", "year": 2020}])
    run = _import(clone, text, "ris")
    assert run.returncode == 0, run.stderr
    assert any(q["title"] == "A title with a NUL" for q in queue_of(clone))
    assert json.loads(litcorpus("check", "--root", str(clone), "--format", "json").stdout)["ok"]


def test_ids_the_taxonomy_rejects_are_dropped_not_queued(mini_root: Path) -> None:
    # the fixture corpus has a taxonomy of its own whose DOI pattern is Crossref's strict one
    run = _import(mini_root, ris(DIRTY[:2]), "ris", family="")
    assert run.returncode == 0, run.stderr
    queued = {q["title"]: q for q in queue_of(mini_root)}
    assert "doi" not in queued["A Wiley SICI identifier"]["ids"]
    assert "is no identifier the taxonomy knows; dropped" in run.stderr
    assert queued["Clean multi-agent reinforcement learning"]["ids"] == {"doi": "10.1000/clean.1"}


# --- options and folders that would poison the corpus ----------------------------------------


@pytest.mark.parametrize(
    "option, value",
    [("--query", "agents\x1b[2J"), ("--database", "Scopus\x07"), ("--query", "a\u202eb")],
)
def test_control_characters_in_search_options_are_refused(
    clone: Path, option: str, value: str
) -> None:
    file = clone.parent / "one.ris"
    file.write_text(ris(DIRTY[:1]))
    before = tree(clone)
    args = {"--query": "q", "--database": "Scopus", option: value}
    run = litcorpus("search", "import", str(file), "--root", str(clone), "--source", "ris",
                    *[x for kv in args.items() for x in kv])  # fmt: skip
    assert run.returncode == 2, run.stderr
    assert option in run.stderr and "\x1b" not in run.stderr and "\u202e" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
    assert tree(clone) == before


@pytest.fixture
def queued(clone: Path) -> Path:
    assert _import(clone, ris(DIRTY[:3]), "ris").returncode == 0
    return clone


@pytest.mark.parametrize(
    "args, env",
    [
        (["--reviewer", "ana\x1b[1m"], {}),
        (["--reviewer", "ana\nben"], {}),
        (["--note", "out\u202e of scope"], {}),
        ([], {"LITCORPUS_REVIEWER": "ana\x07"}),
    ],
)
def test_control_characters_in_decisions_are_refused(
    queued: Path, args: list[str], env: dict[str, str]
) -> None:
    before = tree(queued)
    for cmd in (["decide", "Q0001", "exclude", "--reason", "X2"], ["not-retrieved", "Q0001"]):
        note = [] if "--note" in args else ["--note", "It studies one agent."]
        run = litcorpus("screen", *cmd, "--root", str(queued), *note, *args, env=env)
        assert run.returncode == 2, run.stdout + run.stderr
        assert len(run.stderr.strip().splitlines()) == 1 and "\x1b" not in run.stderr
        assert tree(queued) == before


def test_maybe_asks_why(queued: Path) -> None:
    run = litcorpus("screen", "decide", "Q0001", "maybe", "--root", str(queued))
    assert run.returncode == 2 and "--note is needed with maybe" in run.stderr
    run = litcorpus("screen", "decide", "Q0001", "maybe", "--root", str(queued),
                    "--note", "Only the full text says whether the critic is trained.")  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert queue_of(queued)[0]["decisions"][0]["note"].startswith("Only the full text")


@pytest.mark.parametrize("link", ["screening", "screening/.store", "exclusions"])
def test_no_write_follows_a_committed_symlink(queued: Path, tmp_path: Path, link: str) -> None:
    outside = tmp_path / "outside"
    target = queued / link
    import shutil

    shutil.move(str(target), str(outside))
    target.symlink_to(outside, target_is_directory=True)
    before = {p.name: p.read_bytes() for p in outside.rglob("*") if p.is_file()}
    run = _import(queued, ris(DIRTY[3:5]), "ris")
    decided = litcorpus("screen", "decide", "Q0001", "exclude", "--reason", "X2",
                        "--root", str(queued), "--note", "It studies one agent.")  # fmt: skip
    for done in (run, decided) if link != "exclusions" else (decided,):
        assert done.returncode == 1, done.stdout + done.stderr
        assert "Traceback" not in done.stderr and "symbolic link" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    assert {p.name: p.read_bytes() for p in outside.rglob("*") if p.is_file()} == before
    if link.startswith("screening"):
        check = json.loads(litcorpus("check", "--root", str(queued), "--format", "json").stdout)
        assert not check["ok"] and any("symbolic link" in p["message"] for p in check["problems"])


# --- a damaged queue: problems with lines, never a lock -------------------------------------

DAMAGE = [
    ("not-json", b"{this is not json"),
    ("a-list", b"[1, 2, 3]"),
    ("decisions-a-number", b'{"id": "Q0050", "search": "S001", "title": "T", "authors": [], '
     b'"year": null, "date": "", "venue": "", "ids": {}, "url": "", "state": "pending", '
     b'"decisions": 5}'),
    ("ids-a-list", b'{"id": "Q0051", "search": "S001", "title": "T", "authors": [], "year": null, '
     b'"date": "", "venue": "", "ids": ["x"], "url": "", "state": "pending"}'),
    ("authors-null", b'{"id": "Q0052", "search": "S001", "title": "T", "authors": [null], '
     b'"year": null, "date": "", "venue": "", "ids": {}, "url": "", "state": "pending"}'),
    ("not-utf8", b'{"id": "Q0053", "title": "\xff\xfe"}'),
    ("deep", b"[" * 100000),
]  # fmt: skip


@pytest.mark.parametrize("case, line", DAMAGE, ids=[d[0] for d in DAMAGE])
def test_a_damaged_queue_line_is_a_problem_not_a_lock(queued: Path, case: str, line: bytes) -> None:
    file = queued / "screening" / "queue.jsonl"
    lines = file.read_bytes().splitlines()
    lines.insert(1, line)
    file.write_bytes(b"\n".join(lines) + b"\n")
    check = litcorpus("check", "--root", str(queued), "--format", "json")
    assert check.returncode == 1 and "Traceback" not in check.stderr
    problems = [p for p in json.loads(check.stdout)["problems"] if p["code"] == "queue-invalid"]
    assert problems and problems[0]["line"] == 2 and problems[0]["path"] == "screening/queue.jsonl"
    listed = litcorpus("screen", "list", "--root", str(queued))
    assert listed.returncode == 0 and "Traceback" not in listed.stderr
    assert "queue.jsonl:2:" in listed.stderr and "Q0001" in listed.stdout
    done = litcorpus("screen", "decide", "Q0003", "exclude", "--reason", "X2",
                     "--root", str(queued), "--note", "It studies one agent.")  # fmt: skip
    assert done.returncode == 0, done.stderr
    more = _import(queued, ris(DIRTY[5:7]), "ris")
    assert more.returncode == 0, more.stderr
    # the bad line stands where it stood, untouched, for someone to mend
    assert file.read_bytes().splitlines()[1] == line
    ids = [json.loads(x)["id"] for x in file.read_bytes().splitlines() if x != line]
    assert len(ids) == len(set(ids)) == 5
    bad_id = json.loads(line.decode(errors="replace"))["id"] if line.startswith(b'{"id') else "Q0"
    assert all(int(i[1:]) > int(bad_id[1:]) for i in ids[3:])  # past the bad line's id


# --- any record at all --------------------------------------------------------------------

text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
record = st.fixed_dictionaries(
    {
        "title": text,
        "doi": st.one_of(
            st.just("10.1000/x"), st.from_regex(r"10\.\d{4}/.{1,12}", fullmatch=True), text
        ),
        "year": st.one_of(st.integers(-5, 10**6), st.none()),
        "url": st.one_of(text, st.just("https://example.org/a b"), st.just("javascript:x")),
        "author": text,
    }
)  # fmt: skip


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(record, min_size=1, max_size=6), st.sampled_from(["csl-json", "csv"]))
def test_any_records_import_into_a_queue_the_loader_accepts(
    clone: Path, recs: list[dict], fmt: str
) -> None:
    import datetime as dt

    from litcorpus.model.corpus import load_corpus
    from litcorpus.model.queue import load_queue
    from litcorpus.model.searches import load_searches
    from litcorpus.screening.imports import import_search, read_export
    from litcorpus.sources.found import SourceError

    if fmt == "csv":
        data = csv_export([{**r, "year": "" if r["year"] is None else r["year"]} for r in recs])
    else:
        data = json.dumps([
            {"id": f"i{i}", "type": "article", "title": r["title"], "DOI": r["doi"],
             "URL": r["url"], "author": [{"literal": r["author"]}],
             "issued": {"date-parts": [[r["year"]]]}}
            for i, r in enumerate(recs)
        ])  # fmt: skip
    try:
        found = read_export(data.encode("utf-8", "surrogatepass"), "export", fmt)
    except SourceError:
        return  # a file the reader refuses whole (a CSV whose rows it cannot split) writes nothing
    corpus = load_corpus(clone)
    import_search(corpus, found, data.encode(), "export", fmt, "q", dt.date.today())
    queue = load_queue(clone, corpus.taxonomy)
    assert queue.problems == []
    assert load_searches(clone).problems == []


def test_alike_titles_with_different_dois_are_never_merged(clone: Path) -> None:
    recs = [
        {"title": "Learning to delegate among language model agents", "doi": "10.1000/a.1",
         "year": 2025},
        {"title": "Learning to delegate among language-model agents", "doi": "10.1000/b.2",
         "year": 2025},
    ]  # fmt: skip
    run = _import(clone, ris(recs), "ris")
    assert "2 records found, 0 duplicates removed, 2 queued" in run.stdout
    assert "close to Q0001's but their ids differ" in run.stderr
    queued = queue_of(clone)
    assert "possible_duplicate" not in queued[0]
    assert queued[1]["possible_duplicate"] == "Q0001"
    listed = litcorpus("screen", "list", "--root", str(clone), "--format", "json")
    rows = {r["id"]: r for r in json.loads(listed.stdout)}
    assert rows["Q0002"]["possible_duplicate"] == "Q0001"
    shown = litcorpus("screen", "--root", str(clone), stdin="q\n")
    assert (
        "Possible duplicate of Q0001" in shown.stdout
        or "Possible duplicate of Q0002" not in shown.stdout
    )
    assert json.loads(litcorpus("check", "--root", str(clone), "--format", "json").stdout)["ok"]
