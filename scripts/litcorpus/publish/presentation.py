"""How an entry is shown, decided in one place for the site, the list script and the README:
its tags ("Credit: Agent", always naming their axis), its byline ("Liu et al., 2025 ·
NeurIPS"), its links, and the sections entries are grouped in.

Reads a record's data and the taxonomy; returns plain values for templates and writers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

from ..model.naming import authors, byline
from ..model.releases import Release
from ..model.taxonomy import Taxonomy

T = TypeVar("T")


def safe_url(url: Any) -> str | None:
    """The URL if it is an http(s) address, else None (never rendered as a link)."""
    if not isinstance(url, str):
        return None
    try:
        parts = urlsplit(url.strip())
    except ValueError:  # an unclosed IPv6 bracket: no address
        return None
    return url.strip() if parts.scheme in ("http", "https") and parts.netloc else None


@dataclass(frozen=True, slots=True)
class Tag:
    axis: str
    axis_label: str  # the axis's full name (Credit unit)
    short: str  # its name on a tag (Credit)
    value: str
    label: str  # the value's label (Agent)
    code: str | None  # the survey's code (R6, O1, E2), when the value has one
    description: str = ""

    @property
    def name(self) -> str:
        """The value with its code: 'O1 When to spawn', 'Agent'."""
        return f"{self.code} {self.label}" if self.code else self.label

    @property
    def text(self) -> str:
        """The tag as shown everywhere: 'Credit: Agent', 'Learns: O1 When to spawn'."""
        return f"{self.short}: {self.name}"


def tags_of(data: dict[str, Any], tax: Taxonomy, axes: Iterable[str] | None = None) -> list[Tag]:
    """The entry's tags in axis order (only AXES, when given, in that order)."""
    chosen = tax.axes_for("paper") if axes is None else [tax.axes[a] for a in axes]
    out = []
    for axis in chosen:
        raw = data.get(axis.id)
        for value in raw if isinstance(raw, list) else [] if raw is None else [raw]:
            v = axis.by_id.get(str(value))
            out.append(
                Tag(
                    axis.id,
                    axis.label,
                    axis.short,
                    str(value),
                    v.label if v else str(value),
                    axis.code_of(str(value)),
                    v.description if v else "",
                )
            )
    return out


def links_of(data: dict[str, Any], tax: Taxonomy) -> list[tuple[str, str]]:
    """(label, href) for the paper's address, its other addresses and each identifier that
    has a resolver; every link says what it leads to."""
    links: list[tuple[str, str]] = []
    seen: set[str] = set()
    for url in [data.get("url"), *(data.get("extra_urls") or [])]:
        href = safe_url(url)
        if href and href not in seen:
            links.append(("Paper" if not links else f"Paper ({urlsplit(href).netloc})", href))
            seen.add(href)
    for scheme, ident in (data.get("ids") or {}).items():
        spec = tax.id_schemes.get(scheme)
        href = safe_url(spec.url.format(id=ident)) if spec else None
        if spec and href and href not in seen:
            label = "Code" if scheme == "github" else spec.label
            links.append((label, href))
            seen.add(href)
    return links


def grouped(tax: Taxonomy, items: list[tuple[dict[str, Any], T]]) -> list[tuple[str, list[T]]]:
    """Items in sections by the taxonomy's site.group_by axis, in value order; empty sections
    are dropped. ITEMS pairs each record's data with what goes into the section."""
    axis = tax.views.group_by
    if axis is None:
        return [("Entries", [item for _, item in items])] if items else []
    sections = [
        (v.label, [item for data, item in items if data.get(axis) == v.id])
        for v in tax.axes[axis].values
    ]
    return [(label, members) for label, members in sections if members]


def entry_view(data: dict[str, Any], tax: Taxonomy, since: Release | None = None) -> dict[str, Any]:
    """What a template shows of an entry; it is new when added after the release SINCE."""
    tags = tags_of(data, tax)
    facets: dict[str, list[str]] = {}
    for t in tags:
        facets.setdefault(t.axis, []).append(t.value)
    return {
        "key": data["key"],
        "title": data.get("title", ""),
        "url": safe_url(data.get("url")),
        "authors": authors(data),
        "byline": byline(data),
        "year": data.get("year"),
        "venue": data.get("venue", ""),
        "affiliation": data.get("affiliation", ""),
        "summary": data.get("summary", ""),
        "notes": data.get("notes", ""),
        "added": str(data.get("added", "")),
        "new": since is not None and str(data.get("added", "")) > since.date.isoformat(),
        "tags": tags,
        "links": links_of(data, tax),
        "facets": {a: " ".join(v) for a, v in facets.items()},
        "data": data,
    }
