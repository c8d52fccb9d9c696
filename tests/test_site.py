"""`litcorpus site` and `litcorpus readme`: golden HTML of the fixture corpus, safety,
determinism, the paged list, and the generated README against awesome-lint."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import pytest

from conftest import REPO, edit, js_data, make_mini_root, pages_of
from golden import assert_golden
from litcorpus.analysis.result import analyse, check
from litcorpus.model.corpus import load_corpus
from litcorpus.publish.listing import PAGE_SIZE, page_window, pager, status_text
from litcorpus.publish.presentation import safe_url
from litcorpus.publish.readme import BEGIN, END, render_readme
from litcorpus.publish.site import build_site

PAGES = [
    "index.html",
    "papers/alpha-rl.html",
    "papers/beta-bench.html",
    "taxonomy.html",
    "gaps.html",
    "claims.html",
    "screening.html",
    "traces.html",
    "stats.html",
    "changes.html",
]


def test_golden_html(mini_site: dict[str, bytes]) -> None:
    assert_golden("site", {p: mini_site[p] for p in [*PAGES, "assets/entries.js", "feed.xml"]})


def test_golden_list_page(mini_root: Path) -> None:
    """The second page of a 106-entry list: the no-JavaScript pages and their pager."""
    grow(mini_root, 103)
    page = pages_of(mini_root)["list/2.html"]
    assert_golden("site-list", {"list/2.html": page})


def test_site_layout_and_downloads(mini_site: dict[str, bytes]) -> None:
    files = mini_site
    for path in [
        "assets/app.js",
        "assets/list.js",
        "assets/style.css",
        "assets/search-index.js",
        "stats/exports/corpus.json",
        "stats/exports/corpus.csv",
        "stats/exports/papers.bib",
        "src/papers/alpha-rl.yaml",
        "stats/figures/gap-orchestration-learning-gap.svg",
        "stats/tables/claims.csv",
        "traces/trace.schema.json",
    ]:
        assert path in files, path
    corpus = json.loads(files["stats/exports/corpus.json"])
    assert [d["key"] for d in corpus] == ["alpha-rl", "beta-bench", "gamma-survey"]
    index = files["index.html"].decode()
    assert index.count('class="entry" data-key=') == 3
    assert "Content-Security-Policy" in index and "'unsafe-inline'" not in index
    scripts = re.findall(r'<script src="([^"]+)"', index)  # every module the list loads
    assert "assets/listview.js" in scripts and all(src in files for src in scripts), scripts


def test_site_is_deterministic(mini_root: Path, mini_site: dict[str, bytes]) -> None:
    assert build_site(analyse(load_corpus(mini_root))) == mini_site


def test_only_http_links_are_rendered() -> None:
    assert safe_url("https://arxiv.org/abs/1") == "https://arxiv.org/abs/1"
    for bad in ["javascript:alert(1)", "data:text/html,x", "//evil.example", "ftp://x.org", None]:
        assert safe_url(bad) is None


def test_markup_in_data_is_escaped(mini_root: Path) -> None:
    alpha = mini_root / "papers/alpha-rl.yaml"
    text = alpha.read_text().replace(
        'summary: "Trains', 'summary: "<script>alert(1)</script> & <b>Trains'
    )
    alpha.write_text(text)
    page = pages_of(mini_root)["papers/alpha-rl.html"].decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;Trains" in page


def test_site_command_writes_and_refuses_bad_corpus(mini_root: Path) -> None:
    run = [sys.executable, "-m", "litcorpus", "site", "--root", str(mini_root)]
    assert subprocess.run(run, capture_output=True, timeout=120).returncode == 0
    assert (mini_root / "site/index.html").is_file()
    before = (mini_root / "site/index.html").read_bytes()
    alpha = mini_root / "papers/alpha-rl.yaml"
    alpha.write_text(alpha.read_text().replace("url: https://arxiv", "url: javascript://arxiv"))
    result = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "bad-url" in result.stderr
    assert (mini_root / "site/index.html").read_bytes() == before


def test_readme_block_is_generated(mini_root: Path) -> None:
    current = f"# Awesome X\n\nIntro.\n\n{BEGIN}\n{END}\n\n## Usage\n\nText.\n"
    out = render_readme(load_corpus(mini_root), current)
    assert out.startswith("# Awesome X\n\nIntro.\n\n" + BEGIN)
    assert out.endswith(f"{END}\n\n## Usage\n\nText.\n")
    assert "- [Usage](#usage)" in out and "- [RL method](#rl-method)" in out
    assert (
        "- [Alpha: Learning to Spawn Sub-Agents with Reinforcement Learning]"
        "(https://arxiv.org/abs/2501.00001) - Doe et al., 2025. _Reward: R7; Credit: "
        "Orchestrator; Topology: Swarm; Learns: O1, O2._\n"
    ) in out  # two lines at most: the summary is on the site
    assert render_readme(load_corpus(mini_root), out) == out


LINT = REPO / "tests" / "awesome" / "lint.mjs"


def awesome_lint(readme: Path) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    assert node, "node is required (make test installs the linter with npm)"
    assert (LINT.parent / "node_modules" / "awesome-lint").is_dir(), "run `make test`"
    return subprocess.run(
        [node, str(LINT), str(readme)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=readme.parent,
    )


def test_readme_passes_awesome_lint() -> None:
    result = awesome_lint(REPO / "README.md")
    errors = [
        json.loads(line)
        for line in result.stdout.splitlines()
        if json.loads(line)["severity"] == "error"
    ]
    assert result.returncode == 0 and errors == [], result.stdout + result.stderr


def test_awesome_lint_catches_a_bad_item(tmp_path: Path) -> None:
    """The linter run is real: a malformed item fails it."""
    shutil.copy(REPO / "README.md", tmp_path / "README.md")
    shutil.copy(REPO / "CONTRIBUTING.md", tmp_path / "CONTRIBUTING.md")
    text = (tmp_path / "README.md").read_text()
    first_item = next(
        line
        for line in text.splitlines()
        if line.startswith("- [") and " - " in line and "](http" in line
    )
    (tmp_path / "README.md").write_text(text.replace(first_item, first_item.rstrip("._") + " -"))
    result = awesome_lint(tmp_path / "README.md")
    assert result.returncode == 1
    assert any("list-item" in json.loads(line)["rule"] for line in result.stdout.splitlines())


@pytest.mark.parametrize("page", PAGES)
def test_pages_have_landmarks_and_labels(mini_site: dict[str, bytes], page: str) -> None:
    html = mini_site[page].decode()
    for landmark in ("<header", "<nav aria-label=", '<main id="main"', "<footer", 'lang="en"'):
        assert landmark in html
    if page == "index.html":
        assert html.count('<input type="checkbox" name=') == html.count("<label><input")
        assert '<label for="q">' in html and '<label class="sort" for="sort">' in html


def test_paper_pages_name_a_bounded_number_of_related_entries(mini_root: Path) -> None:
    alpha = (mini_root / "papers/alpha-rl.yaml").read_text()
    for i in range(15):
        copy = alpha.replace("key: alpha-rl", f"key: alpha-copy{i:02d}")
        copy = copy.replace("2501.00001", f"2501.200{i:02d}")
        copy = copy.replace("Alpha: Learning to Spawn Sub-Agents", f"Variant {i} on spawning")
        copy = copy.replace("added: 2026-05-04", "added: 2026-06-01")  # after the release
        (mini_root / f"papers/alpha-copy{i:02d}.yaml").write_text(copy)
    page = pages_of(mini_root)["papers/alpha-rl.html"].decode()
    cell = '<a class="cell-link" href="../gaps.html#cell-orchestration-learning-gap-spawn-yes">'
    item = page[page.index(cell) :].split("</ul>")[0]
    assert item.count('href="../papers/alpha-copy') == 12
    assert '<a href="../gaps.html#cell-orchestration-learning-gap-spawn-yes">and 3 more</a>' in item


def test_incremental_build_leaves_unchanged_pages_alone(mini_root: Path) -> None:
    from litcorpus.publish.site import write_site

    out = mini_root / "site"
    total, written = write_site(analyse(load_corpus(mini_root)), out)
    assert written == total
    before = {
        p: (out / p).stat().st_ino
        for p in ("papers/alpha-rl.html", "papers/beta-bench.html", "index.html")
    }
    edit_text = (
        (mini_root / "papers/beta-bench.yaml")
        .read_text()
        .replace("Scores agent teams", "Scores teams of agents")
    )
    (mini_root / "papers/beta-bench.yaml").write_text(edit_text)
    total, written = write_site(analyse(load_corpus(mini_root)), out)
    assert 0 < written < total
    assert (out / "papers/alpha-rl.html").stat().st_ino == before["papers/alpha-rl.html"]
    assert (out / "papers/beta-bench.html").stat().st_ino != before["papers/beta-bench.html"]
    assert "Scores teams of agents" in (out / "index.html").read_text()


def grow(root: Path, n: int) -> None:
    """Add N variants of alpha-rl (years 2023 to 2026) to the corpus at ROOT."""
    alpha = (root / "papers/alpha-rl.yaml").read_text()
    for i in range(n):
        copy = alpha.replace("key: alpha-rl", f"key: variant{i:03d}")
        copy = copy.replace("2501.00001", f"2501.3{i:04d}").replace(
            "year: 2025", f"year: {2023 + i % 4}"
        )
        copy = copy.replace("Alpha: Learning to Spawn Sub-Agents", f"Variant {i} on spawning")
        copy = copy.replace("category: rl_method", f"category: {['rl_method', 'framework'][i % 2]}")
        copy = copy.replace("added: 2026-05-04", "added: 2026-06-01")  # after the release
        (root / f"papers/variant{i:03d}.yaml").write_text(copy)


def entry_records(files: dict[str, bytes]) -> dict[str, Any]:
    data: dict[str, Any] = js_data(files["assets/entries.js"], "LITCORPUS_ENTRIES")
    return data


def page_keys(html: bytes) -> list[str]:
    return re.findall(r'<li class="entry" data-key="([^"]+)">', html.decode())


def test_list_is_paged_newest_first_with_every_entry_on_one_page(mini_root: Path) -> None:
    grow(mini_root, 227)
    corpus = load_corpus(mini_root)
    files = pages_of(corpus.root)
    papers = sorted(corpus.of("paper"), key=lambda r: (-r.data["year"], r.data["key"]))
    assert [p for p in files if p.startswith("list/")] == ["list/2.html", "list/3.html"]
    pages = [files["index.html"], files["list/2.html"], files["list/3.html"]]
    assert [len(page_keys(p)) for p in pages] == [PAGE_SIZE, PAGE_SIZE, 30]
    # the whole list is in one order, newest first, across pages (no section regroups a page)
    order = [r.data["key"] for r in papers]
    for n, text in enumerate(pages):
        assert page_keys(text) == order[n * PAGE_SIZE : (n + 1) * PAGE_SIZE]
    second = files["list/2.html"].decode()
    assert "Showing 101\u2013200 of all 230 entries." in second
    assert '<a href="../index.html" aria-current="page">Papers</a>' in second
    assert '<a href="../list/3.html" data-page="3" rel="next">Next</a>' in second
    assert '<a href="../index.html" data-page="1" rel="prev">Previous</a>' in second
    assert 'href="../papers/variant000.html"' in second + files["list/3.html"].decode()
    index = files["index.html"].decode()
    assert "Showing 1\u2013100 of all 230 entries." in index
    assert '<a href="list/2.html" data-page="2" rel="next">Next</a>' in index
    assert "every entry is listed below, 100 to a page, newest first." in index
    assert '<section class="category"' not in index


def test_entries_script_holds_every_entry_in_the_default_order(mini_root: Path) -> None:
    grow(mini_root, 120)
    corpus = load_corpus(mini_root)
    files = pages_of(corpus.root)
    data = entry_records(files)
    papers = sorted(corpus.of("paper"), key=lambda r: (-r.data["year"], r.data["key"]))
    assert [e[0] for e in data["entries"]] == [r.data["key"] for r in papers]
    assert data["pageSize"] == PAGE_SIZE
    axes = [a["id"] for a in data["axes"]]
    assert axes[data["group"]] == "category"
    beta = next(e for e in data["entries"] if e[0] == "beta-bench")
    tags = {
        (axis["id"], axis["values"][i][0])
        for axis, ids in zip(data["axes"], beta[7], strict=True)
        for i in ids
    }
    assert ("benchmark_measures", "E1") in tags and ("category", "benchmark") in tags
    lists = files["list/2.html"].decode() + files["index.html"].decode()
    assert html.escape(beta[4], quote=False) in lists  # the byline, as the template writes it


def test_single_page_list_has_no_pager(mini_site: dict[str, bytes]) -> None:
    index = mini_site["index.html"].decode()
    assert not [p for p in mini_site if p.startswith("list/")]
    assert '<nav class="pager" id="pager" aria-label="Pages" hidden></nav>' in index
    assert "Showing all 3 entries." in index
    assert [e[0] for e in entry_records(mini_site)["entries"]] == [
        "gamma-survey",
        "alpha-rl",
        "beta-bench",
    ]


def test_list_page_size_does_not_grow_with_the_corpus(tmp_path: Path) -> None:
    sizes = []
    for n in (120, 400):
        root = make_mini_root(tmp_path / str(n))
        grow(root, n)
        files = pages_of(root)
        assert len(page_keys(files["index.html"])) == PAGE_SIZE
        sizes.append(len(files["index.html"]))
    assert abs(sizes[1] - sizes[0]) < 2_000  # the pager and the counts, not the entries


@pytest.mark.parametrize(
    ("current", "pages", "window"),
    [
        (1, 1, [1]),
        (1, 3, [1, 2, 3]),
        (1, 100, [1, 2, 3, None, 100]),
        (5, 100, [1, 2, 3, 4, 5, 6, 7, None, 100]),
        (50, 100, [1, None, 48, 49, 50, 51, 52, None, 100]),
        (97, 100, [1, None, 95, 96, 97, 98, 99, 100]),
        (9, 10, [1, None, 7, 8, 9, 10]),
    ],
)
def test_pager_names_a_bounded_window_of_pages(
    current: int, pages: int, window: list[int | None]
) -> None:
    assert page_window(current, pages) == window
    items = pager(current, pages, "")
    assert [i["label"] for i in items][1:-1] == [str(n) if n else "\u2026" for n in window]
    assert [i["page"] for i in items if i["current"]] == [current]


@pytest.mark.parametrize(
    ("args", "text"),
    [
        ((1, 84, 84, 84, 1), "Showing all 84 entries."),
        ((1, 2, 2, 4, 1), "Showing 2 of 4 entries."),
        ((101, 100, 10_000, 10_000, 100), "Showing 101\u2013200 of all 10,000 entries."),
        ((1201, 34, 1_234, 10_000, 13), "Showing 1,201\u20131,234 of 1,234 matching entries."),
    ],
)
def test_status_text(args: tuple[int, int, int, int, int], text: str) -> None:
    assert status_text(*args) == text


def test_long_entry_lists_stop_at_a_filter_link(
    mini_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A value or gap cell with many entries names the first few, then links to the list."""
    import litcorpus.publish.site as site_module
    from litcorpus.analysis.result import analyse
    from litcorpus.model.corpus import load_corpus

    monkeypatch.setattr(site_module, "MAX_LISTED", 0)
    files = site_module.build_site(analyse(load_corpus(mini_root)))
    taxonomy = files["taxonomy.html"].decode()
    assert 'and 2 more: <a href="index.html?is_core=core">filter the list on Core</a>' in taxonomy
    gaps = files["gaps.html"].decode()
    link = '<a href="index.html?orchestration_decisions=spawn&amp;is_rl=yes">'
    assert link + "Show this entry in the list</a>" in gaps
    assert "and 1 more in the list." in gaps


