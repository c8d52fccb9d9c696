"""The site in a real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright),
opened straight from disk: URL filters, search, facets, history, the gap map, and hostile data."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, sync_playwright

from litcorpus.atomic import write_tree
from litcorpus.corpus import load_corpus
from litcorpus.site import build_site

CHROMIUM = "/usr/bin/chromium"
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
    import shutil

    from conftest import FIXTURES, REPO

    root = tmp_path_factory.mktemp("browser") / "corpus"
    shutil.copytree(FIXTURES / "corpus", root)
    shutil.copy(REPO / "taxonomy.yaml", root / "taxonomy.yaml")
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
    write_tree(out, build_site(load_corpus(root)))
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert Path(CHROMIUM).exists(), "install Debian's chromium (.ci/run does)"
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield b
        b.close()


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
    page.fill("#q", "credit")
    wait_for(page, "document.querySelector('#status').textContent.startsWith('Showing 1')")
    assert visible_keys(page) == ["gamma-survey"]  # "credit" appears only in its title
    assert "q=credit" in page.url
    page.fill("#q", "")
    wait_for(page, "document.querySelectorAll('.entry:not([hidden])').length === 4")
    page.check('input[name="is_rl"][value="yes"]')
    assert visible_keys(page) == ["alpha-rl"]
    assert "is_rl=yes" in page.url
    count = page.text_content('[data-count="is_rl=no"]')
    assert count == "2"  # facet counts ignore the facet's own selection
    page.check('input[name="category"][value="benchmark"]')
    assert visible_keys(page) == []
    assert page.is_visible("#no-results")
    page.go_back()
    wait_for(page, "!document.querySelector('input[name=category][value=benchmark]').checked")
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


def test_gap_map_cell_lists_its_entries(site: Path, page: Page) -> None:
    page.goto((site / "gaps.html").as_uri())
    panel = "#cell-orchestration-learning-gap-spawn-yes"
    assert page.is_hidden(panel)
    page.click('a[data-cell="cell-orchestration-learning-gap-spawn-yes"]')
    assert page.is_visible(panel)
    keys = page.eval_on_selector_all(panel + " li", "els => els.map(e => e.dataset.key)")
    assert keys == ["alpha-rl"]
    stop = 'a[data-cell="cell-orchestration-learning-gap-stop-yes"]'
    assert "state-empty" in (page.get_attribute(stop, "class") or "")
    page.focus(stop)
    page.keyboard.press("Enter")
    assert page.is_visible("#cell-orchestration-learning-gap-stop-yes")
    assert page.is_hidden(panel)
    assert page.get_attribute(stop, "aria-expanded") == "true"


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
