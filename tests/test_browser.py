"""The site in a real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright),
opened straight from disk: URL filters, search, facets, pages, history, the gap map, and hostile
data."""

from __future__ import annotations

import html
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest
import yaml
from playwright.sync_api import Browser, ConsoleMessage, Page

from litcorpus.analysis.result import analyse
from litcorpus.model.corpus import load_corpus
from litcorpus.publish.site import build_site
from surewrite.tree import write_tree

HOSTILE = """key: zz-hostile
title: "<img src=x onerror=\\"window.__pwned=1\\"> Hostile <script>window.__pwned=2</script>"
authors:
  - "<b>Mallory</b>, Eve"
year: 2026
venue: arXiv
affiliation: unknown
url: https://example.org/hostile?a=1&b=<2>
category: framework
is_rl: "no"
reward_type: NA
credit_granularity: NA
orchestration_form: NA
scenario: general
is_core: supporting
verified: "no"
summary: "<script>window.__pwned=3</script><img src=x onerror=\\"window.__pwned=4\\"> Payload."
notes: "javascript:window.__pwned=5"
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:

    from conftest import make_mini_root

    root = make_mini_root(tmp_path_factory.mktemp("browser"))  # with the trace schema
    (root / "papers" / "zz-hostile.yaml").write_text(HOSTILE, encoding="utf-8")
    edit_claims = (
        (root / "claims.yaml")
        .read_text()
        .replace("included: 3", "included: 4")
        .replace("identified: 5", "identified: 6")
    )
    edit_claims = edit_claims.replace("{assessed: 5, excluded: 0}", "{assessed: 6, excluded: 0}")
    edit_claims = edit_claims.replace(
        "abstract_screen: {assessed: 5", "abstract_screen: {assessed: 6"
    )
    edit_claims = edit_claims.replace("{assessed: 4, excluded: 0}", "{assessed: 5, excluded: 0}")
    edit_claims = edit_claims.replace(
        "artifact_screen: {assessed: 4", "artifact_screen: {assessed: 5"
    )
    (root / "claims.yaml").write_text(edit_claims)
    out = root / "site"
    # built without the checks (the URL is one check refuses): escaping must not rely on them
    result = analyse(load_corpus(root), stats_if_invalid=True)
    write_tree(out, build_site(result), "litcorpus", "site")
    return out


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context()
    pg = context.new_page()
    problems: list[str] = []
    pg.on("console", lambda m: problems.append(m.text) if _is_error(m) else None)
    pg.on("pageerror", lambda e: problems.append(str(e)))
    pg.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
    yield pg
    context.close()
    assert problems == [], problems


def _is_error(message: ConsoleMessage) -> bool:
    return message.type in ("error", "warning")


def wait_for(page: Page, expression: str, timeout: float = 5.0) -> None:
    """Poll EXPRESSION in the page (wait_for_function would need eval, which the CSP forbids)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"timed out waiting for {expression}"
        page.wait_for_timeout(50)


def tick(page: Page, name: str, value: str) -> None:
    """Tick a filter, unfolding its group first when the group is folded."""
    box = f'input[name="{name}"][value="{value}"]'
    page.evaluate(
        "s => { const d = document.querySelector(s).closest('details'); "
        "if (d) { d.open = true; } }",
        box,
    )
    page.check(box)


def visible_keys(page: Page) -> list[str]:
    return sorted(
        page.eval_on_selector_all(".entry:not([hidden])", "els => els.map(e => e.dataset.key)")
    )


def test_url_filter_from_disk_shows_exactly_the_matches(site: Path, page: Page) -> None:
    page.goto((site / "index.html").as_uri() + "?credit_granularity=orchestrator")
    assert visible_keys(page) == ["alpha-rl"]
    assert page.is_checked('input[name="credit_granularity"][value="orchestrator"]')
    page.goto((site / "index.html").as_uri() + "?category=benchmark&category=survey")
    assert visible_keys(page) == ["beta-bench", "gamma-survey"]
    assert page.text_content("#status") == "Showing 2 of 4 entries."


def test_search_and_facets_update_list_and_url(site: Path, page: Page) -> None:
    page.goto((site / "index.html").as_uri())
    assert len(visible_keys(page)) == 4
    page.fill("#q", "assignment")
    wait_for(page, "document.querySelector('#status').textContent.startsWith('Showing 1')")
    assert visible_keys(page) == ["gamma-survey"]  # "assignment" appears only in its title
    assert "q=assignment" in page.url
    page.fill("#q", "")
    wait_for(page, "document.querySelectorAll('.entry:not([hidden])').length === 4")
    tick(page, "is_rl", "yes")
    assert visible_keys(page) == ["alpha-rl"]
    assert "is_rl=yes" in page.url
    count = page.text_content('[data-count="is_rl=no"]')
    assert count == "2"  # facet counts ignore the facet's own selection
    # ticking a value no matching entry has could only empty the list: it is disabled
    assert page.is_disabled('input[name="category"][value="benchmark"]')
    assert page.text_content('[data-count="category=benchmark"]') == "0"
    tick(page, "category", "rl_method")
    assert visible_keys(page) == ["alpha-rl"]
    page.go_back()
    wait_for(page, "!document.querySelector('input[name=category][value=rl_method]').checked")
    assert visible_keys(page) == ["alpha-rl"]
    page.go_back()
    wait_for(page, "document.querySelectorAll('.entry:not([hidden])').length === 4")


def test_search_covers_notes_and_authors(site: Path, page: Page) -> None:
    page.goto((site / "index.html").as_uri() + "?q=fixture")
    wait_for(page, "document.querySelector('#status').textContent.startsWith('Showing 1')")
    assert visible_keys(page) == ["alpha-rl"]  # "Fixture entry." is in its notes only
    page.goto((site / "index.html").as_uri() + "?q=smith")
    wait_for(page, "document.querySelector('#status').textContent.startsWith('Showing 1')")
    assert visible_keys(page) == ["beta-bench"]