def test_site_is_written_as_it_is_made(mini_root: Path, tmp_path: Path) -> None:
    """write_site streams pages to disk; the result equals the in-memory build."""
    from litcorpus.analysis.result import analyse
    from litcorpus.model.corpus import load_corpus
    from litcorpus.publish.site import build_site, write_site
    from surewrite.tree import read_tree, write_tree

    corpus = load_corpus(mini_root)
    total, written = write_site(analyse(corpus), tmp_path / "site")
    assert read_tree(tmp_path / "site") == {**build_site(analyse(corpus)), ".litcorpus-output": ANY}
    assert total == written == len(build_site(analyse(corpus)))
    with pytest.raises(ValueError, match="twice"):
        write_tree(tmp_path / "other", iter([("a.txt", b"1"), ("a.txt", b"2")]), "t", "k")
    assert not (tmp_path / "other").exists()


def test_feed_is_valid_atom_that_a_feed_reader_parses(mini_site: dict[str, bytes]) -> None:
    """feedparser (the Universal Feed Parser) reads feed.xml without complaint: the fixture's
    three papers (added 2026-05-04, keys in reverse order at equal days) and its one release."""
    import feedparser

    feed = feedparser.parse(mini_site["feed.xml"])
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    assert feed.feed.title == "awesome-llm-mas-rl: new entries and releases"
    assert [e.link for e in feed.entries] == [
        "changes.html#release-2026.05",
        "papers/gamma-survey.html",
        "papers/beta-bench.html",
        "papers/alpha-rl.html",
    ]
    assert all(
        e.id.startswith("urn:uuid:") and e.updated == "2026-05-04T00:00:00Z" for e in feed.entries
    )
    assert len({e.id for e in feed.entries}) == 4
    assert feed.entries[1].title.startswith("Gamma")
    changes = mini_site["changes.html"].decode()
    assert '<a href="feed.xml" type="application/atom+xml">the Atom feed</a>' in changes


