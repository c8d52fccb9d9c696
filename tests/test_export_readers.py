"""Exports read back by the programs that read them, on hostile text: pybtex and biber for
BibTeX (exactly one entry per paper, every key kept), bibutils' ris2xml for RIS (one record
per paper, no value starting a tag), pandoc's citeproc for CSL-JSON and BibTeX alike (a
truncated author list reads "et al." in both), Python's csv (every cell back,
formulas neutralised), markdown-it-py for the README list and stats/README.md (one link per
entry, no HTML, no heading), and the LaTeX tables (no special character left unescaped).

Records here are fuzzed past what `check` accepts, so the exporters are safe on their own.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from pybtex.database import parse_string

from conftest import REPO
from litcorpus.model.corpus import Corpus, Record, load_corpus
from litcorpus.model.taxonomy import load_taxonomy
from litcorpus.model.yamlio import Document
from litcorpus.publish.citable import Table, render
from litcorpus.publish.escape import csv_cell, latex_text, md_url
from litcorpus.publish.export import to_bibtex, to_csl_json, to_csv, to_ris
from litcorpus.publish.readme import item
from litcorpus.publish.templating import environment

TAXONOMY = load_taxonomy(REPO)[0]
HOSTILE = [
    "}",
    "{",
    "}}@misc{evil, title={x}}",
    "\\",
    "\\}",
    "%",
    "@",
    '"',
    "=cmd|' /C calc'!A0",
    "+1",
    "-2",
    "@SUM(1)",
    "\t",
    "\r",
    "\n## Injected heading\n",
    "<script>alert(1)</script>",
    "](javascript:x)",
    "[x](y)",
    "`code`",
    "*_~|#",
    "&lt;b&gt;",
    "Café Über ß",
    "$x^2$ & 50% #1",
]
text = st.lists(st.sampled_from(HOSTILE) | st.text(max_size=8), min_size=1, max_size=5).map("".join)
urls = st.sampled_from(
    [
        "https://arxiv.org/abs/2501.00001",
        "https://x.org/a}}@misc{evil,",
        "https://x.org/a)<script>",
        'https://x.org/"onmouseover=1',
        "https://x.org/a b",
        "https://x.org/(balanced)",
        "https://x.org/%7Bencoded%7D",
    ]
)


def corpus_of(records: list[dict[str, Any]]) -> Corpus:
    corpus = Corpus(REPO, TAXONOMY)
    for data in records:
        path = f"papers/{data['key']}.yaml"
        corpus.records.append(Record("paper", data["key"], path, Document(data)))
    return corpus


@st.composite
def records(draw: st.DrawFn) -> list[dict[str, Any]]:
    n = draw(st.integers(1, 4))
    out = []
    for i in range(n):
        out.append(
            {
                "key": f"k{i}",
                "title": draw(text),
                "authors": draw(st.lists(text.map(lambda t: f"{t}, {t}"), min_size=1, max_size=3)),
                "year": 2025,
                "venue": draw(st.sampled_from(["arXiv", "NeurIPS 2025"]) | text),
                "url": draw(urls),
                "ids": {"doi": "10.1234/" + draw(text)} if draw(st.booleans()) else {},
                "summary": draw(text),
                "category": "rl_method",
                "reward_type": "shared",
                "credit_granularity": "agent",
            }
        )
    return out


FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def citeproc(bibliography: Path) -> str:
    """The bibliography pandoc's citeproc renders from BIBLIOGRAPHY, every entry cited."""
    pandoc = shutil.which("pandoc")
    assert pandoc, "install Debian's pandoc (make test does: tests/sysdeps.sh)"
    doc = bibliography.with_name("cite-all.md")
    doc.write_text('---\nnocite: "@*"\n---\n', encoding="utf-8")
    run = subprocess.run(
        [pandoc, str(doc), "--citeproc", "--bibliography", str(bibliography), "-t", "plain"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0 and not run.stderr, run.stderr
    return run.stdout


def test_truncated_author_lists_read_et_al_from_csl_json_as_from_bibtex(tmp_path: Path) -> None:
    one = [{"key": "halo", "title": "HALO", "authors": ["Hou, Zhipeng", "others"], "year": 2025,
            "venue": "arXiv", "url": "https://arxiv.org/abs/2505.13516"}]  # fmt: skip
    for name, text in (
        ("a.json", to_csl_json(corpus_of(one))),
        ("a.bib", to_bibtex(corpus_of(one))),
    ):
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert "Hou, Zhipeng et al. 2025" in citeproc(tmp_path / name), name
    # the shipped corpus: as many "et al." from either export, at least one per truncated list
    corpus = load_corpus(REPO)
    truncated = sum(r.data["authors"][-1] == "others" for r in corpus.of("paper"))
    (tmp_path / "c.json").write_text(to_csl_json(corpus), encoding="utf-8")
    (tmp_path / "c.bib").write_text(to_bibtex(corpus), encoding="utf-8")
    from_csl = citeproc(tmp_path / "c.json").count("et al.")
    from_bib = citeproc(tmp_path / "c.bib").count("et al.")
    assert from_csl == from_bib >= truncated > 0


@FUZZ
@given(records())
def test_bibtex_parses_in_pybtex_one_entry_per_paper(data: list[dict[str, Any]]) -> None:
    bib = parse_string(to_bibtex(corpus_of(data)), "bibtex")
    assert list(bib.entries) == [d["key"] for d in sorted(data, key=lambda d: d["key"])]
    for d in data:
        fields = bib.entries[d["key"]].fields
        assert fields["year"] == "2025"
        assert "{" not in fields["url"] and "}" not in fields["url"]


def test_bibtex_parses_in_biber_one_entry_per_paper(tmp_path: Path) -> None:
    """biber reads a hostile export whole: as many entries as papers, no error."""
    biber = shutil.which("biber")
    assert biber, "install Debian's biber (make test does: tests/sysdeps.sh)"
    data = [
        {
            "key": f"k{i}",
            "title": hostile,
            "authors": [f"{hostile}, Jane", "Org " + hostile],
            "year": 2025,
            "venue": hostile,
            "url": "https://x.org/a}}@misc{evil,",
            "ids": {"doi": "10.1234/" + hostile},
        }
        for i, hostile in enumerate(HOSTILE)
    ]
    source = tmp_path / "corpus.bib"
    source.write_text(to_bibtex(corpus_of(data)), encoding="utf-8")
    out = tmp_path / "out.bib"
    run = subprocess.run(
        [biber, "--tool", "--output-file", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "ERROR" not in run.stdout, run.stdout
    keys = re.findall(r"^@\w+\{([^,]+),", out.read_text(encoding="utf-8"), flags=re.MULTILINE)
    assert sorted(keys) == sorted(d["key"] for d in data)


def test_ris_reads_in_bibutils_one_record_per_paper(tmp_path: Path) -> None:
    """bibutils' ris2xml (Debian's bibutils) reads a hostile RIS export as one MODS record per
    paper, with each title whole: no value can end a record or start a tag."""
    ris2xml = shutil.which("ris2xml")
    assert ris2xml, "install Debian's bibutils (make test does: tests/sysdeps.sh)"
    data = [
        {
            "key": f"k{i}",
            "title": f"T{i} {hostile}\nER  - \nTY  - JOUR",
            "authors": [f"{hostile}, Jane", "others"],
            "year": 2025,
            "venue": hostile,
            "url": "https://x.org/a\nER  - ",
            "ids": {"doi": "10.1234/" + hostile},
        }
        for i, hostile in enumerate(HOSTILE)
    ]
    source = tmp_path / "corpus.ris"
    source.write_text(to_ris(corpus_of(data)), encoding="utf-8")
    run = subprocess.run([ris2xml, str(source)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and f"Processed {len(data)} references" in run.stderr, run.stderr
    import xml.etree.ElementTree as ET

    mods = ET.fromstring(run.stdout.lstrip("\ufeff"))
    ns = {"m": "http://www.loc.gov/mods/v3"}
    records_read = mods.findall("m:mods", ns)
    assert [r.get("ID") for r in records_read] == sorted(d["key"] for d in data)
    for r in records_read:
        title = r.findtext("m:titleInfo/m:title", "", ns)
        assert title.startswith(f"T{r.get('ID', '')[1:]} ") and title.endswith("TY - JOUR"), title
    # the shipped corpus: every entry, under its key
    shipped = load_corpus(REPO)
    (tmp_path / "all.ris").write_text(to_ris(shipped), encoding="utf-8")
    run = subprocess.run([ris2xml, str(tmp_path / "all.ris")], capture_output=True, text=True)
    assert f"Processed {len(shipped.of('paper'))} references" in run.stderr


@FUZZ
@given(records())
def test_csv_reads_back_every_cell_with_formulas_neutralised(data: list[dict[str, Any]]) -> None:
    rows = list(csv.reader(io.StringIO(to_csv(corpus_of(data)))))
    header, body = rows[0], rows[1:]
    assert len(body) == len(data)
    for row, d in zip(body, sorted(data, key=lambda d: d["key"]), strict=True):
        cells = dict(zip(header, row, strict=True))
        for name in ("title", "venue", "summary"):
            assert cells[name] == csv_cell(d[name])
        assert not cells["title"].startswith(("=", "+", "-", "@", "\t", "\r"))


def test_csv_neutralises_as_owasp_says() -> None:
    assert [csv_cell(v) for v in ["=1+1", "+1", "-1", "@x", "\tx", "\rx", "ok", 5]] == [
        "'=1+1",
        "'+1",
        "'-1",
        "'@x",
        "'\tx",
        "'\nx",  # a lone carriage return is written as the line break it stands for
        "ok",
        5,
    ]


MD = MarkdownIt("commonmark")


def _inline_tokens(markdown: str) -> list[Any]:
    tokens = MD.parse(markdown)
    out = []
    for t in tokens:
        out.append(t)
        out += t.children or []
    return out


@FUZZ
@given(records())
def test_readme_items_are_one_link_and_no_markup(data: list[dict[str, Any]]) -> None:
    for d in data:
        line = item(d, TAXONOMY, ["reward_type"])
        assert "\n" not in line
        tokens = _inline_tokens(line)
        links = [t for t in tokens if t.type == "link_open"]
        assert [t.attrs["href"] for t in links] == [MD.normalizeLink(md_url(d["url"]))]
        kinds = {t.type for t in tokens}
        assert not kinds & {"html_inline", "html_block", "heading_open", "image"}


def test_stats_readme_escapes_claim_text() -> None:
    claim = {
        "id": "x`y",
        "text": "Held <script>alert(1)</script>\n## Injected heading [l](javascript:x)",
        "boundary": "b\n# h",
        "snapshot": "live",
        "now": None,
        "held": True,
        "expected": "e",
        "actual": "a",
        "keys": [],
        "revised": False,
        "published": None,
        "corrections": [],
        "since": None,
        "later": [],
        "missed": [],
    }
    stats = {
        "version": "v",
        "corpus": {"hash": "h", "retained": 1, "excluded": 0, "audited": 1},
        "claims": [claim],
        "gaps": [{"id": "g", "label": "G <b>", "cells": []}],
        "families": {},
        "crosstabs": [],
        "agreement": None,
        "blind_agreement": None,
        "screening_audit": None,
        "tables": [],
        "releases": [],
        "as_of": None,
        "prisma_update": None,
    }
    tables = {k: "" for k in ("gap-g", "scale-gap", "trend", "prisma")}
    md = environment().get_template("stats_readme.md.j2").render(stats=stats, tables=tables)
    kinds = {t.type for t in _inline_tokens(md)}
    assert "html_inline" not in kinds and "html_block" not in kinds
    tokens = MD.parse(md)
    titles = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert titles[:4] == ["Corpus statistics", "Claims", "Coverage gaps", "G \\<b\\>"]
    assert not [t for t in titles if "Injected" in t or t == "h"]
    hrefs = [t.attrs["href"] for t in _inline_tokens(md) if t.type == "link_open"]
    assert not [h for h in hrefs if h.startswith("javascript")]


def test_latex_tables_escape_every_special_character() -> None:
    specials = "& % $ # _ { } ~ ^ \\"
    table = Table("t", f"Title {specials}", ["h" + specials, "n"], [[specials, 1]], note=specials)
    tex = render(table, "v")["tex"]
    escaped = latex_text(specials)
    assert f"{escaped} & 1 \\\\" in tex.splitlines()
    assert f"h{escaped} & n \\\\" in tex and f"Title {escaped}." in tex
    # every special is escaped: undoing the escapes gives the text back, and nothing is bare
    undo = {r"\textasciitilde{}": "~", r"\textasciicircum{}": "^", r"\textbackslash{}": "\\"}
    back = re.sub(r"\\textasciitilde\{\}|\\textasciicircum\{\}|\\textbackslash\{\}|\\([&%$#_{}])",
                  lambda m: m.group(1) or undo[m.group()], escaped)  # fmt: skip
    assert back == specials
    assert not re.search(r"(?<!\\)[&%$#_~^]", escaped.replace("{}", ""))


def test_ids_survive_pandas_default_reading() -> None:
    """pandas.read_csv with no options keeps every identifier of the shipped corpus's CSV
    exports as written (a bare 2602.17100 would come back as the number 2602.171)."""
    import pandas as pd

    from litcorpus.publish.export import decisions_csv

    shipped = load_corpus(REPO)
    for kind, text in (("paper", to_csv(shipped)), ("exclusion", decisions_csv(shipped))):
        frame = pd.read_csv(io.StringIO(text))
        records = {r.stem: r.data for r in shipped.of(kind)}
        key = "key" if kind == "paper" else "id"
        read = 0
        for scheme in shipped.taxonomy.id_schemes:
            column = frame[f"ids.{scheme}"]
            for rid, cell in zip(frame[key], column, strict=True):
                want = (records[rid].get("ids") or {}).get(scheme)
                if want:
                    assert cell == f"{scheme}:{want}", (rid, scheme, cell)
                    read += 1
                else:
                    assert pd.isna(cell), (rid, scheme, cell)
        assert read > 300  # arXiv ids such as 2602.17100 among them


def test_axis_values_and_codes_survive_pandas_default_reading() -> None:
    """The CSV writes NA as "Not applicable" (pandas and R's read.csv take "NA" for a missing
    value) and gives each axis with the survey's codes a .code column beside it: the reward's
    R1-R8, the learned and designed sub-decisions' O1-O5, the benchmark measures' E1-E4."""
    import pandas as pd

    shipped = load_corpus(REPO)
    frame = pd.read_csv(io.StringIO(to_csv(shipped)))
    assert [c for c in frame.columns if c.endswith(".code")] == [
        "reward_type.code",
        "orchestration_decisions.code",
        "orchestration_designed.code",
        "benchmark_measures.code",
        "benchmark_measures_partial.code",
    ]
    rows = {r["key"]: r for r in frame.to_dict("records")}
    data = {r.stem: r.data for r in shipped.of("paper")}
    na = [k for k, d in data.items() if d.get("reward_type") == "NA"]
    assert na and all(rows[k]["reward_type"] == "Not applicable" for k in na)
    assert rows["puppeteer"]["reward_type.code"] == "R7"  # reward_type orchestration
    stop = [k for k, d in data.items() if "stop" in (d.get("orchestration_decisions") or [])]
    assert stop and all("O5" in rows[k]["orchestration_decisions.code"].split("; ") for k in stop)


def _read_back(tmp_path: Path, texts: dict[str, str]) -> dict[str, dict[str, list[list[str]]]]:
    """Each CSV text as R's read.csv and LibreOffice Calc (headless, its CSV filter's default
    settings) read it, then wrote it back: {reader: {name: rows}}, every cell as text."""
    for name, text in texts.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    names = list(texts)
    # R: read.csv with no options, every cell printed as R holds it ("<NA>" for a missing one)
    script = (
        "for (f in commandArgs(TRUE)) { x <- read.csv(f); "
        "y <- as.data.frame(lapply(x, function(v) ifelse(is.na(v), '<NA>', as.character(v)))); "
        "names(y) <- names(x); "
        "write.csv(y, paste0(f, '.R.csv'), row.names = FALSE, fileEncoding = 'UTF-8') }"
    )
    subprocess.run(["Rscript", "-e", script, *names], cwd=tmp_path, check=True,
                   capture_output=True, timeout=120)  # fmt: skip
    out = tmp_path / "lo"
    subprocess.run(
        ["soffice", f"-env:UserInstallation={(tmp_path / 'profile').as_uri()}", "--headless",
         "--convert-to", "csv", "--outdir", str(out), *names],
        cwd=tmp_path, check=True, capture_output=True, timeout=180,
    )  # fmt: skip

    def rows(path: Path) -> list[list[str]]:
        return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))

    return {
        "R": {n: rows(tmp_path / f"{n}.R.csv") for n in names},
        "LibreOffice": {n: rows(out / n) for n in names},
    }


def test_ids_and_values_survive_r_and_libreoffice_default_reading(tmp_path: Path) -> None:
    """The corpus CSV, a filtered download of it (the list's O5 view, joined as the page
    joins it) and the screening decisions, read by R's read.csv and by LibreOffice Calc with
    their defaults: every identifier comes back as written, "Not applicable" stays a value and
    each code column keeps its codes. A bare arXiv id, the control, comes back a number."""
    from litcorpus.publish.export import decisions_csv
    from litcorpus.publish.viewexports import joined, view_exports

    shipped = load_corpus(REPO)
    papers = {r.stem: r.data for r in shipped.of("paper")}
    stop = sorted(k for k, d in papers.items()
                  if "stop" in (d.get("orchestration_decisions") or []))  # fmt: skip
    texts = {
        "corpus.csv": to_csv(shipped),
        "view.csv": joined(view_exports(shipped), "csv", stop),
        "decisions.csv": decisions_csv(shipped),
        "control.csv": "key,arxiv\nx,2602.17100\n",
    }
    for reader, tables in _read_back(tmp_path, texts).items():
        assert tables["control.csv"][1][1] in ("2602.171", "2602.1710"), reader  # typed, so cut
        for name, text in texts.items():
            if name == "control.csv":
                continue
            written = list(csv.reader(io.StringIO(text)))
            back = tables[name]
            assert back[0] == written[0] and len(back) == len(written), (reader, name)
            header = written[0]
            keep = [i for i, c in enumerate(header) if c.startswith("ids.")
                    or c.endswith(".code") or c in ("key", "id", "reward_type")]  # fmt: skip
            for w, b in zip(written[1:], back[1:], strict=True):
                for i in keep:
                    assert b[i] == w[i] or (w[i] == "" and b[i] in ("", "<NA>")), (
                        reader, name, w[0], header[i], w[i], b[i])  # fmt: skip
        view = tables["view.csv"]
        assert sorted(r[0] for r in view[1:]) == stop
        na = view[0].index("reward_type")
        assert "Not applicable" in {r[na] for r in tables["corpus.csv"][1:]}, reader
