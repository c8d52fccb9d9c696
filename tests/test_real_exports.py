"""Exports of the big indexes that other projects committed (IEEE Xplore, Springer Link, Scopus,
Web of Science, PubMed, EBSCO PsycINFO, Lens, Crossref), read and imported as a maintainer
would: the records, names, identifiers, untitled records and duplicates asserted here were read
off the raw files by hand (tests/fixtures/search/PROVENANCE.md lists each file's facts)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import FIXTURES
from litcorpus.sources.detect import decode, records, sniff

SEARCH = FIXTURES / "search"


def read(rel: str, fmt: str) -> list:
    return records(decode((SEARCH / rel).read_bytes(), rel), fmt, rel)


def litcorpus(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "litcorpus", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "LITCORPUS_REVIEWER": "ana"},
    )


def test_ieee_xplore_ris_with_a_carriage_return_between_records() -> None:
    # each record ends "ER  - \r\n" + "\n" + "\r": the next TY starts after a lone CR
    raw = (SEARCH / "ris/ieee-xplore.ris").read_bytes()
    assert raw.count(b"\n\rTY  - ") == 24
    found = read("ris/ieee-xplore.ris", "ris")
    assert len(found) == 25
    first, last = found[0], found[-1]
    assert first.title == "The European Approach to the Exascale Challenge"
    assert first.ids == {"doi": "10.1109/mcse.2018.2884139"} and first.year == 2019
    assert first.venue == "Computing in Science & Engineering"
    assert last.title.startswith("Trends in High Performance Computing: Exascale Systems")
    assert last.authors[0] == "Parnell, L. A." and len(last.authors) == 4
    assert last.ids == {"doi": "10.1109/itherm.2019.8757229"}
    assert found[15].ids == {}  # record 16 has an empty DO line
    assert len(found[8].authors) == 51


def test_ieee_xplore_csv_keeps_its_venue() -> None:
    found = read("csv/ieee-xplore.csv", "csv")
    assert len(found) == 10
    first, last = found[0], found[-1]
    assert first.title == (
        'Exascale Computing Trends: Adjusting to the "New Normal"\' for Computer Architecture'
    )
    assert first.authors == ["Kogge, P.", "Shalf, J."] and first.year == 2013
    assert first.venue == "Computing in Science & Engineering"
    assert first.ids == {"doi": "10.1109/mcse.2013.95"}
    assert last.authors == ["Chang, Y. -T. S.", "Jin, H.", "Bauer, J."]
    assert last.venue == "2016 5th Workshop on Extreme-Scale Programming Tools (ESPT)"
    assert len(found[7].authors) == 29


def test_springer_link_csv_item_columns_and_run_together_names() -> None:
    assert sniff(decode((SEARCH / "csv/springer-link.csv").read_bytes(), "x"))[0] is None
    found = read("csv/springer-link.csv", "csv")
    assert len(found) == 18  # no newline after the last record
    first, last = found[0], found[-1]
    assert first.title == "Graph-Based Load Balancing Model for Exascale Computing Systems"
    assert first.authors == [
        "Aliev, Araz R.",
        "Ismayilova, Nigar T.",
    ]  # "Araz R. AlievNigar T. Ismayilova"
    assert first.ids == {"doi": "10.1007/978-3-030-92127-9_33"} and first.year == 2022
    assert first.venue.startswith("11th International Conference on Theory and Application")
    assert first.url == "http://link.springer.com/chapter/10.1007/978-3-030-92127-9_33"
    assert last.authors == ["Saidi, Umali"]
    assert last.venue == "Africa and the Fourth Industrial Revolution"


def test_scopus_csv_old_and_new_layouts() -> None:
    old = read("csv/scopus.csv", "csv")  # BOM, unquoted header, names separated by ", "
    assert [f.title for f in old] == [
        "Scalable molecular dynamics with NAMD",
        "Petri Nets: Properties, Analysis and Applications",
    ]
    assert len(old[0].authors) == 10 and old[0].authors[0] == "Phillips, J.C."
    assert "Kalé, L." in old[0].authors
    assert old[0].venue == "Journal of Computational Chemistry" and old[0].year == 2005
    assert old[0].url.endswith("eid=2-s2.0-27344436659&doi=10.1002%2fjcc.20289&partnerID=40"
                               "&md5=f900b7ec25bef86a2619de438f99ae32")  # fmt: skip
    assert old[1].authors == ["Murata, T."] and old[1].ids == {"doi": "10.1109/5.24143"}
    new = read("csv/scopus-2023.csv", "csv")  # BOM then a quoted header, names by "; "
    assert len(new) == 18
    assert new[0].authors == ["Hao, J.", "High, R.", "Siu, K.-C."]
    assert new[0].ids == {"doi": "10.1080/00140139.2022.2113152", "pmid": "35965444"}
    assert new[-1].ids == {"doi": "10.1111/jar.13042", "pmid": "36250222"}
    assert len(new[-1].authors) == 7 and new[-1].authors[0] == "Wilding, C."


def test_pubmed_csv_names_and_pmids() -> None:
    found = read("csv/pubmed.csv", "csv")
    assert len(found) == 6
    first, last = found[0], found[-1]
    assert first.authors == ["Lim, SM", "Shiau, CWC", "Cheng, LJ", "Lau, Y"]
    assert first.ids == {"doi": "10.1016/j.beth.2021.09.007", "pmid": "35227408"}
    assert first.venue == "Behav Ther" and first.year == 2022
    assert last.authors == ["Amiri, P", "Karahanna, E"]
    assert last.ids == {"doi": "10.1093/jamia/ocac014", "pmid": "35137107"}
    assert len(found[3].authors) == 11


def test_ebsco_psycinfo_ris() -> None:
    found = read("ris/psycinfo-ebsco.ris", "ris")
    assert len(found) == 25
    first, last = found[0], found[-1]
    assert first.title.endswith("time-frequency decompositions")
    assert "\uff1a" in first.title  # the export's full-width colon, kept
    assert len(first.authors) == 6 and first.authors[0] == "Lyu, Dong"
    assert first.ids == {"doi": "10.1016/j.neuropsychologia.2022.108369"}
    assert first.venue == "Neuropsychologia" and first.year == 2022
    assert last.authors == ["Gillis, Phoenix"] and last.year == 2013 and last.ids == {}
    assert len(found[8].authors) == 27


def test_web_of_science_plain_text_two_projects() -> None:
    assert sniff(decode((SEARCH / "wos/wos-plain-wosfile.txt").read_bytes(), "x"))[0] == "wos"
    found = read("wos/wos-plain-wosfile.txt", "wos")  # BOM, blank line after each ER
    assert len(found) == 20
    first, last = found[0], found[-1]
    assert first.title == (
        "Knowledge networks as channels and conduits: The effects of spillovers in the Boston "
        "biotechnology community"
    )
    assert first.authors == ["Owen-Smith, J", "Powell, WW"] and first.year == 2004
    assert first.venue == "ORGANIZATION SCIENCE" and first.ids == {"doi": "10.1287/orsc.1030.0054"}
    assert last.authors == ["Leydesdorff, Loet", "Persson, Olle"]  # AF, the full names
    assert last.ids == {"doi": "10.1002/asi.21347"}
    assert len(found[1].authors) == 24 and found[17].ids == {}  # record 18 has no DI
    other = read("wos/wos-plain-bibliometrix.txt", "wos")  # no blank lines, newer tags (WE)
    assert len(other) == 8
    assert other[0].authors == ["Toh, Ming Liang"] and other[0].year == 2026
    assert other[0].ids == {"doi": "10.1080/00396265.2026.2635057"}
    assert len(other[-1].authors) == 8 and other[-1].venue == "SOFTWARE IMPACTS"


def test_medline_nbib_two_projects() -> None:
    found = read("medline/medline-blachlylab-nbib.nbib", "medline")  # CRLF
    assert len(found) == 20
    first, last = found[0], found[-1]
    assert first.title == (
        "Ibrutinib Regimens versus Chemoimmunotherapy in Older Patients with Untreated CLL."
    )
    assert len(first.authors) == 31 and first.authors[0] == "Woyach, Jennifer A"
    assert (first.date, first.year) == ("2018-12-27", 2018)
    assert first.ids == {"doi": "10.1056/nejmoa1812836", "pmid": "30501481"}
    assert first.venue == "The New England journal of medicine"
    assert last.ids == {"doi": "10.2217/ijh-2020-0009", "pmid": "33014332"}
    assert last.date == "2020-09-04" and len(last.authors) == 17
    bio = read("medline/medline-biopython.nbib", "medline")  # LF, opens with a blank line
    assert [f.ids.get("pmid") for f in bio][::3] == ["16403221", "14630660"]
    assert bio[0].authors == ["Casbon, James A", "Crooks, Gavin E", "Saqi, Mansoor A S"]
    assert bio[2].authors[0] == "de Hoon, M J L"
    assert bio[-1].ids == {"pmid": "14630660"} and bio[-1].date == "2003-11-22"


def test_scopus_and_wos_bibtex_of_one_search(clone: Path) -> None:
    scopus = read("bibtex/scopus-export.bib", "bibtex")  # text before the first entry
    assert len(scopus) == 24
    assert scopus[0].url == (
        "https://www.scopus.com/inward/record.uri?eid=2-s2.0-85083087417&doi=10.1080%2f"
        "17509653.2019.1633964&partnerID=40&md5=d4a04d9345ffa81c1b2608dc4ddfd5b7"
    )  # & and % survive: LaTeX would read them as a column break and a comment
    assert scopus[3].url.endswith("doi=10.1016%2fS0377-2217%2896%2900250-0&partnerID=40"
                                  "&md5=988dbde52fd463a987375d919365b4b8")  # fmt: skip
    assert any(f.title.startswith("R&D project performance") for f in scopus)
    wos = read("bibtex/wos-export.bib", "bibtex")
    assert len(wos) == 29
    assert wos[0].ids == {"doi": "10.1016/j.amc.2010.04.009"}
    assert "10.1007/978-3-319-59421-7_28" in {f.ids.get("doi") for f in wos}  # \_ read as _
    for rel, db in (("bibtex/scopus-export.bib", "Scopus"), ("bibtex/wos-export.bib", "WoS")):
        run = litcorpus("search", "import", str(SEARCH / rel), "--root", str(clone),
                        "--source", "bibtex", "--query", "AHP", "--database", db)  # fmt: skip
        assert run.returncode == 0, run.stderr
    # 18 DOIs appear in both; WoS:000270081200006 has no DOI and is Scopus's
    # Gomez-Ruiz200941 by its title ("...-based mode" cut short in Scopus): 19 duplicates
    assert "29 records found, 19 duplicates removed, 10 queued" in run.stdout
    reasons = [json.loads(x)["reason"] for x in (clone / "screening/duplicates.jsonl").open()]
    assert sum(r.startswith("same DOI id") for r in reasons) == 18
    assert litcorpus("check", "--root", str(clone)).returncode == 0


@pytest.mark.parametrize(
    "rel, fmt, found, untitled",
    [
        ("ris/lens-no-title.ris", "ris", 20, ["record at line 345"]),
        ("crossref/crossref-works-untitled-item.json", "crossref", 20, ["work 19"]),
        ("crossref/crossref-works-sample-untitled.json", "crossref", 5, ["work 1", "work 3"]),
    ],
)
def test_untitled_records_are_kept_out_and_counted(
    clone: Path, rel: str, fmt: str, found: int, untitled: list[str]
) -> None:
    run = litcorpus("search", "import", str(SEARCH / rel), "--root", str(clone),
                    "--source", fmt, "--query", "q")  # fmt: skip
    assert run.returncode == 0, run.stderr
    queued = found - len(untitled)
    assert f"{found} records found, 0 duplicates removed, {queued} queued, " in run.stdout
    for where in untitled:
        assert f"{where}: no title: kept out of the queue" in run.stderr
    logged = yaml.safe_load((clone / "searches.yaml").read_text())["searches"][-1]
    assert (logged["records_found"], logged["unscreenable"]) == (found, len(untitled))
    assert litcorpus("check", "--root", str(clone)).returncode == 0


def test_crossref_sici_doi_and_nameless_author(clone: Path) -> None:
    sici = read("crossref/crossref-works-sample-sici-doi.json", "crossref")
    assert sici[-1].ids == {"doi": "10.1002/1531-8249(200004)47:4<440::aid-ana6>3.0.co;2-e"}
    nameless = read("crossref/crossref-works-nameless-author.json", "crossref")
    assert nameless[4].authors == ["", "Rovira, Joshua"]  # an author object with no name
    for rel in ("crossref-works-sample-sici-doi.json", "crossref-works-nameless-author.json"):
        run = litcorpus("search", "import", str(SEARCH / "crossref" / rel), "--root",
                        str(clone), "--source", "crossref", "--query", "q")  # fmt: skip
        assert run.returncode == 0, run.stderr
    queue = [json.loads(x) for x in (clone / "screening/queue.jsonl").open()]
    by_doi = {q["ids"].get("doi"): q for q in queue}
    q = by_doi["10.1002/1531-8249(200004)47:4<440::aid-ana6>3.0.co;2-e"]
    assert q["url"] == "https://doi.org/10.1002/1531-8249(200004)47:4%3C440::aid-ana6%3E3.0.co;2-e"
    assert by_doi["10.31390/gradschool_theses.6125"]["authors"] == ["Rovira, Joshua"]
    assert "work 5: authors: 1 author(s) without a name dropped" in run.stderr
    assert litcorpus("check", "--root", str(clone)).returncode == 0


def test_a_header_of_200000_columns_is_read(tmp_path: Path) -> None:
    # the header check counted each name by scanning the header again: 4e10 steps, a hang
    header = ",".join(["title", *(f"c{i}" for i in range(200_000))])
    data = header + "\n" + ",".join(["A title", *("" for _ in range(200_000))]) + "\n"
    assert [f.title for f in records(data, "csv", "wide.csv")] == ["A title"]


def test_an_import_error_prints_no_terminal_escape(clone: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("name\x1b[2J,year\x07\nA,2020\n")
    run = litcorpus("search", "import", str(bad), "--root", str(clone), "--source", "csv",
                    "--query", "q")  # fmt: skip
    assert run.returncode == 1 and "no title column" in run.stderr
    assert "\x1b" not in run.stderr and "\x07" not in run.stderr


def test_html_entities_and_latex_escapes_in_bibtex_titles() -> None:
    # Web of Science writes &apos; and &amp; into titles; LaTeX read & as a column break
    from litcorpus.sources.bibtex import bibtex_records

    found = bibtex_records(
        '@article{a, title = {Jones&apos;s model of R\\&D at 50\\% {\\"u}ber &amp; more},'
        " url = {https://x.org/r?eid=1&doi=10.1%2fa}}"
    )
    assert found[0].title == "Jones's model of R&D at 50% über & more"
    assert found[0].url == "https://x.org/r?eid=1&doi=10.1%2fa"


def test_untitled_records_stand_in_the_prisma_flow(clone: Path) -> None:
    """Lens's 20 records (one untitled) and Crossref's sample of 5 (two untitled, both with a
    website arm's method): PRISMA 2020 counts the untitled among the records removed before
    screening, and the flow adds up: identified - duplicates - removed = screened + waiting."""
    from litcorpus.analysis.result import analyse
    from litcorpus.model.corpus import load_corpus
    from litcorpus.publish.prisma2020 import prisma2020_csv

    for rel, fmt, method in (
        ("ris/lens-no-title.ris", "ris", "database"),
        ("crossref/crossref-works-sample-untitled.json", "crossref", "website"),
    ):
        run = litcorpus("search", "import", str(SEARCH / rel), "--root", str(clone),
                        "--source", fmt, "--query", "q", "--method", method)  # fmt: skip
        assert run.returncode == 0, run.stderr
    result = analyse(load_corpus(clone), stats=True)
    assert result.report.ok, result.report.to_text()
    flow = result.update
    assert flow is not None
    s, o = flow["searches"], flow["other"]
    assert (s["identified"], s["duplicates"], s["unscreenable"], s["awaiting"]) == (20, 0, 1, 19)
    assert (o["identified"], o["duplicates"], o["unscreenable"], o["awaiting"]) == (5, 0, 2, 3)
    assert result.stats is not None
    csv_text = prisma2020_csv(result.stats["prisma"], {}, result.stats.get("prisma_update"))
    rows = {line.split(",")[0]: line.rsplit(",", 1)[1] for line in csv_text.splitlines()[1:]}
    assert rows["excluded_other"] == "1"  # the databases arm's untitled record
    assert rows["website_results"] == "3"  # the website arm: 5 found, 2 untitled
    assert rows["database_results"] == "20"