def test_corpus_citation_per_release_reads_as_bibtex(mini_site: dict[str, bytes]) -> None:
    """The fixture's CITATION.cff names a body and a person; the statistics page gives each
    release a BibTeX entry that pybtex reads, and the footer its text."""
    import pybtex.database

    stats = html.unescape(mini_site["stats.html"].decode())
    bib = stats.split('<pre class="bibtex" id="bibtex-1" tabindex="0"><code>')[1].split("</code>")[
        0
    ]
    entry = pybtex.database.parse_string(bib, "bibtex").entries["awesome-llm-mas-rl-2026-05"]
    assert entry.fields["title"] == "{The fixture corpus}"
    assert entry.fields["version"] == "2026.05" and entry.fields["year"] == "2026"
    assert [str(p) for p in entry.persons["author"]] == ["{The fixture's curators}", "Doe, Jane"]
    assert "\\usepackage{booktabs}" in stats
    footer = html.unescape(mini_site["index.html"].decode()).split('<footer class="site-footer">')[
        1
    ]
    assert (
        "The fixture's curators, Jane Doe (2026). The fixture corpus (Version 2026.05) [Data set]."
        in footer
    )


def test_site_without_minisearch_stops_before_writing(
    mini_root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import litcorpus.publish.vendor as vendor
    from litcorpus.model.errors import CommandError
    from litcorpus.publish.site import write_site

    monkeypatch.setattr(vendor, "CHECKOUT", tmp_path / "nowhere")
    with pytest.raises(CommandError) as caught:
        write_site(analyse(load_corpus(mini_root)), tmp_path / "site")
    assert caught.value.code == "site-dependency-missing"
    assert "npm ci" in str(caught.value) and not (tmp_path / "site").exists()


def test_site_ships_minisearch_with_its_licence(mini_site: dict[str, bytes]) -> None:
    lock = json.loads((REPO / "package-lock.json").read_text())
    version = lock["packages"]["node_modules/minisearch"]["version"]
    assert version == json.loads((REPO / "package.json").read_text())["dependencies"]["minisearch"]
    assert b"MiniSearch" in mini_site["assets/minisearch.js"]
    assert b"Permission is hereby granted" in mini_site["assets/minisearch.LICENSE.txt"]
    assert not list((REPO / "packages").rglob("minisearch.js"))  # never committed


def add_late_spawner(root: Path) -> None:
    """A second spawner, added after release 2026.05: one-spawner held then, not now."""
    alpha = (root / "papers/alpha-rl.yaml").read_text()
    later = alpha.replace("key: alpha-rl", "key: delta-late").replace("2501.00001", "2501.00009")
    later = later.replace("Alpha: Learning to Spawn", "Delta: Spawning Later")
    (root / "papers/delta-late.yaml").write_text(later.replace("2026-05-04", "2026-06-01"))


def test_one_verdict_vocabulary_on_the_readme_gap_map_and_claims_page(mini_root: Path) -> None:
    """A claim that held at its release and no longer holds is said in the same words and
    colours everywhere: the claims page's table and claim, the gap map, the README."""
    from litcorpus.publish.readme import changed_findings

    add_late_spawner(mini_root)
    pages = {k: html.unescape(v.decode()) for k, v in pages_of(mini_root).items()}
    badges = re.compile(r'<strong class="badge (\w+)">([^<]+)</strong>')
    want = [("held", "Held at 2026.05"), ("broken", "No longer holds")]
    claims = pages["claims.html"]
    row = claims.split('<a href="#claim-one-spawner">')[1].split("</tr>")[0]
    assert badges.findall(row) == want
    head = claims.split('id="claim-one-spawner"')[1].split("</p>")[0]
    assert badges.findall(head) == want
    gaps = pages["gaps.html"]
    said = [p for p in gaps.split("<p>") if 'claims.html#claim-one-spawner"' in p]
    assert said and all(badges.findall(p.split("<a ")[0]) == want for p in said)
    readme = changed_findings(analyse(load_corpus(mini_root)).claims)
    assert (
        "\U0001f7e2 **Held at 2026.05**, \U0001f7e0 **No longer holds** (work its search missed"
        in readme
    )


def test_claims_speak_readers_words_and_show_a_changed_verdict(mini_root: Path) -> None:
    """A second spawner added after release 2026.05 leaves one-spawner held at its release
    (alpha-rl alone) but not on the live corpus: the claims page says both, by title."""
    add_late_spawner(mini_root)
    edit(
        mini_root / "claims.yaml",
        'boundary: "Fixture corpus."\n    where: {orchestration_decisions',
        'boundary: "Counts orchestration_decisions only; see no-stop."\n    where: '
        "{orchestration_decisions",
    )
    page = html.unescape(pages_of(mini_root)["claims.html"].decode())
    claim = page.split('id="claim-one-spawner"')[1].split("</li>")[0]
    verdict = re.sub(r"<[^>]+>", "", claim.split('<p class="verdicts">')[1].split("</p>")[0])
    alpha, delta = (
        f"{x}: {y} Sub-Agents with Reinforcement Learning"
        for x, y in (("Alpha", "Learning to Spawn"), ("Delta", "Spawning Later"))
    )
    assert verdict == (
        f"At release 2026.05: {alpha}, as expected. On the live corpus: {alpha}, {delta}."
    )
    assert 'href="papers/delta-late.html"' in claim and "delta-late," not in claim
    assert "Expected exactly" not in claim  # the verdict line says it; no second line repeats
    assert "Counts Orchestration sub-decisions learned only; see " in claim
    assert '<a href="#claim-no-stop">\u201cNo RL-trained entry learns to stop\u201d</a>' in claim
    text = re.sub(r"<[^>]+>", " ", page.split("<main")[1].split("</main>")[0])
    assert not re.findall(r"\b[a-z]+_[a-z_]+\b", text)  # no field name said as such
    assert '<dfn id="boundary">Boundary</dfn>: what a claim counts' in page


def test_newest_first_orders_by_day_within_a_year(clone: Path) -> None:
    """The default order: newest year first; within a year, the latest first public day
    first, and an entry with a year alone after those with a day."""
    import yaml

    pages = build_site(analyse(load_corpus(clone)))
    listed = [row[0] for row in js_data(pages["assets/entries.js"], "LITCORPUS_ENTRIES")["entries"]]
    data = {p.stem: yaml.safe_load(p.read_text()) for p in (clone / "papers").glob("*.yaml")}

    def order(k: str) -> tuple[int, int, list[int], str]:
        day = str(data[k].get("published") or "")
        return (-data[k]["year"], 0 if day else 1, [-ord(c) for c in day], k)

    keys = [order(k) for k in listed]
    assert keys == sorted(keys)
    dated = [k for k in listed if data[k].get("published") and data[k]["year"] == 2025]
    assert len(dated) > 5  # the order is tested on days, not only on years and keys
    html_order = re.findall(r'<li class="entry" data-key="([^"]+)"', pages["index.html"].decode())
    assert html_order and html_order == listed[: len(html_order)]


def test_every_gap_cell_colour_is_in_the_legend(mini_root: Path) -> None:
    """A filled cell the table declares not to apply gets its own colour, and the legend says
    what it means, as it does for every other state a cell is drawn in."""
    edit(mini_root / "papers/alpha-rl.yaml", "orchestration_form: swarm", "orchestration_form: NA")
    gaps = build_site(analyse(load_corpus(mini_root)))["gaps.html"].decode()
    legend = re.search(r'<p class="legend">(.*?)</p>', gaps, re.S)
    assert legend is not None
    explained = set(re.findall(r'class="swatch (state-[a-z_]+(?: shade-\d)?)"', legend.group(1)))
    drawn = set(re.findall(r'class="cell (state-[a-z_]+(?: shade-\d)?)', gaps))
    assert "state-unexpected" in drawn and drawn <= explained, drawn - explained
    assert {"state-filled shade-1", "state-filled shade-4"} <= explained


def test_the_feed_holds_the_latest_release_and_absolute_links_when_the_address_is_known() -> None:
    """Seventy entries added since the release before the latest are all in the feed (it
    named the newest fifty before), and with the site's address every link is absolute, as
    feed readers want; without it, links stay relative to the feed."""
    import datetime as dt

    import feedparser

    from litcorpus.model.releases import Release
    from litcorpus.publish.brand import Brand
    from litcorpus.publish.feed import atom_feed

    releases = [Release("1", dt.date(2026, 1, 1), "first"), Release("2", dt.date(2026, 6, 1), "s")]
    entries = [
        {"key": f"k{n:02d}", "title": f"T{n}", "byline": "A", "summary": "S",
         "added": "2026-05-01" if n < 70 else "2025-12-01"}
        for n in range(75)
    ]  # fmt: skip
    brand = Brand("corpus", "corpus", "A corpus.", "Its curators", "CC0-1.0")
    feed = feedparser.parse(atom_feed(entries, releases, brand, "https://example.org/corpus/"))
    assert not feed.bozo
    papers = [e.link for e in feed.entries if "/papers/" in e.link]
    assert len(papers) == 70 and all(
        p.startswith("https://example.org/corpus/papers/") for p in papers
    )
    assert feed.entries[0].link == "https://example.org/corpus/changes.html#release-2"
    assert feed.feed.links[0].href == "https://example.org/corpus/feed.xml"
    relative = feedparser.parse(atom_feed(entries[:3], releases[:1], brand))
    assert [e.link for e in relative.entries][:1] == ["papers/k02.html"]


def test_the_site_address_comes_from_the_publishing_job_or_the_taxonomy(
    mini_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LITCORPUS_SITE_URL (set where the site is published) names the site's address, else
    the taxonomy's site.base_url; the release citation's url is then that address."""
    import pybtex.database

    from litcorpus.publish.citation import citations
    from litcorpus.publish.site import site_url

    tax = load_corpus(mini_root).taxonomy
    assert site_url(tax) is None
    monkeypatch.setenv("LITCORPUS_SITE_URL", "https://example.org/corpus")
    assert site_url(tax) == "https://example.org/corpus/"
    cff = {"title": "A corpus", "authors": [{"name": "Team"}]}
    release = load_corpus(mini_root).releases.items
    (first,) = citations(cff, release, site_url(tax))[:1]
    entry = pybtex.database.parse_string(first.bibtex, "bibtex").entries
    assert next(iter(entry.values())).fields["url"] == "https://example.org/corpus/"
    text = (mini_root / "taxonomy.yaml").read_text()
    (mini_root / "taxonomy.yaml").write_text(
        text.replace("site:\n", "site:\n  base_url: nowhere\n", 1)
    )
    report = check(mini_root)
    assert any(p.code == "taxonomy-invalid" and "base_url" in p.message for p in report.problems)