def test_gap_map_cell_leads_to_the_filtered_list_and_back(site: Path, page: Page) -> None:
    """A cell with entries opens the list filtered to it; Back returns to the map with that
    cell shown. An empty cell opens its own panel, which says why it is empty."""
    page.goto((site / "gaps.html").as_uri())
    cell = 'a[data-cell="cell-orchestration-learning-gap-spawn-yes"]'
    panel = "#cell-orchestration-learning-gap-spawn-yes"
    assert page.is_hidden(panel)
    page.click(cell)
    page.wait_for_url("**/index.html?*")
    assert "orchestration_decisions=spawn" in page.url and "is_rl=yes" in page.url
    status_is(page, "Showing 1 of 4 entries.")
    assert visible_keys(page) == ["alpha-rl"]
    page.go_back()
    page.wait_for_url("**/gaps.html#cell-orchestration-learning-gap-spawn-yes")
    wait_for(page, f"!document.querySelector({panel!r}).hidden")
    keys = page.eval_on_selector_all(panel + " li", "els => els.map(e => e.dataset.key)")
    assert keys == ["alpha-rl"]
    assert page.get_attribute(cell, "aria-current") == "true"
    stop = 'a[data-cell="cell-orchestration-learning-gap-stop-yes"]'
    assert "state-empty" in (page.get_attribute(stop, "class") or "")
    page.focus(stop)
    page.keyboard.press("Enter")
    page.wait_for_url("**/gaps.html#cell-orchestration-learning-gap-stop-yes")
    wait_for(page, "!document.querySelector('#cell-orchestration-learning-gap-stop-yes').hidden")
    assert page.is_hidden(panel)
    page.evaluate("location.hash = '#cell-orchestration-learning-gap-spawn-yes'")
    wait_for(page, f"!document.querySelector({panel!r}).hidden")
    unclaimed = "#cell-orchestration-learning-gap-communicate-no"  # empty; no claim speaks of it
    assert "Unexplored" in page.text_content(unclaimed)


def test_empty_gap_cell_leads_to_its_claim_and_back(site: Path, page: Page) -> None:
    """The claim no-stop (fixture claims.yaml: no RL-trained entry learns to stop) speaks of
    the empty cell O5 x Yes: the cell's panel gives the claim, not the "unexplored" sentence,
    and links to it; the claim links back to the cell."""
    stop = "cell-orchestration-learning-gap-stop-yes"
    page.goto((site / "gaps.html").as_uri())
    assert "claimed" in (page.get_attribute(f'a[data-cell="{stop}"]', "class") or "")
    page.click(f'a[data-cell="{stop}"]')
    wait_for(page, f"!document.getElementById({stop!r}).hidden")
    text = page.text_content(f"#{stop}") or ""
    assert "No RL-trained entry learns to stop." in text and "Unexplored" not in text
    page.click(f"#{stop} a[href$='claims.html#claim-no-stop']")
    page.wait_for_url("**/claims.html#claim-no-stop")
    back = page.locator(f"#claim-no-stop a[href$='gaps.html#{stop}']")
    assert back.count() == 1
    back.click()
    page.wait_for_url(f"**/gaps.html#{stop}")
    wait_for(page, f"!document.getElementById({stop!r}).hidden")


def test_hostile_entry_renders_as_text_and_runs_nothing(site: Path, page: Page) -> None:
    for url in ["index.html", "papers/zz-hostile.html", "index.html?q=payload", "taxonomy.html"]:
        page.goto(
            (site / url.split("?")[0]).as_uri() + ("?" + url.split("?")[1] if "?" in url else "")
        )
        page.wait_for_timeout(150)
        assert page.evaluate("window.__pwned") is None
    page.goto((site / "papers/zz-hostile.html").as_uri())
    assert "<script>window.__pwned=2</script>" in page.text_content("h1")
    assert page.eval_on_selector_all("main img", "els => els.length") == 0
    hrefs = page.eval_on_selector_all("a", "els => els.map(a => a.getAttribute('href'))")
    assert not [h for h in hrefs if h and h.lower().startswith("javascript:")]


@pytest.mark.parametrize(
    "name",
    [
        "index.html",
        "taxonomy.html",
        "gaps.html",
        "stats.html",
        "claims.html",
        "screening.html",
        "traces.html",
        "papers/alpha-rl.html",
    ],
)
def test_every_page_loads_without_console_errors(site: Path, page: Page, name: str) -> None:
    page.goto((site / name).as_uri())
    page.wait_for_timeout(100)
    assert page.title().endswith("awesome-llm-mas-rl")


def test_phone_width_has_no_horizontal_scroll(site: Path, browser: Browser) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 800})
    pg = context.new_page()
    pg.goto((site / "index.html").as_uri())
    assert pg.evaluate("document.documentElement.scrollWidth") <= 375
    context.close()


PAGE = 100  # litcorpus.publish.listing.PAGE_SIZE


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """A generated 250-entry corpus (three pages) and its site: (site folder, entry data)."""
    from conftest import REPO, pages_of

    root = tmp_path_factory.mktemp("big") / "corpus"
    gen = REPO / "tests" / "bench" / "gencorpus.py"
    subprocess.run([sys.executable, str(gen), "250", str(root)], check=True, timeout=120)
    corpus = load_corpus(root)
    write_tree(root / "site", pages_of(root), "litcorpus", "site")
    return root / "site", [r.data for r in corpus.of("paper")]


def entry_keys(page: Page) -> list[str]:
    return page.eval_on_selector_all("li.entry", "els => els.map(e => e.dataset.key)")


def status_is(page: Page, text: str) -> None:
    wait_for(page, f"document.querySelector('#status').textContent === {text!r}")


