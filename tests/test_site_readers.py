"""The shipped corpus's site as readers meet it, in headless Chromium at a desktop (1366x900)
and a phone (390x844) width, light and dark: no page scrolls sideways, axe-core finds no
violation (of any impact), the search ranks, forgives typos and finds what bylines and tags
show, a gap cell leads to its papers and back, the filters open as a sheet over the list on a
phone, paper pages give their tags' evidence, figures stay legible, and no label is written
twice."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from conftest import REPO
from litcorpus.analysis.result import analyse
from litcorpus.model.corpus import load_corpus
from litcorpus.publish.listing import PAGE_SIZE
from litcorpus.publish.site import build_site
from snapshot import copy_snapshot
from surewrite.tree import write_tree
from test_browser import status_is, visible_keys, wait_for

N = 84  # the survey's snapshot's entries: one page of the list (the pager has tests of its own)
ALL = f"Showing all {N} entries."

AXE = REPO / "tests" / "awesome" / "node_modules" / "axe-core" / "axe.min.js"
WIDTHS = {"desktop": (1366, 900), "phone": (390, 844)}
PAGE_TYPES = [
    "index.html",
    "papers/kimi-k2-5.html",  # the longest field labels and notes
    "taxonomy.html",
    "gaps.html",
    "stats.html",
    "claims.html",
    "screening.html",
    "changes.html",
    "traces.html",
]
TEXT_FIELDS = ("title", "summary", "notes", "venue")
# "Label: Label:", the doubled label of a tag that names its axis twice
DOUBLED = re.compile(r"(?<![A-Za-z0-9-])([A-Z][\w-]*(?: [\w-]+){0,3}): \1\b")


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """The site of the shipped corpus as the survey's snapshot left it, and its entries' data:
    what these tests count stays put as the live corpus grows."""
    base = tmp_path_factory.mktemp("reader")
    corpus = load_corpus(copy_snapshot(base / "corpus", docs=True))
    assert len(corpus.of("paper")) == N <= PAGE_SIZE
    out = base / "site"
    write_tree(out, build_site(analyse(corpus)), "litcorpus", "site")
    return out, [r.data for r in corpus.of("paper")]


@pytest.fixture(params=sorted(WIDTHS))
def width(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def open_page(browser: Browser, width: str, scheme: str = "light", **kw: Any) -> Iterator[Page]:
    w, h = WIDTHS[width]
    context = browser.new_context(viewport={"width": w, "height": h}, color_scheme=scheme, **kw)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield page
    context.close()
    assert errors == [], errors


@pytest.fixture
def reader(browser: Browser, width: str) -> Iterator[Page]:
    yield from open_page(browser, width)


def go(page: Page, site: Path, name: str) -> None:
    path, _, query = name.partition("?")
    page.goto((site / path).as_uri() + (f"?{query}" if query else ""))


@pytest.mark.parametrize("name", PAGE_TYPES)
def test_no_page_scrolls_sideways(shipped: tuple[Path, Any], reader: Page, name: str) -> None:
    go(reader, shipped[0], name)
    reader.wait_for_timeout(50)
    assert reader.evaluate("document.documentElement.scrollWidth") <= reader.viewport_size["width"]  # type: ignore[index]


def in_view(page: Page, selector: str) -> bool:
    """Whether SELECTOR's first element lies wholly inside the viewport as it is scrolled."""
    box = page.locator(selector).first.bounding_box()
    height = page.viewport_size["height"]  # type: ignore[index]
    return box is not None and box["y"] >= 0 and box["y"] + min(box["height"], 120) <= height


