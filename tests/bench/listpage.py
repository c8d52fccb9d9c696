"""Times the site's list page in headless Chromium (Debian's /usr/bin/chromium), opened from
disk: the size of index.html, DOMContentLoaded and load, the entries and elements in the DOM,
and how long ticking a facet box, turning a page and a first search take until the status line
reports the new view and the next frame is drawn; and the bytes of JavaScript the page has
loaded after its first filter and after its first search (a search on a fresh page, with
nothing loaded before it, is timed too: cold_search_ms); where the page has them, sorting the
filtered view by the day entries were added and its first download as BibTeX.

    python tests/bench/gencorpus.py 10000 /tmp/corpus-10000
    litcorpus site --root /tmp/corpus-10000 --out /tmp/site-10000
    python tests/bench/listpage.py /tmp/site-10000 [--against /tmp/site-10000-before] [--reps 15]

The first tick is cold (it may load assets/entries.js); the others are warm. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
# Click SELECTOR; resolve once the status line has changed and is no longer loading, and again
# after the next frame. page.evaluate is allowed under the site's CSP (no eval in the page).
CLICK = """async (selector) => {
  const status = document.getElementById("status");
  const before = status.textContent;
  const t0 = performance.now();
  document.querySelector(selector).click();
  while (status.textContent === before || status.textContent.startsWith("Loading")) {
    await new Promise((r) => setTimeout(r, 0));
    if (performance.now() - t0 > 120000) { break; }
  }
  const statusMs = performance.now() - t0;
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  return { status_ms: statusMs, frame_ms: performance.now() - t0, status: status.textContent,
           entries: document.querySelectorAll("li.entry").length };
}"""
SEARCH = """async (word) => {
  const status = document.getElementById("status");
  const q = document.getElementById("q");
  const t0 = performance.now();
  q.focus();  // a reader touches the box, then types: timed from the touch
  q.value = word;
  q.dispatchEvent(new Event("input", { bubbles: true }));
  while (status.textContent.includes("Loading") || !location.search.includes("q=")) {
    await new Promise((r) => setTimeout(r, 5));
    if (performance.now() - t0 > 120000) { break; }
  }
  return { ms: performance.now() - t0, status: status.textContent };
}"""
# Sort the view by SORT (the select's value), until the address says so and a frame is drawn.
SORT = """async (value) => {
  const sort = document.getElementById("sort");
  const t0 = performance.now();
  sort.value = value;
  sort.dispatchEvent(new Event("change", { bubbles: true }));
  while (!location.search.includes("sort=" + value)) {
    await new Promise((r) => setTimeout(r, 0));
    if (performance.now() - t0 > 120000) { break; }
  }
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  return performance.now() - t0;
}"""
# Download the view in FORMAT: from the click until the page says it is done (the first one
# loads assets/exports/FORMAT.js).
DOWNLOAD = """async (format) => {
  const note = document.getElementById("take-away-note");
  const t0 = performance.now();
  document.querySelector('#take-away button[data-format="' + format + '"]').click();
  while (!/downloaded/.test(note.textContent)) {
    await new Promise((r) => setTimeout(r, 5));
    if (performance.now() - t0 > 120000) { break; }
  }
  return performance.now() - t0;
}"""
TICKS = [
    'input[name="is_rl"][value="yes"]',
    'input[name="category"][value="rl_method"]',
    'input[name="is_rl"][value="yes"]',
    'input[name="category"][value="rl_method"]',
]


def script_bytes(page: Any) -> int:
    """The bytes of every script the page has loaded so far (files of the site on disk)."""
    from urllib.parse import unquote, urlsplit

    srcs = page.evaluate("Array.from(document.scripts, s => s.src).filter(s => s)")
    return sum(Path(unquote(urlsplit(s).path)).stat().st_size for s in srcs)


def one_run(browser: Any, index: Path) -> dict[str, Any]:
    context = browser.new_context()
    page = context.new_page()
    page.goto(index.as_uri(), wait_until="load", timeout=600_000)
    nav = page.evaluate(
        "(() => { const n = performance.getEntriesByType('navigation')[0];"
        " return [n.domContentLoadedEventEnd, n.loadEventEnd]; })()"
    )
    page.wait_for_timeout(300)
    run: dict[str, Any] = {
        "dcl_ms": round(nav[0]),
        "load_ms": round(nav[1]),
        "entries_in_dom": page.evaluate("document.querySelectorAll('li.entry').length"),
        "elements_in_dom": page.evaluate("document.getElementsByTagName('*').length"),
    }
    ticks = [page.evaluate(CLICK, s) for s in TICKS]
    run["js_after_filter_bytes"] = script_bytes(page)
    run["tick_status_ms"] = [round(t["status_ms"], 1) for t in ticks]
    run["tick_frame_ms"] = [round(t["frame_ms"], 1) for t in ticks]
    run["tick_status"] = [t["status"] for t in ticks]
    run["entries_after_ticks"] = max(t["entries"] for t in ticks)
    if page.query_selector("#pager a[rel=next]"):
        turn = page.evaluate(CLICK, "#pager a[rel=next]")
        run["next_page_frame_ms"] = round(turn["frame_ms"], 1)
    if page.query_selector("#take-away"):  # pages before the view's downloads have none
        run["sort_added_ms"] = round(page.evaluate(SORT, "added"), 1)
        with page.expect_download():
            run["first_download_ms"] = round(page.evaluate(DOWNLOAD, "bibtex"), 1)
    search = page.evaluate(SEARCH, "agent")
    run["first_search_ms"] = round(search["ms"], 1)
    run["js_after_search_bytes"] = script_bytes(page)
    run["js_heap_mib"] = round(page.evaluate("performance.memory.usedJSHeapSize") / 2**20, 1)
    context.close()
    context = browser.new_context()
    page = context.new_page()
    page.goto(index.as_uri(), wait_until="load", timeout=600_000)
    run["cold_search_ms"] = round(page.evaluate(SEARCH, "agent")["ms"], 1)
    context.close()
    return run


def summary(index: Path, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over RUNS of INDEX (ticks after the first are warm)."""

    def median(key: str, pick: Any = None) -> float:
        return statistics.median(pick(r[key]) if pick else r[key] for r in runs)

    out: dict[str, Any] = {
        "index_html_bytes": index.stat().st_size,
        "dcl_ms": median("dcl_ms"),
        "load_ms": median("load_ms"),
        "entries_in_dom": median("entries_in_dom"),
        "elements_in_dom": median("elements_in_dom"),
        "first_tick_frame_ms": median("tick_frame_ms", lambda t: t[0]),
        "warm_tick_status_ms": statistics.median(x for r in runs for x in r["tick_status_ms"][1:]),
        "warm_tick_frame_ms": statistics.median(x for r in runs for x in r["tick_frame_ms"][1:]),
        "first_search_ms": median("first_search_ms"),
        "cold_search_ms": median("cold_search_ms"),
        "js_after_filter_bytes": median("js_after_filter_bytes"),
        "js_after_search_bytes": median("js_after_search_bytes"),
        "runs": runs,
    }
    for key in ("next_page_frame_ms", "sort_added_ms", "first_download_ms"):
        if key in runs[0]:
            out[key] = median(key)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("site", type=Path)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument(
        "--against",
        type=Path,
        help="Another build of the site (older code, same corpus), loaded in turn with SITE, "
        "so that both meet the same spells of a busy machine.",
    )
    args = parser.parse_args()
    sites = [args.site.resolve() / "index.html"]
    if args.against:
        sites.append(args.against.resolve() / "index.html")
    runs: list[list[dict[str, Any]]] = [[] for _ in sites]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for _ in range(args.reps):
            for index, site_runs in zip(sites, runs, strict=True):
                site_runs.append(one_run(browser, index))
        browser.close()
    out = summary(sites[0], runs[0])
    if args.against:
        out["against"] = summary(sites[1], runs[1])
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