def sections_html(page: Page) -> str:
    """The rendered list, with whitespace between tags and the ../ of list pages dropped."""
    html = page.eval_on_selector_all("#results ol.entries", "els => els.map(e => e.outerHTML)")
    assert html and 'li class="entry"' in html[0]
    return re.sub(r">\s+<", "><", "".join(html)).replace('href="../', 'href="')


def test_list_pages_through_the_url_and_history(
    big: tuple[Path, list[dict[str, Any]]], page: Page
) -> None:
    site, _ = big
    page.goto((site / "index.html").as_uri())
    assert page.evaluate("typeof window.LITCORPUS_ENTRIES") == "undefined"  # loaded on use
    assert page.text_content("#status") == "Showing 1\u2013100 of all 250 entries."
    first = entry_keys(page)
    assert len(first) == PAGE
    page.click("#pager a[rel=next]")
    status_is(page, "Showing 101\u2013200 of all 250 entries.")
    second = entry_keys(page)
    assert len(second) == PAGE and not set(first) & set(second)
    assert page.url.endswith("index.html?page=2")
    assert page.get_attribute("#pager [aria-current=page]", "data-page") == "2"
    assert page.evaluate("document.activeElement.id") == "results"
    page.click('#pager a[aria-label="Page 3"]')
    status_is(page, "Showing 201\u2013250 of all 250 entries.")
    assert len(entry_keys(page)) == 50 and page.is_visible("#pager span.off")
    page.go_back()
    status_is(page, "Showing 101\u2013200 of all 250 entries.")
    assert entry_keys(page) == second
    page.go_back()
    status_is(page, "Showing 1\u2013100 of all 250 entries.")
    assert entry_keys(page) == first
    page.go_forward()
    status_is(page, "Showing 101\u2013200 of all 250 entries.")
    page.goto((site / "index.html").as_uri() + "?page=99")  # past the end: the last page
    assert page.text_content("#status") == "Showing 201\u2013250 of all 250 entries."


def test_since_a_release_shows_only_what_was_added_after_it(
    big: tuple[Path, list[dict[str, Any]]], page: Page
) -> None:
    """?since=2026.05: the synthetic entries (added after the snapshot), each marked new."""
    site, entries = big
    later = sorted(d["key"] for d in entries if str(d["added"]) > "2026-05-04")
    page.goto((site / "index.html").as_uri() + "?since=2026.05")
    status_is(page, f"Added since release 2026.05. Showing 1\u2013100 of {len(later)} matching "
                    "entries.")  # fmt: skip
    shown = entry_keys(page)
    assert set(shown) <= set(later) and len(shown) == PAGE
    assert page.locator("li.entry h3 span.new").count() == PAGE
    page.click('#pager a[aria-label="Page 2"]')
    status_is(page, f"Added since release 2026.05. Showing 101\u2013{len(later)} of "
                    f"{len(later)} matching entries.")  # fmt: skip
    assert "since=2026.05" in page.url and "page=2" in page.url
    page.goto((site / "index.html").as_uri() + "?since=1999.01")
    status_is(page, "There is no release 1999.01: no entry is shown. Showing 0 of 250 entries.")


def test_filters_and_sort_return_to_page_one_with_counts_over_all_entries(
    big: tuple[Path, list[dict[str, Any]]], page: Page
) -> None:
    site, entries = big
    methods = [d for d in entries if d["category"] == "rl_method"]
    page.goto((site / "index.html").as_uri() + "?page=2")
    assert page.text_content("#status") == "Showing 101\u2013200 of all 250 entries."
    tick(page, "category", "rl_method")
    status_is(page, f"Showing 1\u2013100 of {len(methods)} matching entries.")
    assert "page=" not in page.url and "category=rl_method" in page.url
    assert page.text_content('[data-count="category=rl_method"]') == str(len(methods))
    assert page.text_content('[data-count="category=benchmark"]') == str(
        sum(d["category"] == "benchmark" for d in entries)
    )  # a facet's counts ignore its own selection
    for value in ("yes", "partial", "no"):
        expected = sum(d["is_rl"] == value for d in methods)
        assert page.text_content(f'[data-count="is_rl={value}"]') == str(expected)
    assert page.eval_on_selector_all("#results section h2", "hs => hs.length") == 0  # one list
    page.check("#group")  # sections, when the reader asks for them
    wait_for(page, "document.querySelectorAll('#results section h2').length === 1")
    assert page.eval_on_selector_all("#results section h2", "hs => hs.map(h => h.textContent)") == [
        f"RL method ({PAGE} of {len(methods)})"
    ]
    assert "group=1" in page.url
    page.uncheck("#group")
    wait_for(page, "document.querySelectorAll('#results section h2').length === 0")
    page.click("#pager a[rel=next]")
    status_is(page, f"Showing 101\u2013{len(methods)} of {len(methods)} matching entries.")
    assert "page=2" in page.url
    page.select_option("#sort", "title")
    status_is(page, f"Showing 1\u2013100 of {len(methods)} matching entries.")
    titles = page.eval_on_selector_all("li.entry h3 > a", "hs => hs.map(h => h.textContent)")
    by_title = "ts => { const c = new Intl.Collator(); return ts.map(t => [t.toLowerCase(), t])"
    by_title += ".sort((a, b) => c.compare(a[0], b[0])).map(p => p[1]); }"
    assert titles == page.evaluate(by_title, [d["title"] for d in methods])[:PAGE]
    assert "sort=title" in page.url and "page=" not in page.url
    page.click("#clear")
    status_is(page, "Showing 1\u2013100 of all 250 entries.")


