"""The shipped corpus's site as readers meet it, in headless Chromium at a desktop (1366x900)
and a phone (390x844) width, light and dark: no page scrolls sideways, axe-core finds no
serious or critical violation, the search finds what bylines and tags show, a gap cell leads
to its papers and back, the filters fold away on a phone, and no label is written twice."""

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
from litcorpus.publish.site import build_site
from safewrite.tree import write_tree
from test_browser import status_is, visible_keys, wait_for

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
    """The site of the shipped corpus, and its entries' data."""
    corpus = load_corpus(REPO)
    out = tmp_path_factory.mktemp("reader") / "site"
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


def test_list_pages_and_open_filters_fit_a_phone(
    shipped: tuple[Path, Any], browser: Browser
) -> None:
    for page in open_page(browser, "phone"):
        go(page, shipped[0], "index.html?scenario=coding")
        status_is(page, f"Showing {page.locator('li.entry').count()} of 84 entries.")
        assert page.is_hidden("#facet-groups")  # folded: the papers come first
        assert page.text_content("#filters-toggle") == "Filters (1 active)"
        assert page.locator("li.entry").first.bounding_box()["y"] < 1100  # type: ignore[index]
        page.click("#filters-toggle")
        assert page.is_visible("#facet-groups")
        assert page.get_attribute("#filters-toggle", "aria-expanded") == "true"
        assert page.evaluate("document.documentElement.scrollWidth") <= 390


def serious(page: Page, rules: list[str] | None = None) -> list[Any]:
    """axe-core's serious and critical violations on PAGE (only RULES, when given)."""
    options = {"resultTypes": ["violations"], "preload": False}
    if rules:
        options["runOnly"] = rules
    result = page.evaluate("options => axe.run(document, options)", options)
    return [
        (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("name", PAGE_TYPES)
def test_axe_finds_no_serious_violation(
    shipped: tuple[Path, Any], browser: Browser, width: str, name: str
) -> None:
    """axe-core (npm, tests/awesome), injected into the page from node_modules: every rule in
    the light scheme, then the colour rules again in the dark one (the dark style changes
    colours only)."""
    assert AXE.is_file(), "run `make test` (it installs tests/awesome with npm)"
    for page in open_page(browser, width, "light", bypass_csp=True):
        go(page, shipped[0], name)
        if name == "index.html" and width == "phone":
            page.click("#filters-toggle")  # the folded filters are checked too
        page.add_script_tag(path=str(AXE))
        assert serious(page) == []
        page.emulate_media(color_scheme="dark")
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
        assert serious(page, ["color-contrast", "link-in-text-block"]) == []


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
    assert "without the search \u201czzzyx\u201d, 84 entries match" in reader.text_content(
        "#no-results"
    )
    reader.click("#clear-empty")
    status_is(reader, "Showing all 84 entries.")


def test_year_and_venue_facets(shipped: tuple[Path, list[dict[str, Any]]], reader: Page) -> None:
    site, entries = shipped
    neurips = {d["key"] for d in entries if "NeurIPS" in str(d.get("venue"))}
    go(reader, site, "index.html?venue=NeurIPS")
    status_is(reader, f"Showing {len(neurips)} of 84 entries.")
    assert set(visible_keys(reader)) == neurips
    go(reader, site, "index.html?year=2025&venue=ICLR")
    expected = {d["key"] for d in entries if d["year"] == 2025 and "ICLR" in str(d["venue"])}
    status_is(reader, f"Showing {len(expected)} of 84 entries.")
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
    status_is(reader, f"Showing {cell['count']} of 84 entries.")
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
    status_is(reader, "Showing all 84 entries.")
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
