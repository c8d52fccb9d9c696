"""The paged list of papers: what index.html, the no-JavaScript pages list/2.html ... and
assets/entries.js share.

The list shows PAGE_SIZE entries at a time, so the page's HTML and DOM stay the same size
however large the corpus grows. index.html holds the first page; list/N.html holds page N of
the default order (newest first, over the whole list), so every entry is reachable without
JavaScript. assets/entries.js holds one compact record per entry, from which the browser
filters, counts, sorts and renders any page (static/list.js); a reader may group a page in
sections by the taxonomy's site.group_by axis. A card shows the tags of the site.headline axes
(the survey's three axes and the topology), whose filters come first and unfolded; the rest
are on the paper page.

entries.js sets `window.LITCORPUS_ENTRIES` (escape.js_data) to
`{"pageSize": n, "group": axis index or -1, "headline": [axis index, ...], "axes": [...],
"entries": [...]}`: each axis is `{"id", "label", "short", "values": [[id, label, chip text,
code or null, description], ...]}` (the taxonomy's values, then any other value the entries
use), followed by the two facets that are no taxonomy axis and show no chip, marked
`"derived": 1`: the year (newest first) and the venue (the taxonomy's site.venues an entry's
venue names, else "Other"). Each entry is
`[key, title, url or null, year, byline, summary, [[label, href], ...] (the paper's address
first, when it has one), [[value index, ...] per axis], added (YYYY-MM-DD), 1 when new since
the latest release else 0]`, in the default order; "releases" lists `[version, date]`,
oldest first (the list filters on ?since=VERSION).
"""

from __future__ import annotations

import re
from typing import Any

from ..model.taxonomy import Taxonomy
from .escape import js_data
from .presentation import shared_codes, value_tag

PAGE_SIZE = 100  # entries on one page of the list
PAGER_SPAN = 2  # page numbers shown either side of the current one
OTHER_VENUE = "other"


def venues_of(venue: Any, names: list[str]) -> list[str]:
    """The venue facet's values for an entry: each of NAMES its venue names as a word (any
    case: 'arXiv (ICLR 2026 submitted)' is arXiv and ICLR), else [OTHER_VENUE]."""
    text = str(venue or "")
    found = [n for n in names if re.search(rf"(?<!\w){re.escape(n)}(?!\w)", text, re.I)]
    return found or [OTHER_VENUE]


def derived_facets(
    entries: list[dict[str, Any]], venues: list[str]
) -> list[tuple[str, str, list[str], list[list[str]]]]:
    """The year and venue facets: (id, label, values, the values of each entry in ENTRIES'
    order). Years run newest first; venues in the taxonomy's order, then "Other"."""
    years = [[str(e["year"])] if e.get("year") is not None else [] for e in entries]
    named = [venues_of(e.get("venue"), venues) for e in entries]
    used = {v for vs in named for v in vs}
    return [
        ("year", "Year", sorted({y for ys in years for y in ys}, reverse=True), years),
        ("venue", "Venue", [v for v in [*venues, OTHER_VENUE] if v in used], named),
    ]