def test_every_entry_is_reachable_by_paging_with_and_without_script(
    big: tuple[Path, list[dict[str, Any]]], browser: Browser, page: Page
) -> None:
    site, entries = big
    every = {d["key"] for d in entries}
    page.goto((site / "index.html").as_uri() + "?sort=year-asc")
    seen: list[str] = []
    while True:
        keys = entry_keys(page)
        assert 0 < len(keys) <= PAGE
        seen += keys
        if not page.query_selector("#pager a[rel=next]"):
            break
        before = page.text_content("#status")
        page.click("#pager a[rel=next]")
        wait_for(page, f"document.querySelector('#status').textContent !== {before!r}")
    assert len(seen) == len(every) and set(seen) == every
    context = browser.new_context(java_script_enabled=False)
    nojs = context.new_page()
    url: str | None = (site / "index.html").as_uri()
    seen = []
    while url:
        nojs.goto(url)
        keys = entry_keys(nojs)
        assert 0 < len(keys) <= PAGE
        seen += keys
        link = nojs.query_selector("#pager a[rel=next]")
        url = urljoin(nojs.url, link.get_attribute("href") or "") if link else None
    context.close()
    assert len(seen) == len(every) and set(seen) == every


def test_script_renders_the_same_entries_as_the_static_pages(
    big: tuple[Path, list[dict[str, Any]]], browser: Browser, page: Page
) -> None:
    site, _ = big
    page.goto((site / "index.html").as_uri())
    static = {1: sections_html(page)}
    context = browser.new_context(java_script_enabled=False)
    nojs = context.new_page()
    for n in (2, 3):
        nojs.goto((site / f"list/{n}.html").as_uri())
        static[n] = sections_html(nojs)
    context.close()
    for n in (2, 3, 1):
        page.click(f'#pager a[aria-label="Page {n}"]')
        search = f"?page={n}" if n > 1 else ""
        wait_for(page, f"location.search === {search!r}")
        assert sections_html(page) == static[n]


def test_pager_fits_a_phone(big: tuple[Path, list[dict[str, Any]]], browser: Browser) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 800})
    pg = context.new_page()
    pg.goto((big[0] / "index.html").as_uri() + "?page=2")
    assert pg.is_visible("#pager a[rel=next]")
    assert pg.evaluate("document.documentElement.scrollWidth") <= 375
    context.close()


def test_changes_page_link_lists_what_was_added_on_the_release_day_after_it(
    tmp_path: Path, page: Page
) -> None:
    """An entry added on a release's day but not among its additions is new since that release:
    the Changes page counts it, and its "show them in the list" link lists it."""
    import shutil

    from conftest import CORPUS_FIXTURES

    root = tmp_path / "corpus"
    shutil.copytree(CORPUS_FIXTURES / "corpus", root)
    listed = ["paper:alpha-rl", "paper:beta-bench", "paper:gamma-survey", "exclusion:E001",
              "exclusion:E002"]  # fmt: skip
    with (root / "releases.yaml").open("a", encoding="utf-8") as f:
        f.write("    changes:\n      added:\n" + "".join(f'        - "{x}"\n' for x in listed))
    late = (root / "papers" / "gamma-survey.yaml").read_text(encoding="utf-8")
    late = late.replace("key: gamma-survey", "key: delta-late").replace("Gamma:", "Delta:")
    (root / "papers" / "delta-late.yaml").write_text(late, encoding="utf-8")
    out = root / "site"
    write_tree(out, build_site(analyse(load_corpus(root), stats_if_invalid=True)), "litcorpus",
               "site")  # fmt: skip
    page.goto((out / "changes.html").as_uri())
    assert "1 entry added since 2026-05-04" in page.text_content("#since")
    page.click("#since a[href*='since=']")
    status_is(page, "Added since release 2026.05. Showing 1 of 4 entries.")
    assert entry_keys(page) == ["delta-late"]


def test_an_unknown_value_in_the_address_is_named_in_the_status(site: Path, page: Page) -> None:
    """?category=nonsense: the count says why nothing is shown, not only the empty panel."""
    page.goto((site / "index.html").as_uri() + "?category=nonsense")
    wait_for(page, "document.querySelector('#status').textContent.includes('Showing 0')")
    status = page.text_content("#status")
    assert status.startswith("There is no Category \u201cnonsense\u201d. Showing 0 of"), status
    assert "There is no Category \u201cnonsense\u201d." in page.text_content("#no-results-why")


