"""`litcorpus add` on BibTeX files that other projects wrote (bibtex/real of litcorpus's test
fixtures, see PROVENANCE.md there): BibDesk's capitalised field names, @string macros, crossref,
bare month macros, LaTeX accents, biblatex's date and journaltitle, and the mistakes real files
carry. Every expected value below was read off the raw file; the comment names the lines.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CORPUS_FIXTURES, REPO
from litcorpus.workflow.add import AddError, drafts_from_bibtex

REAL = CORPUS_FIXTURES / "bibtex" / "real"


def text(name: str) -> str:
    return (REAL / name).read_text(encoding="utf-8")


def entries(name: str) -> int:
    """Entries in the raw file: every @type{ that is not @string, @preamble or @comment."""
    kinds = re.findall(r"^\s*@(\w+)\s*[{(]", text(name), flags=re.MULTILINE)
    return sum(k.lower() not in ("string", "preamble", "comment") for k in kinds)


def by_key(name: str, source: str | None = None) -> dict[str, dict[str, object]]:
    return {d.key: d.facts for d in drafts_from_bibtex(source or text(name))}


def test_survey_bibliography_every_entry_and_the_corpus_refuses_them(tmp_path: Path) -> None:
    """The survey's own .bib: 84 entries, each already in the corpus under another key."""
    drafts = by_key("llm-mas-rl-papers.bib")
    assert len(drafts) == entries("llm-mas-rl-papers.bib") == 84
    # lines 13-20: title {{LLM} Collaboration ...}, "Liu, Shuo and Amato, Christopher and
    # others", journal "arXiv preprint arXiv:2508.04652", year 2025
    assert drafts["magrpo2025"] == {
        "title": "LLM Collaboration With Multi-Agent Reinforcement Learning",
        "authors": ["Liu, Shuo", "Amato, Christopher", "others"],
        "year": 2025,
        "venue": "arXiv",  # "arXiv preprint arXiv:2508.04652" names the arXiv
        "ids": {"arxiv": "2508.04652"},
        "url": "https://arxiv.org/abs/2508.04652",
    }
    run = subprocess.run(
        [sys.executable, "-m", "litcorpus", "add", "--root", str(REPO), "--bibtex",
         str(REAL / "llm-mas-rl-papers.bib")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 1 and "add-refused" in run.stderr
    refused = re.findall(r"BibTeX entry '([^']+)' \(line \d+\): (.*)", run.stderr)
    assert len(refused) == 84
    assert ("magrpo2025", "same arxiv id 2508.04652 as papers/magrpo.yaml; "
            "near-identical title to papers/magrpo.yaml") in refused  # fmt: skip


def test_bibdesk_capitalised_fields_crossref_and_month_macro() -> None:
    """HoTT book (BibDesk): `Author = {...}`, Crossref to an in-file @proceedings, `Month = oct`.
    Line 320 holds a real mistake: fourteen authors in one braced name."""
    drafts = by_key("hott-book-2013.bib")
    # 131 entries, of which the two @proceedings at 352 and 905 are crossref targets
    assert entries("hott-book-2013.bib") == 131 and len(drafts) == 129
    # lines 12-19
    assert drafts["BauerTaylor09"] == {
        "title": "The Dedekind reals in abstract Stone duality",
        "authors": ["Bauer, Andrej", "Taylor, Paul"],
        "year": 2009,
        "venue": "Mathematical structures in computer science",
        "ids": {},
        "url": "",
    }
    # lines 342-350: Booktitle LICS; the crossref brings nothing the entry lacks but ISBN etc.
    assert drafts["EscardoSimpson:01"]["authors"] == ["Escardó, Martín Hötzel", "Simpson, Alex K."]
    assert drafts["EscardoSimpson:01"]["venue"] == "LICS"
    # lines 419-423: eprint = {arXiv:1302.1207}; {\'A}lvaro decoded
    assert drafts["pelayo2013preliminary"]["ids"] == {"arxiv": "1302.1207"}
    assert drafts["pelayo2013preliminary"]["authors"][0] == "Pelayo, Álvaro"
    # lines 1210-1222: Month = oct (a bare macro), Doi, Journal = {J. ACM}
    assert drafts["Huet80"]["ids"] == {"doi": "10.1145/322217.322230"}
    assert drafts["Huet80"]["venue"] == "J. ACM"
    # line 321: {{Georges Gonthier, ..., Enrico Tassi and Laurent Thery}} is one braced name:
    # kept whole (its "and" inside the braces included), so that `check` then reports it as an
    # author that is not "Family, Given"
    assert drafts["gonthier"]["authors"] == [
        "Georges Gonthier, Andrea Asperti, Jeremy Avigad, Yves Bertot, Cyril Cohen, François "
        "Garillot, Stéphane Le Roux, Assia Mahboubi, Russell O'Connor, Sidi Ould Biha, Ioana "
        "Pasca, Laurence Rideau, Alexey Solovyev, Enrico Tassi and Laurent Thery"
    ]


def test_near_identical_titles_in_one_file_are_named_with_their_lines() -> None:
    """HoTT entries at lines 413/668 (Extensional Equality in Intensional Type Theory, twice)
    and 472/769 (An Intuitionistic Theory of Types: Predicative Part, in two cases). Volumes I
    and II of one book (lines 108/120) read as near-identical too: the message names both, and
    the contributor decides."""
    run = subprocess.run(
        [sys.executable, "-m", "litcorpus", "add", "--root", str(REPO), "--bibtex",
         str(REAL / "hott-book-2013.bib")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 1 and "add-refused" in run.stderr
    assert re.search(
        r"BibTeX entry 'altenkirch99extensional' \(line \d+\): near-identical title to BibTeX "
        r"entry 'Altenkirch1999' \(line 413\)",
        run.stderr,
    ), run.stderr
    assert "'Martin-Lof-1973' (line 769): near-identical title to BibTeX entry " in run.stderr
    assert "'TroelstraI' (line 120): near-identical title to BibTeX entry 'TroelstraII'" in (
        run.stderr
    )
    assert "keep the one you mean" in run.stderr


def test_strings_biblatex_dates_and_accents() -> None:
    """biblatex's sample file: @string macros, date and journaltitle, eprint with eprinttype,
    crossref to an in-file @collection, and accents."""
    drafts = by_key("biblatex-examples.bib")
    # 92 entries; westfahl:frontier (line 1169) is a crossref target and the two @set entries
    # (lines 26 and 31) are sets of other entries
    assert entries("biblatex-examples.bib") == 92 and len(drafts) == 89
    # lines 37-47: accents, @string jomch = {J.~Organomet. Chem.} (line 7), date = 2006
    assert drafts["aksin"]["authors"] == [
        "Aks\u0131n, Özge",  # {\\i}: a dotless i
        "Türkmen, Hayati",
        "Artok, Levent",
        "Çetinkaya, Bekir",
        "Ni, Chaoying",
        "Büyükgüngör, Orhan",
        "Özkal, Erhan",
    ]
    assert drafts["aksin"]["venue"] == "J. Organomet. Chem."
    assert drafts["aksin"]["year"] == 2006
    # lines 68-77: eprint = {math/0307200v3}, eprinttype = {arxiv}: an old-style id, no version
    assert drafts["baez/article"]["ids"] == {"arxiv": "math/0307200"}
    # line 16: crossref = {westfahl:frontier}; that collection's title (line 1171) becomes the
    # venue and its date (line 1172) the year
    assert (drafts["westfahl:space"]["venue"], drafts["westfahl:space"]["year"]) == (
        "Space and Beyond",
        2000,
    )


def test_string_macros_with_colons_and_a_preamble() -> None:
    """UPF firewall (BSD): 59 @STRING definitions, a @PREAMBLE joined with #, macros whose
    names hold colons, an undefined macro (line 363)."""
    drafts = by_key("upf-firewall.bib")
    assert entries("upf-firewall.bib") == len(drafts) == 12
    # lines 83-85: Br\"ugger without braces
    assert drafts["brucker.ea:icst:2010"]["authors"] == [
        "Brucker, Achim D.",
        "Brügger, Lukas",
        "Kearney, Paul",
        "Wolff, Burkhart",
    ]
    # lines 117-146: booktitle {TAP 2007: Tests And Proofs}; publisher = pub-springer (line 50)
    assert drafts["brucker.ea:test-sequence:2007"]["venue"] == "TAP 2007: Tests And Proofs"


def test_a_malformed_entry_is_named_with_its_line() -> None:
    """Rocq's manual, line 61: `@techreport{CH88` with no comma after the key."""
    with pytest.raises(AddError) as caught:
        drafts_from_bibtex(text("rocq-refman.bib"))
    assert caught.value.code == "bibtex-invalid"
    assert "line 61: cannot parse '@techreport{CH88': Expected comma after entry key" in str(
        caught.value
    )
    # once the comma is added, as the message says, the other 57 entries come in, with the
    # capitalised TITLE/AUTHOR/YEAR fields of CH88 (lines 62-68) read like any others
    fixed = text("rocq-refman.bib").replace("@techreport{CH88\n", "@techreport{CH88,\n")
    drafts = by_key("rocq-refman.bib", fixed)
    assert len(drafts) == entries("rocq-refman.bib") == 58
    assert drafts["CH88"] == {
        "title": "The calculus of constructions",
        "authors": ["Coquand, T.", "Huet, Gérard"],
        "year": 1986,
        "venue": "INRIA",
        "ids": {},
        "url": "https://hal.inria.fr/inria-00076024",
    }