def page_count(total: int, size: int = PAGE_SIZE) -> int:
    """Pages needed for TOTAL entries; an empty list still has one (empty) page."""
    return max(1, -(-total // size))


def page_window(current: int, pages: int, span: int = PAGER_SPAN) -> list[int | None]:
    """The page numbers the pager names: the first, the last and SPAN either side of CURRENT;
    None stands for a run of two or more pages left out (a run of one is shown instead)."""
    keep = sorted({1, pages, *range(max(1, current - span), min(pages, current + span) + 1)})
    out: list[int | None] = []
    for n in keep:
        if out and n - (out[-1] or 0) == 2:
            out.append(n - 1)
        elif out and n - (out[-1] or 0) > 2:
            out.append(None)
        out.append(n)
    return out


def page_href(n: int, base: str) -> str:
    """Where page N of the default order lives: index.html for the first, else list/N.html."""
    return f"{base}index.html" if n == 1 else f"{base}list/{n}.html"


def pager(current: int, pages: int, base: str) -> list[dict[str, Any]]:
    """The pager's items, in order: previous, the page numbers (None entries are gaps), next.
    Each item has `label`, `page` (None when it is no link), `rel` and `current`."""

    def item(label: str, n: int | None, rel: str = "", current: bool = False) -> dict[str, Any]:
        href = page_href(n, base) if n else None
        return {"label": label, "page": n, "href": href, "rel": rel, "current": current}

    items = [item("Previous", current - 1 if current > 1 else None, "prev")]
    for n in page_window(current, pages):
        items.append(item(str(n), n, current=n == current) if n else item("…", None))
    items.append(item("Next", current + 1 if current < pages else None, "next"))
    return items


def status_text(first: int, shown: int, matching: int, total: int, pages: int) -> str:
    """The list's status line; FIRST is the 1-based position of the page's first entry.
    static/list.js words it the same way."""
    if pages <= 1:
        if matching == total:
            return f"Showing all {total:,} entries."
        return f"Showing {matching:,} of {total:,} entries."
    of = f"all {total:,} entries" if matching == total else f"{matching:,} matching entries"
    return f"Showing {first:,}\u2013{first + shown - 1:,} of {of}."


class Listing:
    """The value tables of the list's facets (the taxonomy's axes, then year and venue) and
    the section each entry belongs to."""

    def __init__(self, tax: Taxonomy, entries: list[dict[str, Any]]) -> None:
        self.axes = tax.axes_for("paper")
        self.pos = {axis.id: i for i, axis in enumerate(self.axes)}
        group = tax.views.group_by
        self.group = group if group in self.pos else None
        self.values: list[list[list[Any]]] = []
        self.index: list[dict[str, int]] = []
        self.notes: list[list[str]] = []
        for axis in self.axes:
            table: list[list[Any]] = []
            shared = shared_codes(axis)
            for v in axis.values:
                tag = value_tag(axis, v.id, shared)
                table.append([v.id, v.label, tag.text, tag.code, tag.description])
            self.values.append(table)
            self.index.append({row[0]: i for i, row in enumerate(table)})
            self.notes.append(list(shared.values()))
        for e in entries:  # values outside the taxonomy (an unchecked corpus) still show
            for t in e["tags"]:
                a = self.pos[t.axis]
                if t.value not in self.index[a]:
                    self.index[a][t.value] = len(self.values[a])
                    self.values[a].append([t.value, t.value, t.text, t.code, ""])
        self.ids = [axis.id for axis in self.axes]
        self.labels = [axis.label for axis in self.axes]
        self.shorts = [axis.short for axis in self.axes]
        self.headline_ids = [a for a in tax.views.headline if a in self.pos] or self.ids[:]
        self.retired = [{v.id for v in axis.values if v.retired} for axis in self.axes]
        self.derived: list[list[list[str]]] = []  # per derived facet, each entry's values
        for fid, label, values, per_entry in derived_facets(entries, tax.views.venues):
            names = {OTHER_VENUE: "Other"}
            self.values.append([[v, names.get(v, v), "", None, ""] for v in values])
            self.index.append({v: i for i, v in enumerate(values)})
            self.ids.append(fid)
            self.labels.append(label)
            self.shorts.append(label)
            self.notes.append([])
            self.retired.append(set())
            self.derived.append(per_entry)
        self.counts = [[0] * len(table) for table in self.values]
        for n, e in enumerate(entries):
            for a, positions in enumerate(self.entry_values(e, n)):
                for i in positions:
                    self.counts[a][i] += 1

    def entry_values(self, e: dict[str, Any], n: int) -> list[list[int]]:
        """The value positions of entry E (the Nth of the entries given) on every facet."""
        by_axis: list[list[int]] = [[] for _ in self.ids]
        for t in e["tags"]:
            a = self.pos[t.axis]
            by_axis[a].append(self.index[a][t.value])
        for d, per_entry in enumerate(self.derived):
            a = len(self.axes) + d
            by_axis[a] = [self.index[a][v] for v in per_entry[n]]
        return by_axis

    def facets(self) -> list[dict[str, Any]]:
        """What the list page's filter form shows: each facet's id, label, notes, values (id,
        code, label, how many entries have it; retired values left out) and whether it is
        open: the headline axes first and open, in their order, then the rest, folded."""
        out = [
            {
                "id": fid,
                "label": label,
                "notes": notes,
                "open": fid in self.headline_ids,
                "values": [
                    {"id": row[0], "code": row[3], "label": row[1], "count": count}
                    for row, count in zip(table, counts, strict=True)
                    if row[0] not in retired
                ],
            }
            for fid, label, notes, table, counts, retired in zip(
                self.ids,
                self.labels,
                self.notes,
                self.values,
                self.counts,
                self.retired,
                strict=True,
            )
        ]
        first = {fid: i for i, fid in enumerate(self.headline_ids)}
        return sorted(out, key=lambda f: first.get(f["id"], len(first)))

    def card_tags(self, e: dict[str, Any]) -> list[Any]:
        """The tags a card shows: those of the headline axes, in axis order."""
        return [t for t in e["tags"] if t.axis in self.headline_ids]

    def pages(self, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The template context of each page of ENTRIES (in the default order): `number`,
        `pages_total`, `page_size`, `status`, `entries` and `pager_items` (None when one page
        holds everything)."""
        total = len(entries)
        pages = page_count(total)
        out = []
        for n in range(1, pages + 1):
            chunk = entries[(n - 1) * PAGE_SIZE : n * PAGE_SIZE]
            out.append(
                {
                    "number": n,
                    "pages_total": pages,
                    "page_size": PAGE_SIZE,
                    "status": status_text((n - 1) * PAGE_SIZE + 1, len(chunk), total, total, pages),
                    "entries": chunk,
                    "card_tags": self.card_tags,
                    "group_label": self.group_label,
                    "pager_items": pager(n, pages, "" if n == 1 else "../") if pages > 1 else None,
                }
            )
        return out

    def group_label(self, e: dict[str, Any]) -> str:
        """The label of E's value on the group_by axis ('RL method'), shown in its byline."""
        if self.group is None:
            return ""
        a = self.pos[self.group]
        i = self.index[a].get(str(e["data"].get(self.group)))
        return "" if i is None else str(self.values[a][i][1])

    def script(
        self, entries: list[dict[str, Any]], releases: list[list[str]], held: list[int]
    ) -> bytes:
        """assets/entries.js for ENTRIES, the entries this listing was made of, in the default
        order; RELEASES: [version, date]; HELD: for each entry, the index of the first release
        that holds it (len(RELEASES) for none), which is what `?since=VERSION` filters on."""
        rows = [
            [
                e["key"],
                str(e["title"]),
                e["url"],
                e["year"],
                e["byline"],
                str(e["summary"]),
                [list(link) for link in e["links"]],
                self.entry_values(e, n),
                e["added"],
                1 if e["new"] else 0,
                held[n],
                e["name"],
            ]
            for n, e in enumerate(entries)
        ]
        group = -1 if self.group is None else self.pos[self.group]
        data = {
            "pageSize": PAGE_SIZE,
            "group": group,
            "headline": [self.pos[a] for a in self.headline_ids],
            "axes": [
                {"id": fid, "label": label, "short": short, "values": values}
                | ({"derived": 1} if a >= len(self.axes) else {})
                for a, (fid, label, short, values) in enumerate(
                    zip(self.ids, self.labels, self.shorts, self.values, strict=True)
                )
            ],
            "entries": rows,
            "releases": releases,
        }
        return js_data("LITCORPUS_ENTRIES", data)