@pytest.fixture(scope="module")
def live_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of the shipped corpus as it is (its claims have counter-examples since)."""
    import shutil

    from conftest import REPO

    root = tmp_path_factory.mktemp("live") / "corpus"
    root.mkdir()
    for name in ("taxonomy.yaml", "claims.yaml", "releases.yaml", "searches.yaml",
                 "CHANGELOG.md", "CITATION.cff"):  # fmt: skip
        shutil.copy2(REPO / name, root / name)
    for folder in ("papers", "exclusions", "reviews", "traces", "screening"):
        shutil.copytree(REPO / folder, root / folder, ignore=shutil.ignore_patterns(".store"))
    out = root / "site"
    write_tree(out, build_site(analyse(load_corpus(root))), "litcorpus", "site")
    return out


def test_claims_page_colours_each_verdict_and_spaces_its_history(
    live_site: Path, page: Page
) -> None:
    """A claim held at its release that no longer holds: its two badges differ in colour
    (held in the held colour, "No longer holds" in the broken one), and the history of later
    and missed entries reads as two sentences."""
    page.goto((live_site / "claims.html").as_uri())
    claim = page.locator("li.claim.differs").first
    held = claim.locator(".badge.held").first
    gone = claim.locator(".badge.broken").first
    assert gone.text_content() == "No longer holds"
    colour = "el => getComputedStyle(el).color"
    assert held.evaluate(colour) != gone.evaluate(colour)
    history = " ".join(page.locator("p.verdicts.history").all_text_contents())
    assert re.search(r"\)\.Published", history) is None
    assert re.search(r"\)\. Published before it", history)


def test_an_axis_has_one_name_on_facets_chips_and_pages(live_site: Path) -> None:
    """The credit axis is "Credit strictness" on the facet, on the cards' tags and on the
    entry pages alike (a second name confused readers)."""
    index = (live_site / "index.html").read_text(encoding="utf-8")
    entry = (live_site / "papers" / "puppeteer.html").read_text(encoding="utf-8")
    assert "Credit strictness" in index and "Credit strictness" in entry
    assert "Credit estimator" not in index + entry


def test_every_site_link_is_in_view_on_a_phone(live_site: Path, browser: Browser) -> None:
    """At 375 px the site's navigation wraps: every link lies inside the viewport, none
    behind an unmarked sideways scroll."""
    context = browser.new_context(viewport={"width": 375, "height": 800})
    pg = context.new_page()
    pg.goto((live_site / "index.html").as_uri())
    boxes = pg.evaluate(
        "Array.from(document.querySelectorAll('.main-nav a')).map(a => {"
        " const r = a.getBoundingClientRect(); return [a.textContent, r.left, r.right]; })"
    )
    assert len(boxes) >= 5 and all(left >= 0 and right <= 375 for _, left, right in boxes), boxes
    assert pg.evaluate("document.documentElement.scrollWidth") <= 375
    context.close()


def ranked_keys(site: Path, page: Page, query: str) -> list[str]:
    """The keys of the first page of results for QUERY, in the order shown (best match)."""
    from urllib.parse import quote

    page.goto((site / "index.html").as_uri() + "?q=" + quote(query))
    wait_for(page, "/ of |matching/.test(document.querySelector('#status').textContent)", 20)
    return list(
        page.eval_on_selector_all(".entry:not([hidden])", "els => els.map(e => e.dataset.key)")
    )


def live_papers() -> dict[str, dict[str, Any]]:
    from conftest import REPO

    return {p.stem: yaml.safe_load(p.read_text()) for p in (REPO / "papers").glob("*.yaml")}


def test_a_tag_label_in_the_query_ranks_its_carriers_first(live_site: Path, page: Page) -> None:
    """ "when to stop" names the O5 label: every entry that learns or designs the stopping
    decision comes first (the first to learn it ranked 27th of 29 when "when" and "to" were
    matched fuzzily as Chen and Tool); "debate reward" ranks the debate-reward entries first."""
    papers = live_papers()
    decided = {k: (d.get("orchestration_decisions") or []) + (d.get("orchestration_designed") or [])
               for k, d in papers.items()}  # fmt: skip
    stop = {k for k, tags in decided.items() if "stop" in tags}
    shown = ranked_keys(live_site, page, "when to stop")
    assert stop and set(shown[: len(stop)]) == stop, shown[: len(stop) + 3]
    debate = {k for k, d in papers.items() if d.get("reward_type") == "debate"}
    shown = ranked_keys(live_site, page, "debate reward")
    assert debate and set(shown[: len(debate)]) == debate


def test_a_surname_is_not_matched_by_its_neighbours(live_site: Path, page: Page) -> None:
    """ "Chen" finds the Chens first, and no entry that only a Shen or a Chan would match."""
    papers = live_papers()
    shown = ranked_keys(live_site, page, "Chen")
    surnames = {k: {str(a).split(",")[0].strip().lower() for a in d.get("authors") or []}
                for k, d in papers.items()}  # fmt: skip
    assert shown and all("chen" in surnames[k] for k in shown[:5]), shown[:5]
    text = {k: " ".join(str(d.get(f, "")) for f in ("title", "summary", "notes", "affiliation",
                                                      "name", "authors")).lower()
            for k, d in papers.items()}  # fmt: skip
    assert all("chen" in text[k] for k in shown), [k for k in shown if "chen" not in text[k]]


def test_a_pasted_address_or_identifier_finds_its_entry(live_site: Path, page: Page) -> None:
    """An arXiv address (with its version), a DOI address and a bare arXiv id each find the
    one entry they name; the address's words (https, org, abs) are not searched for."""
    assert ranked_keys(live_site, page, "https://arxiv.org/abs/2504.19162v2") == ["spc2025"]
    assert ranked_keys(live_site, page, "https://doi.org/10.3233/FAIA251326") == ["agp2025"]
    assert ranked_keys(live_site, page, "2506.02951") == ["agp2025"]


def test_a_short_name_is_searched_and_shown(live_site: Path, page: Page) -> None:
    """Method short names (Puppeteer) are found first and shown beside the title on the card
    and on the entry's page."""
    assert ranked_keys(live_site, page, "Puppeteer")[0] == "puppeteer"
    card = page.locator('.entry[data-key="puppeteer"] .short-name')
    assert card.text_content() == "Puppeteer"
    page.goto((live_site / "papers" / "puppeteer.html").as_uri())
    assert page.text_content("h1 .short-name") == "Puppeteer"


def test_the_corpus_version_in_the_header_says_what_it_means(live_site: Path) -> None:
    """ "corpus 2026.12.1+N" in every page's header links to the Changes page and says that it
    is that release and the N records added since it."""
    index = (live_site / "index.html").read_text(encoding="utf-8")
    link = re.search(
        r'<a class="version" href="changes.html" title="([^"]*)">corpus ([^<]*)</a>', index
    )
    assert link is not None
    release, _, since = link.group(2).partition("+")
    said = f"Release {release} and {since} record{'' if since == '1' else 's'} added since it"
    assert link.group(1) == (said if since else f"Release {release}") + ": what changed"