def test_phone_shows_search_and_a_result_first_and_filters_in_a_sheet(
    shipped: tuple[Path, list[dict[str, Any]]], browser: Browser
) -> None:
    """At 390x844: the first screen holds the search box and the first result; the filters open
    as a sheet over the list and close on "Show N results" with a result in view, no scrolling
    past them; the count stays in view while the list scrolls."""
    site, entries = shipped
    coding = sum(d.get("scenario") == "coding" for d in entries)
    for page in open_page(browser, "phone"):
        go(page, site, "index.html")
        assert in_view(page, "#q") and in_view(page, "li.entry")
        assert page.is_hidden("#facet-panel")  # folded away: the papers come first
        page.click("#filters-toggle")
        assert page.is_visible("#facet-panel")
        assert page.get_attribute("#filters-toggle", "aria-expanded") == "true"
        page.click("#facet-scenario summary")
        page.check('input[name="scenario"][value="coding"]')
        wait_for(
            page, f"document.getElementById('show-results').textContent === 'Show {coding} results'"
        )
        assert in_view(page, "#show-results")  # the sheet's button stays on screen
        page.click("#show-results")
        assert page.is_hidden("#facet-panel")
        status_is(page, f"Showing {coding} of {N} entries.")
        assert page.text_content("#filters-toggle") == "Filters (1 active)"
        assert in_view(page, "li.entry")
        page.mouse.wheel(0, 3000)
        page.wait_for_timeout(200)
        assert page.evaluate("window.scrollY") > 1000
        assert in_view(page, "#status")  # the count travels with the list
        assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_active_filters_show_as_chips_that_remove_them(
    shipped: tuple[Path, list[dict[str, Any]]], reader: Page
) -> None:
    site, entries = shipped
    go(reader, site, "index.html?credit_granularity=message&is_rl=yes")
    message = {d["key"] for d in entries if d.get("credit_granularity") == "message"}
    both = {k for k in message if next(d for d in entries if d["key"] == k)["is_rl"] == "yes"}
    status_is(reader, f"Showing {len(both)} of {N} entries.")
    chips = reader.eval_on_selector_all(
        "#active-filters button", "bs => bs.map(b => b.getAttribute('aria-label'))"
    )
    assert chips == ["Remove RL: Yes", "Remove Credit: Message", None]  # then "Clear all"
    reader.click('#active-filters button[data-axis="is_rl"]')
    status_is(reader, f"Showing {len(message)} of {N} entries.")
    assert "is_rl" not in reader.url and "credit_granularity=message" in reader.url
    assert not reader.is_checked('input[name="is_rl"][value="yes"]')
    reader.fill("#q", "counterfactual")
    wait_for(reader, "document.querySelectorAll('#active-filters button').length === 3")
    reader.click("#active-filters button.clear-all")
    status_is(reader, ALL)
    assert reader.is_hidden("#active-filters") and reader.input_value("#q") == ""


