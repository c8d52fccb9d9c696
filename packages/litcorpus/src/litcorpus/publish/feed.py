"""feed.xml: an Atom 1.0 feed (RFC 4287) of the entries added to the corpus, newest first,
and of its releases, so that a feed reader follows the living corpus.

Reads the entry views (presentation.entry_view) and releases.yaml's releases; returns bytes.
Every date is a day the corpus records (an entry's `added`, a release's date), never the time
of the build, so the feed is reproducible. Ids are name-based UUIDs (RFC 4122, version 5) of
the entry's key or the release's version: stable wherever the site is published. Links are
absolute under the site's public address when it is known (the taxonomy's `site.base_url`, or
LITCORPUS_SITE_URL where the site is published), else relative to the feed, which sits at the
site's root. The feed names every entry added since the release before the latest (so a reader
sees all of the latest release), and at least the newest MAX_ENTRIES. Each value of each
axis also has a feed of the entries that carry it (feeds/AXIS/VALUE.xml, releases left out),
so a reader can follow one filter, one cell of the gap map's rows or columns.
"""

from __future__ import annotations

import uuid
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from ..model.releases import Release
from .brand import Brand

MAX_ENTRIES = 50  # entries named in the feed at least, newest first


def _stamp(day: str) -> str:
    return f"{day}T00:00:00Z"


def _urn(namespace: uuid.UUID, kind: str, name: str) -> str:
    return f"urn:uuid:{uuid.uuid5(namespace, f'{kind}/{name}')}"


def _item(id_: str, title: str, day: str, href: str, summary: str, category: str) -> str:
    return (
        "<entry>\n"
        f"  <id>{id_}</id>\n"
        f"  <title>{escape(title)}</title>\n"
        f"  <updated>{_stamp(day)}</updated>\n"
        f'  <link rel="alternate" type="text/html" href={quoteattr(href)}/>\n'
        f"  <category term={quoteattr(category)}/>\n"
        f"  <summary>{escape(summary)}</summary>\n"
        "</entry>\n"
    )


def atom_feed(
    entries: list[dict[str, Any]],
    releases: list[Release],
    brand: Brand,
    base: str | None = None,
    about: tuple[str, str] | None = None,
) -> bytes:
    """The feed of ENTRIES (their `added` days) and RELEASES; BASE is the site's public
    address, ending in /, when known. ABOUT, (path, what), makes it the feed of one filter,
    at feeds/PATH under the root: its entries only, titled by WHAT. BRAND names the corpus
    (its name also keys the ids, so they stay what they were wherever it is published)."""
    name = brand.name
    namespace = uuid.uuid5(uuid.NAMESPACE_URL, f"https://github.com/{name}")
    home = base or ("../../" if about else "")
    if about:
        releases = []
    items: list[tuple[str, str, str]] = []  # (day, sort key, xml)
    days = sorted(r.date.isoformat() for r in releases)
    since = days[-2] if len(days) >= 2 else None  # the latest release holds what came after
    for e in entries:
        if not e["added"]:
            continue
        summary = f"{e['byline']}. {e['summary']}"
        xml = _item(
            _urn(namespace, "paper", e["key"]),
            str(e["title"]),
            e["added"],
            f"{home}papers/{e['key']}.html",
            summary,
            "entry",
        )
        items.append((e["added"], e["key"], xml))
    items.sort(key=lambda t: (t[0], t[1]), reverse=True)
    recent = sum(1 for day, _, _ in items if since is not None and day > since)
    items = items[: max(MAX_ENTRIES, recent)]
    for r in releases:
        day = r.date.isoformat()
        xml = _item(
            _urn(namespace, "release", r.version),
            f"Release {r.version}: {r.title}",
            day,
            f"{home}changes.html#release-{r.version}",
            r.title,
            "release",
        )
        items.append((day, "~" + r.version, xml))
    items.sort(key=lambda t: (t[0], t[1]), reverse=True)
    updated = items[0][0] if items else "1970-01-01"
    path, what = about or ("", "")
    title = f"{name}: new entries tagged {what}" if what else f"{name}: new entries and releases"
    head = (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom">\n'
        f"<id>{_urn(namespace, 'feed', 'corpus/' + path if path else 'corpus')}</id>\n"
        f"<title>{escape(title)}</title>\n"
        f"<subtitle>Each entry as it is added to {escape(name)}, and each release.</subtitle>\n"
        f"<updated>{_stamp(updated)}</updated>\n"
        f"<author><name>{escape(brand.authors)}</name></author>\n"
        f'<link rel="self" type="application/atom+xml" '
        f"href={quoteattr(home + ('feeds/' + path if path else 'feed.xml'))}/>\n"
        f'<link rel="alternate" type="text/html" href={quoteattr(home + "index.html")}/>\n'
    )
    return (head + "".join(xml for _, _, xml in items) + "</feed>\n").encode()