def test_recently_added_sorts_by_the_day_entries_joined(live_site: Path, page: Page) -> None:
    """Beside "Newest first" (by publication), "Recently added" lists the entries by the day
    they joined the corpus, latest first, across the pages."""
    papers = live_papers()
    page.goto((live_site / "index.html").as_uri() + "?sort=added")
    wait_for(page, "document.querySelectorAll('.entry').length > 0")
    wait_for(page, "document.querySelector('#sort').value === 'added'")
    shown = list(
        page.eval_on_selector_all(".entry:not([hidden])", "els => els.map(e => e.dataset.key)")
    )
    days = [str(papers[k]["added"]) for k in shown]
    assert days == sorted(days, reverse=True) and days[0] == max(
        str(d["added"]) for d in papers.values()
    )
    assert days[-1] > min(str(d["added"]) for d in papers.values())  # the first page only


def test_a_return_visit_says_how_many_entries_joined_since(live_site: Path, page: Page) -> None:
    """The browser remembers the latest day added it has seen (localStorage, nothing sent);
    a first visit says nothing, a later one after new entries names how many joined since."""
    papers = live_papers()
    index = (live_site / "index.html").as_uri()
    page.goto(index)
    assert page.is_hidden("#visit-note")
    latest = max(str(d["added"]) for d in papers.values())
    assert page.evaluate("localStorage.getItem('litcorpus-seen')") == latest
    page.evaluate("localStorage.setItem('litcorpus-seen', '2026-12-01')")
    page.goto(index)
    n = sum(1 for d in papers.values() if str(d["added"]) > "2026-12-01")
    assert page.text_content("#visit-note") == (
        f"{n} entries added since your last visit (2026-12-01): show the most recent first."
    )
    assert page.get_attribute("#visit-note a", "href") == "index.html?sort=added"
    page.goto(index)  # seen now: nothing new
    assert page.is_hidden("#visit-note")


def test_one_filter_can_be_followed_as_a_feed(live_site: Path, page: Page) -> None:
    """With one value filtered (the O5 cell's "learns when to stop"), the list offers that
    value's Atom feed, which holds exactly the entries carrying it; with words or a second
    value it does not."""
    import feedparser

    papers = live_papers()
    page.goto((live_site / "index.html").as_uri() + "?orchestration_decisions=stop")
    wait_for(page, "!document.querySelector('#follow').hidden")
    href = page.get_attribute("#follow a", "href")
    assert href == "feeds/orchestration_decisions/stop.xml"
    feed = feedparser.parse((live_site / href).read_bytes())
    assert not feed.bozo and feed.feed.title.endswith("new entries tagged Learns: O5 When to stop")
    keys = {e.link.rsplit("/", 1)[1].removesuffix(".html") for e in feed.entries}
    assert keys == {
        k for k, d in papers.items() if "stop" in (d.get("orchestration_decisions") or [])
    }
    page.goto((live_site / "index.html").as_uri() + "?orchestration_decisions=stop&q=search")
    wait_for(page, "/ of |matching/.test(document.querySelector('#status').textContent)", 20)
    assert page.is_hidden("#follow")


def test_the_changes_page_names_excluded_records_by_title(live_site: Path) -> None:
    """A release's additions are titles, not record ids: an exclusion it added is its title,
    linked to its row on the screening page, with its id beside it."""
    from conftest import REPO

    changes = (live_site / "changes.html").read_text(encoding="utf-8")
    title = yaml.safe_load((REPO / "exclusions" / "E1004.yaml").read_text())["title"]
    link = f'<a href="screening.html#E1004">{html.escape(title)}</a>'
    assert f'{link} <span class="meta">excluded, E1004</span>' in changes
    assert 'id="E1004"' in (live_site / "screening.html").read_text(encoding="utf-8")


def _download(page: Page, selector: str) -> str:
    with page.expect_download() as caught:
        page.click(selector)
    path = caught.value.path()
    return Path(str(path)).read_text(encoding="utf-8")


def test_the_view_downloads_in_four_formats_as_the_exports_write_them(
    live_site: Path, page: Page
) -> None:
    """With no filter, each download is the site's own export file byte for byte; filtered to
    the O5 cell ("learns when to stop"), each format read by its own reader (bibtexparser,
    rispy, pandas, json) holds exactly the entries the view matches, on every page of it."""
    import io
    import json

    import bibtexparser
    import pandas as pd
    import rispy

    page.goto((live_site / "index.html").as_uri())
    n = len(live_papers())
    assert page.text_content("#take-away-what") == f"Download all {n} entries as"
    exports = live_site / "stats" / "exports"
    for fmt, name in (("bibtex", "papers.bib"), ("csv", "corpus.csv"),
                      ("csl-json", "corpus.csl.json")):  # fmt: skip
        assert _download(page, f'#take-away button[data-format="{fmt}"]') == (
            exports / name
        ).read_text(encoding="utf-8"), fmt
    stop = {k for k, d in live_papers().items()
            if "stop" in (d.get("orchestration_decisions") or [])}  # fmt: skip
    page.goto((live_site / "index.html").as_uri() + "?orchestration_decisions=stop")
    wait_for(page, "/these/.test(document.querySelector('#take-away-what').textContent)")
    assert page.text_content("#take-away-what") == f"Download these {len(stop)} as"
    bib = bibtexparser.parse_string(_download(page, '#take-away button[data-format="bibtex"]'))
    assert not bib.failed_blocks and {e.key for e in bib.entries} == stop
    ris = rispy.loads(_download(page, '#take-away button[data-format="ris"]'))
    assert {r["id"] for r in ris} == stop
    table = pd.read_csv(io.StringIO(_download(page, '#take-away button[data-format="csv"]')))
    assert set(table["key"]) == stop and len(table) == len(stop)
    csl = json.loads(_download(page, '#take-away button[data-format="csl-json"]'))
    assert {item["id"] for item in csl} == stop
    assert page.text_content("#take-away-note") == (
        f"{len(stop)} entries downloaded as CSL-JSON (corpus.csl.json)."
    )