def violations(page: Page, rules: list[str] | None = None) -> list[Any]:
    """axe-core's violations on PAGE, of any impact (only RULES, when given)."""
    options = {"resultTypes": ["violations"], "preload": False}
    if rules:
        options["runOnly"] = rules
    result = page.evaluate("options => axe.run(document, options)", options)
    return [
        (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in result["violations"]
    ]


@pytest.mark.parametrize("name", PAGE_TYPES)
def test_axe_finds_no_violation(
    shipped: tuple[Path, Any], browser: Browser, width: str, name: str
) -> None:
    """axe-core (npm, tests/awesome), injected into the page from node_modules: every rule in
    the light scheme, then the colour rules again in the dark one (the dark style changes
    colours only)."""
    assert AXE.is_file(), "run `make test` (it installs tests/awesome with npm)"
    for page in open_page(browser, width, "light", bypass_csp=True):
        go(page, shipped[0], name)
        if name == "index.html" and width == "phone":
            page.click("#filters-toggle")  # the sheet of filters is checked too
        if name == "index.html":  # with every folded group open
            page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
        page.add_script_tag(path=str(AXE))
        assert violations(page) == []
        page.emulate_media(color_scheme="dark")
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
        assert violations(page, ["color-contrast", "link-in-text-block"]) == []


def search(page: Page, words: str) -> set[str]:
    page.fill("#q", words)
    wait_for(page, f"new URLSearchParams(location.search).get('q') === {words!r}")
    wait_for(page, "/^Showing|^No entry/.test(document.querySelector('#status').textContent)")
    keys = set(visible_keys(page))
    assert not page.query_selector("#pager a[rel=next]"), "one page holds every match"
    return keys


def test_search_finds_what_bylines_and_tags_show(
    shipped: tuple[Path, list[dict[str, Any]]], reader: Page
) -> None:
    site, entries = shipped
    go(reader, site, "index.html")
    for word in ("NeurIPS", "ICLR"):
        shown = {d["key"] for d in entries if word in str(d.get("venue"))}
        assert len(shown) >= 9
        found = search(reader, word)
        assert shown <= found, (word, shown - found)
        assert search(reader, word.lower()) == found
    year = {d["key"] for d in entries if d["year"] == 2025}
    assert len(year) == 36 and year <= search(reader, "2025")
    debate = {
        d["key"]
        for d in entries
        if "debate" in [d.get("orchestration_form"), d.get("reward_type"), d.get("scenario")]
    }
    assert len(debate) >= 8 and debate <= search(reader, "debate")
    written = {  # the entries whose own words say multi-agent, either way
        d["key"]
        for d in entries
        if re.search(r"multi-?agent", " ".join(str(d.get(f)) for f in TEXT_FIELDS), re.I)
    }
    joined = search(reader, "multiagent")
    assert len(written) >= 48 and written <= joined
    assert joined <= search(reader, "multi-agent") == search(reader, "Multi Agent")
    assert search(reader, "counterfact") == search(reader, "counterfactual")  # prefixes
    assert search(reader, "zzzyx") == set()
    assert reader.is_visible("#no-results") and reader.is_visible("#clear-empty")
    assert f"without the search \u201czzzyx\u201d, {N} entries match" in reader.text_content(
        "#no-results"
    )
    reader.click("#clear-empty")
    status_is(reader, ALL)


def test_year_and_venue_facets(shipped: tuple[Path, list[dict[str, Any]]], reader: Page) -> None:
    site, entries = shipped
    neurips = {d["key"] for d in entries if "NeurIPS" in str(d.get("venue"))}
    go(reader, site, "index.html?venue=NeurIPS")
    status_is(reader, f"Showing {len(neurips)} of {N} entries.")
    assert set(visible_keys(reader)) == neurips
    go(reader, site, "index.html?year=2025&venue=ICLR")
    expected = {d["key"] for d in entries if d["year"] == 2025 and "ICLR" in str(d["venue"])}
    status_is(reader, f"Showing {len(expected)} of {N} entries.")
    assert set(visible_keys(reader)) == expected


def test_gap_cell_leads_to_its_papers_and_back(
    shipped: tuple[Path, Any], reader: Page, width: str
) -> None:
    import json

    site, _ = shipped
    stats = json.loads((site / "stats" / "stats.json").read_text())
    gap = next(g for g in stats["gaps"] if g["id"] == "reward-credit-gap")
    cell = next(c for c in gap["cells"] if c["count"] > 1)
    cell_id = f"cell-{gap['id']}-{cell['row']}-{cell['col']}"
    go(reader, site, "gaps.html")
    reader.click(f'a[data-cell="{cell_id}"]')
    reader.wait_for_url("**/index.html?*")
    status_is(reader, f"Showing {cell['count']} of {N} entries.")
    assert set(visible_keys(reader)) == set(cell["keys"])
    reader.go_back()
    reader.wait_for_url(f"**/gaps.html#{cell_id}")
    wait_for(reader, f"!document.getElementById({cell_id!r}).hidden")
    assert reader.get_attribute(f'a[data-cell="{cell_id}"]', "aria-current") == "true"
    if width == "phone":  # the row labels stay in view while the table scrolls
        region = reader.locator(f"section#{gap['id']} .scroll")
        region.evaluate("r => { r.scrollLeft = r.scrollWidth; }")
        label = reader.locator(f"section#{gap['id']} tbody th").first.bounding_box()
        assert label is not None and label["x"] >= 0


def test_list_reports_unknown_values_and_corrects_pages(
    shipped: tuple[Path, Any], reader: Page
) -> None:
    site, _ = shipped
    go(reader, site, "index.html?category=nonsense")
    wait_for(reader, "!document.querySelector('#no-results').hidden")
    assert "There is no Category \u201cnonsense\u201d." in reader.text_content("#no-results")
    go(reader, site, "index.html?page=7")
    status_is(reader, ALL)
    assert "page=" not in reader.url
    go(reader, site, "index.html")
    assert reader.get_attribute("a.skip", "href") == "#results"


def test_without_script_a_filtered_address_claims_nothing(
    shipped: tuple[Path, Any],
    browser: Browser,
) -> None:
    for page in open_page(browser, "phone", java_script_enabled=False):
        go(page, shipped[0], "index.html?category=survey")
        assert "Showing all" not in page.text_content("main")
        assert "the address's filters are not applied" in page.text_content("main")


def visible_text(page: Page) -> str:
    return str(page.evaluate("document.body.innerText"))


def test_no_label_is_written_twice(
    shipped: tuple[Path, list[dict[str, Any]]], reader: Page
) -> None:
    site, _ = shipped
    for name in [*PAGE_TYPES, "index.html?q=agent&sort=title"]:
        go(reader, site, name)
        if "?" in name:
            wait_for(reader, "document.querySelector('#status').textContent.startsWith('Show')")
        text = visible_text(reader)
        assert not DOUBLED.search(text), (name, DOUBLED.search(text))
        tips = reader.eval_on_selector_all(
            "a.chip[title]", "cs => cs.map(c => [c.textContent, c.title])"
        )
        for chip, tip in tips:  # a tooltip says what the value means, not its axis again
            axis = chip.split(":")[0]
            assert not tip.startswith(f"{axis}:") and chip not in tip, (name, chip, tip)
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert not DOUBLED.search(readme), DOUBLED.search(readme)
    assert "Orchestration topology: Orchestration topology" not in readme


def test_doubled_label_check_is_real() -> None:
    assert DOUBLED.search("_Orchestration topology: Orchestration topology: Debate._")
    assert DOUBLED.search("Credit: Credit: Agent")
    assert not DOUBLED.search("Learns: O1 When to spawn, Learns: O2 Whom to delegate to")
    assert not DOUBLED.search("Reward: R6 Debate reward, Topology: Debate")


def ranked(page: Page, words: str) -> list[str]:
    """The keys of the list after searching WORDS, in the order shown."""
    page.fill("#q", words)
    wait_for(page, f"new URLSearchParams(location.search).get('q') === {words!r}")
    wait_for(
        page, "/^Showing|is in every|^No entry/.test(document.querySelector('#status').textContent)"
    )
    return list(page.eval_on_selector_all("li.entry", "els => els.map(e => e.dataset.key)"))


def test_search_ranks_and_says_when_a_word_is_everywhere(
    shipped: tuple[Path, list[dict[str, Any]]], reader: Page
) -> None:
    """Every entry carries a credit-unit tag ("Credit: ..."), so `credit` matches all of them: the
    status says so instead of "Showing all", and the entries whose title says credit come
    first, the word marked."""
    site, entries = shipped
    assert all(d.get("credit_granularity") for d in entries)
    go(reader, site, "index.html")
    keys = ranked(reader, "credit")
    status = reader.text_content("#status") or ""
    assert "\u201ccredit\u201d is in every entry\u2019s tags" in status
    assert "Showing all" not in status and "Credit unit filter" in status
    assert len(keys) == N
    titled = {d["key"] for d in entries if "credit" in d["title"].lower()}
    assert len(titled) >= 3 and set(keys[: len(titled)]) == titled  # the title's word first
    first = reader.locator("li.entry").first
    assert [m.lower() for m in first.locator("h3 mark").all_text_contents()] == ["credit"]
    assert reader.input_value("#sort") == "relevance"


def test_search_forgives_typos_and_ranks_first_authors(
    shipped: tuple[Path, list[dict[str, Any]]], reader: Page
) -> None:
    site, entries = shipped
    go(reader, site, "index.html")
    shapley = {d["key"] for d in entries if "shapley" in (d["title"] + d["summary"]).lower()}
    assert len(shapley) >= 2 and set(ranked(reader, "shaply")) == shapley  # one letter off
    assert set(ranked(reader, "credt")) == set(ranked(reader, "credit"))

    def first_author(d: dict[str, Any]) -> str:
        return str(d["authors"][0]).split(",")[0]

    zhang = {d["key"] for d in entries if first_author(d) == "Zhang"}
    others = {d["key"] for d in entries if "Zhang" in " ".join(d["authors"][1:])}
    assert zhang and others  # and more whose bylines show someone else first
    keys = ranked(reader, "Zhang")
    assert set(keys[: len(zhang)]) == zhang and others <= set(keys)
    hidden = reader.locator(f'li.entry[data-key="{sorted(others - zhang)[0]}"] .found-in')
    assert "Found in the authors: zhang" in hidden.text_content()  # type: ignore[operator]
    iclr = {d["key"] for d in entries if "ICLR 2025" in str(d["venue"])}
    assert iclr and set(ranked(reader, "ICLR 2025")[: len(iclr)]) == iclr  # 2026 ones after


INDEX_LOADED = "!!document.querySelector('script[src$=\"search-index.js\"]')"
# Resolves once the page's own idle callbacks (registered before this one) have run.
IDLE = "() => new Promise((r) => requestIdleCallback(() => setTimeout(r, 0), { timeout: 4000 }))"


def test_the_search_index_loads_while_the_page_is_idle_unless_data_is_saved(
    shipped: tuple[Path, Any], browser: Browser
) -> None:
    """A first search should find the index built: the page fetches it once idle, without the
    box being touched; a reader who asked to save data (Save-Data) fetches it on first touch."""
    site = shipped[0]
    for page in open_page(browser, "desktop"):
        go(page, site, "index.html")
        page.evaluate(IDLE)
        wait_for(page, INDEX_LOADED)
    for page in open_page(browser, "phone"):
        page.add_init_script(
            "Object.defineProperty(navigator, 'connection', { value: { saveData: true } })"
        )
        go(page, site, "index.html")
        assert page.evaluate("navigator.connection.saveData")
        page.evaluate(IDLE)
        page.wait_for_timeout(200)
        assert not page.evaluate(INDEX_LOADED)
        page.focus("#q")
        wait_for(page, INDEX_LOADED)


def test_typing_on_shows_the_last_word_typed(
    shipped: tuple[Path, list[dict[str, Any]]], reader: Page
) -> None:
    """The first word shows at once and what is typed soon after waits for one pass: the pass
    at the end must show the last letters typed, not the first."""
    site, entries = shipped
    go(reader, site, "index.html")
    shapley = {d["key"] for d in entries if "shapley" in (d["title"] + d["summary"]).lower()}
    assert len(shapley) >= 2  # else the last check would hold of an empty list
    assert ranked(reader, "marl")  # index built, a first pass done
    reader.fill("#q", "sha")
    reader.type("#q", "pley", delay=10)  # within the pause after the first pass
    wait_for(reader, "new URLSearchParams(location.search).get('q') === 'shapley'")
    wait_for(reader, "/^Showing/.test(document.querySelector('#status').textContent)")
    assert set(visible_keys(reader)) == shapley


def test_the_sort_runs_over_the_whole_list(
    shipped: tuple[Path, list[dict[str, Any]]], reader: Page
) -> None:
    site, entries = shipped
    go(reader, site, "index.html?sort=year-asc")
    status_is(reader, ALL)
    years = [next(d["year"] for d in entries if d["key"] == k) for k in visible_order(reader)]
    assert years == sorted(years) and years[0] == 1994  # Littman's Markov games open it
    assert reader.eval_on_selector_all("#results section h2", "hs => hs.length") == 0


def visible_order(page: Page) -> list[str]:
    return list(page.eval_on_selector_all("li.entry", "els => els.map(e => e.dataset.key)"))


def test_facets_put_the_survey_axes_first_and_hide_what_cannot_apply(
    shipped: tuple[Path, Any], reader: Page
) -> None:
    site, _ = shipped
    go(reader, site, "index.html")
    groups = reader.eval_on_selector_all(
        "#facets > fieldset, #facets > details", "gs => gs.map(g => [g.id, g.tagName])"
    )
    assert groups[:4] == [
        ["facet-reward_type", "FIELDSET"],
        ["facet-credit_granularity", "FIELDSET"],
        ["facet-orchestration_decisions", "FIELDSET"],
        ["facet-orchestration_form", "FIELDSET"],
    ]
    assert {tag for _, tag in groups[4:]} == {"DETAILS"}  # the rest folded
    assert reader.evaluate("document.getElementById('facet-benchmark_measures').hidden") is False
    go(reader, site, "index.html?category=rl_method")
    wait_for(reader, "document.getElementById('facet-benchmark_measures').hidden")
    assert "hidden: no matching entry has a value there" in (
        reader.text_content("#facets-hidden") or ""
    )
    skip = reader.locator("#facet-reward_type a.skip-group")  # a keyboard user skips a group
    assert skip.get_attribute("href") == "#facet-credit_granularity"
    if reader.viewport_size["width"] > 800:  # type: ignore[index]
        reader.focus('input[name="reward_type"]')
        reader.keyboard.press("Shift+Tab")
        assert reader.evaluate("document.activeElement.className") == "skip-group"
    rows = reader.eval_on_selector_all(  # a count never wraps under its label
        "#facet-reward_type label",
        "ls => ls.map(l => l.querySelector('.count').getBoundingClientRect().top"
        " - l.querySelector('input').getBoundingClientRect().top)",
    )
    assert max(abs(r) for r in rows) < 12


def test_paper_page_shows_evidence_and_leads_back(shipped: tuple[Path, Any], reader: Page) -> None:
    """kimi-k2-5.yaml: orchestration_evidence spawn is a survey-figure anchor quoting 'can
    self-direct an agent swarm with up to 100 sub-agents' from its launch blog."""
    site, _ = shipped
    go(reader, site, "index.html?q=kimi")
    wait_for(reader, "location.search.includes('q=kimi')")
    go(reader, site, "papers/kimi-k2-5.html")
    spawn = reader.locator("ul.tags > li", has=reader.locator("a.chip-orchestration_decisions"))
    quote = spawn.first.locator("blockquote.evidence")
    assert "can self-direct an agent swarm with up to 100 sub-agents" in quote.text_content()  # type: ignore[operator]
    assert "survey figure" in (quote.locator("footer").text_content() or "")
    chip = reader.locator("ul.tags a.chip-orchestration_decisions").first
    assert chip.get_attribute("href") == "../index.html?orchestration_decisions=spawn"
    assert reader.locator("ul.related > li").count() >= 2  # related papers as a list
    back = reader.locator("a.back")
    assert back.text_content() == "\u2190 Back to your list"
    back.click()
    wait_for(reader, "location.search === '?q=kimi'")


def contrast(fg: str, bg: str) -> float:
    """WCAG 2 contrast ratio of two 'rgb(r, g, b)' colours."""

    def lum(c: str) -> float:
        r, g, b = (int(x) / 255 for x in re.findall(r"\d+", c)[:3])
        lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in (r, g, b)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((lum(fg), lum(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_gap_cells_read_well_and_filled_ones_stand_out(
    shipped: tuple[Path, Any], browser: Browser, scheme: str
) -> None:
    for page in open_page(browser, "desktop", scheme):
        go(page, shipped[0], "gaps.html")
        style = "c => { const s = getComputedStyle(c); return [s.color, s.backgroundColor]; }"
        na = page.locator(".cell.state-expected_empty").first.evaluate(style)
        assert contrast(*na) >= 4.5, na
        empty = page.locator(".cell.state-empty").first.evaluate(style)
        filled = page.locator(".cell.state-filled").first.evaluate(style)
        assert empty[1] == "rgba(0, 0, 0, 0)"  # an empty cell has no fill; a filled one has
        assert contrast(filled[0], filled[1]) >= 4.5 and filled[1] != empty[1]
        # more entries, more ink: each shade stands further from the page than the one before,
        # sparse least of all, in the light scheme and the dark one alike
        page_bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
        steps = [page.locator(f".legend .swatch.{c}").first.evaluate(style)
                 for c in ("state-sparse", *(f"shade-{k}" for k in range(1, 5)))]  # fmt: skip
        apart = [contrast(bg, page_bg) for _, bg in steps]
        assert apart == sorted(apart) and len(set(apart)) == 5, apart
        assert all(contrast(fg, bg) >= 4.5 for fg, bg in steps), steps


def test_the_gap_table_corner_stays_over_scrolled_headings(
    shipped: tuple[Path, Any], browser: Browser
) -> None:
    """On a phone a wide gap table scrolls sideways inside its frame: the row labels and the
    corner above them stay put, and the column headings pass under them, not over them."""
    for page in open_page(browser, "phone"):
        go(page, shipped[0], "gaps.html")
        wide = page.eval_on_selector_all(
            ".gap .scroll", "fs => fs.findIndex(f => f.scrollWidth > f.clientWidth + 100)"
        )
        assert wide >= 0  # some table is wider than a phone
        frame = page.locator(".gap .scroll").nth(wide)
        frame.scroll_into_view_if_needed()
        frame.evaluate("f => { f.scrollLeft = 120; }")
        on_top = frame.evaluate(
            """f => { const probe = (el) => { const r = el.getBoundingClientRect();
                 const hit = document.elementFromPoint(r.left + 4, r.top + r.height / 2);
                 return hit === el || el.contains(hit); };
               return [probe(f.querySelector('thead td')),
                       probe(f.querySelector('tbody th[scope=row]'))]; }"""
        )
        assert on_top == [True, True]


def test_trace_field_names_never_break_inside_a_word(
    shipped: tuple[Path, Any], reader: Page
) -> None:
    go(reader, shipped[0], "traces.html")
    broken = reader.eval_on_selector_all(
        "table.schema th code",
        """cs => cs.filter(c => Array.from(c.childNodes).some(n => {
             if (n.nodeType !== 3) { return false; }
             const r = document.createRange(); r.selectNodeContents(n);
             return new Set(Array.from(r.getClientRects(), x => Math.round(x.top))).size > 1;
           })).map(c => c.textContent)""",
    )
    assert reader.locator("table.schema th code").count() > 10 and broken == []


def test_figures_stay_legible_on_a_phone(shipped: tuple[Path, Any], browser: Browser) -> None:
    """A figure keeps its own size on a phone (its 9 pt text at about 12 px) and scrolls
    sideways inside its frame; the page itself never does."""
    for page in open_page(browser, "phone"):
        go(page, shipped[0], "stats.html")
        page.evaluate("document.querySelectorAll('img').forEach(i => { i.loading = 'eager'; })")
        wait_for(page, "Array.from(document.images).every(i => i.complete)")
        scales = page.eval_on_selector_all(
            "figure img", "is => is.map(i => i.getBoundingClientRect().width / i.naturalWidth)"
        )
        assert len(scales) >= 5 and min(scales) > 0.99
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        order = page.eval_on_selector_all("section.stats-section", "ss => ss.map(s => s.id)")
        assert order[:2] == ["maps", "gaps"]  # the survey's maps, then its gaps
        assert page.locator("nav.contents li").count() <= 12  # a short contents
        figures = page.eval_on_selector_all("figure", "fs => fs.map(f => f.id)")
        assert not [f for f in figures if f.startswith(("figure-gap-", "figure-coverage-"))]


@pytest.mark.parametrize("name", PAGE_TYPES)
def test_every_page_describes_itself_and_links_the_feed(
    shipped: tuple[Path, Any], name: str
) -> None:
    html = (shipped[0] / name).read_text(encoding="utf-8")
    depth = "../" * name.count("/")
    assert (
        f'<link rel="alternate" type="application/atom+xml" title="New entries and '
        f'releases" href="{depth}feed.xml">' in html
    )
    for tag in (
        '<meta name="description" content="',
        '<meta property="og:title" content="',
        '<meta property="og:description" content="',
        '<meta property="og:type"',
    ):
        assert tag in html, (name, tag)
    nav = html.split('<nav aria-label="Site"')[1].split("</nav>")[0]
    assert "screening.html" not in nav and "traces.html" not in nav  # curators' pages apart
    assert 'aria-label="For curators"' in html and "Cite this corpus" in html