def test_a_card_copies_its_bibtex_and_the_view_its_link(live_site: Path, browser: Browser) -> None:
    """Over http (where the clipboard is granted), a card's BibTeX button puts that entry's
    BibTeX on the clipboard, the one its page shows; "Copy link to this view" the address with
    its filters. From disk, where the browser may refuse the clipboard, the text is shown
    selected instead."""
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kw: Any) -> None:
            super().__init__(*args, directory=str(live_site), **kw)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        origin = f"http://127.0.0.1:{server.server_address[1]}"
        context = browser.new_context()
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
        pg = context.new_page()
        pg.goto(origin + "/index.html?scenario=coding")
        wait_for(pg, "/these/.test(document.querySelector('#take-away-what').textContent)")
        card = pg.locator("li.entry").first
        key = card.get_attribute("data-key")
        card.locator("button.copy-bib").click()
        wait_for(pg, f"document.querySelector('li.entry[data-key=\"{key}\"] button.copy-bib')"
                     ".textContent === 'BibTeX copied'")  # fmt: skip
        copied = pg.evaluate("navigator.clipboard.readText()")
        shown = html.unescape(
            re.search(r'<pre class="bibtex"[^>]*><code>(.*?)</code></pre>',
                      (live_site / "papers" / f"{key}.html").read_text(encoding="utf-8"),
                      re.S).group(1)  # type: ignore[union-attr]
        )  # fmt: skip
        assert copied == shown and copied.startswith("@") and key in copied.split("\n")[0]
        pg.click("#copy-link")
        wait_for(pg, "/copied/.test(document.querySelector('#take-away-note').textContent)")
        link = pg.evaluate("navigator.clipboard.readText()")
        assert link == origin + "/index.html?scenario=coding"
        context.close()
    finally:
        server.shutdown()
    context = browser.new_context()
    pg = context.new_page()
    pg.goto((live_site / "index.html").as_uri())
    pg.locator("li.entry button.copy-bib").first.click()
    wait_for(pg, "/copied|Selected/.test(document.querySelector('li.entry button.copy-bib')"
                 ".textContent)")  # fmt: skip
    label = pg.text_content("li.entry button.copy-bib")
    if label.startswith("Selected"):
        assert pg.evaluate("String(window.getSelection())").startswith("@")
    context.close()


def test_the_claims_page_names_entries_and_says_each_verdict_once(
    live_site: Path, page: Page
) -> None:
    """A claim whose verdict changed says what was found at its release and on the live
    corpus in one line, with the entries named (short name or title, linked), never as corpus
    keys, and no second line repeats it."""
    page.goto((live_site / "claims.html").as_uri())
    keys = {k for k in live_papers() if re.search(r"[\d-]", k)}  # keys no title could be
    claims = page.eval_on_selector_all(
        "li.claim",
        "cs => cs.map(c => [c.id, c.className, Array.from(c.querySelectorAll(':scope > p'),"
        " p => p.textContent.split(/\\s+/).filter(Boolean).join(' '))])",
    )
    assert claims
    for cid, classes, lines in claims:
        said = " ".join(ln for ln in lines if not ln.startswith("Boundary"))  # curators' prose
        assert not keys & set(re.findall(r"[A-Za-z0-9][\w-]*", said)), cid
        assert len(lines) == len(set(lines)), cid
        if "differs" in classes.split():
            assert not [ln for ln in lines if ln.startswith("Expected")], cid
    listed = page.eval_on_selector_all(
        "#claim-message-credit-sparse > p.verdicts > a", "as => as.map(a => a.getAttribute('href'))"
    )
    assert listed[:2] == ["papers/c3.html", "papers/debate-as-reward.html"]


# What a researcher types, and the entries that must be in the first five it ranks, read by
# hand from the corpus: the work's short name or title, its arXiv id or address, a surname of
# its first author, a typo of its name, words of its title.
SEARCHES = [
    ("Puppeteer", {"puppeteer"}),
    ("C3", {"c3"}),
    ("MAPoRL", {"maporl"}),
    ("MasRouter", {"masrouter2025"}),
    ("G-Designer", {"g-designer2025"}),
    ("AgentPrune", {"agentprune2025"}),
    ("GPTSwarm", {"gptswarm2024"}),
    ("LEMON", {"lemon2026"}),
    ("Router-R1", {"router-r1-2025"}),
    ("ToolOrchestra", {"toolorchestra2025"}),
    ("MAS-GPT", {"mas-gpt2025"}),
    ("Kimi K2.5", {"kimi-k2-5"}),
    ("debate as reward", {"debate-as-reward"}),
    ("self-play critic", {"spc2025"}),
    ("counterfactual credit", {"c3"}),
    ("2605.14483", {"lemon2026"}),
    ("https://arxiv.org/abs/2504.19162", {"spc2025"}),
    ("https://doi.org/10.1287/moor.27.4.819.297", {"dec-pomdp2002"}),
    ("Pupeteer", {"puppeteer"}),
    ("MasRoutr", {"masrouter2025"}),
    ("Nielsen", {"conductor2025"}),
    ("Dang", {"puppeteer"}),
]


@pytest.mark.parametrize(("query", "wanted"), SEARCHES, ids=[q for q, _ in SEARCHES])
def test_a_researcher_finds_the_work_in_the_first_five(
    live_site: Path, page: Page, query: str, wanted: set[str]
) -> None:
    top = ranked_keys(live_site, page, query)[:5]
    assert wanted <= set(top), (query, top)


@pytest.mark.parametrize(
    ("query", "axis", "value"),
    [
        ("when to stop", "orchestration_decisions", "stop"),
        ("debate reward", "reward_type", "debate"),
        ("when to spawn", "orchestration_decisions", "spawn"),
    ],
)
def test_a_tag_label_fills_the_first_five_with_its_carriers(
    live_site: Path, page: Page, query: str, axis: str, value: str
) -> None:
    papers = live_papers()
    top = ranked_keys(live_site, page, query)[:5]

    def carries(key: str) -> bool:
        d = papers[key]
        values = [*(d.get(axis) or [])] if isinstance(d.get(axis), list) else [d.get(axis)]
        if axis == "orchestration_decisions":
            values += d.get("orchestration_designed") or []
        return value in values

    assert len(top) == 5 and all(carries(k) for k in top), (query, top)


def test_each_tag_offers_a_prefilled_correction(
    live_site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the corpus's repository is known (the publishing job names it), every tag on an
    entry's page links to a new issue there, titled with the entry and the tag and saying what
    it is now; where it is not (the live site's build), no tag offers a link that goes nowhere."""
    from urllib.parse import parse_qs, urlsplit

    tag = re.compile(r'<ul class="tags">(.*?)</ul>', re.S)
    plain = tag.search((live_site / "papers" / "puppeteer.html").read_text(encoding="utf-8"))
    assert plain and "<li>" in plain.group(1) and 'class="suggest"' not in plain.group(1)
    monkeypatch.setenv("LITCORPUS_REPOSITORY_URL", "https://github.com/example/corpus")
    pages = build_site(analyse(load_corpus(live_site.parent)))
    tags = tag.search(pages["papers/puppeteer.html"].decode())
    assert tags
    items = tags.group(1).count("<li>")
    links = [
        html.unescape(h) for h in re.findall(r'<a class="suggest" href="([^"]+)"', tags.group(1))
    ]
    assert items and len(links) == items
    data = live_papers()["puppeteer"]
    asked: dict[str, set[str]] = {}
    for href in links:
        url = urlsplit(href)
        assert (url.scheme, url.netloc, url.path) == (
            "https", "github.com", "/example/corpus/issues/new")  # fmt: skip
        query = parse_qs(url.query)
        assert query["title"][0].startswith("Tag correction: puppeteer, ")
        found = re.search(r"Field: (\S+)\nNow: (\S+)", query["body"][0])
        assert found
        asked.setdefault(found.group(1), set()).add(found.group(2))
    assert asked["reward_type"] == {str(data["reward_type"])}
    assert asked["orchestration_decisions"] == set(data["orchestration_decisions"])


def test_the_claims_page_opens_with_its_findings_at_a_glance(live_site: Path, page: Page) -> None:
    """A table first: one row per claim, its verdict at its release and now in the badges'
    words, and for a claim that no longer holds the first entry published after its release
    and the first its search missed, each linked."""
    page.goto((live_site / "claims.html").as_uri())
    rows = page.eval_on_selector_all(
        "table.findings tbody tr",
        "rs => rs.map(r => [r.querySelector('th a').getAttribute('href'),"
        " Array.from(r.querySelectorAll('td'), td => td.textContent.split(/\\s+/)"
        ".filter(Boolean).join(' ')), Array.from(r.querySelectorAll('td:nth-of-type(3) a'),"
        " a => a.getAttribute('href'))])",
    )
    claims = page.eval_on_selector_all("ol.claims > li", "cs => cs.map(c => '#' + c.id)")
    assert rows and [r[0] for r in rows] == claims
    stop = next(r for r in rows if r[0] == "#claim-no-rl-trained-stop")
    cells, links = stop[1], stop[2]
    assert cells[0] == "Held at 2026.05" and cells[1] == "No longer holds"
    assert links == ["papers/fang2026critique.html", "papers/sirag2025.html"]
    assert "published after:" in cells[2] and "missed by its search:" in cells[2]


def test_strict_credit_names_its_estimator_as_a_filter_with_its_evidence(
    live_site: Path, page: Page
) -> None:
    """ "Which message-credit papers are counterfactual?" is a filter: message credit and the
    counterfactual estimator show exactly the entries tagged both; an entry's page gives its
    estimator with the phrase of the work it rests on."""
    papers = live_papers()
    want = {
        k
        for k, d in papers.items()
        if d.get("credit_granularity") == "message"
        and d.get("credit_estimator") == "counterfactual"
    }
    assert "c3" in want
    page.goto(
        (live_site / "index.html").as_uri()
        + "?credit_granularity=message&credit_estimator=counterfactual"
    )
    wait_for(
        page, "/ of |matching|Showing/.test(document.querySelector('#status').textContent)", 20
    )
    assert set(visible_keys(page)) == want
    c3 = papers["c3"]
    quote = c3["credit_evidence"]["counterfactual"]["quote"]
    text = html.unescape((live_site / "papers" / "c3.html").read_text(encoding="utf-8"))
    assert "Estimator: Counterfactual" in text and quote in text
    assert all(d.get("credit_estimator") for d in papers.values()
               if d.get("credit_strictness") == "strict")  # fmt: skip


def test_every_reward_family_and_credit_unit_shows_its_quote(live_site: Path) -> None:
    """Each tagged reward family and credit unit other than Not applicable has its quote on
    the paper's page, under its tag, with its source and what the source means: stated
    (curator) or inferred."""
    papers = live_papers()
    sources = set()
    for key, d in papers.items():
        page = html.unescape((live_site / "papers" / f"{key}.html").read_text(encoding="utf-8"))
        for axis, field in (("reward_type", "reward_evidence"),
                            ("credit_granularity", "credit_unit_evidence")):  # fmt: skip
            value = str(d.get(axis, "NA"))
            if value == "NA":
                continue
            item = d[field][value]
            sources.add(item["source"])
            block = f"\u201c{item['quote']}\u201d</p><footer>{item['where']}"
            footers = [part.split("</footer>")[0] for part in page.split(block)[1:]]
            said = {"curator": "(source: curator: a phrase of the work states it)",
                    "inferred": "(source: inferred: the parts read do not state it"}  # fmt: skip
            assert any(said[item["source"]] in f for f in footers), (key, axis)
    assert sources == {"curator", "inferred"}
