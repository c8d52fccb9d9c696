"""How an entry is shown, decided in one place for the site, the list script and the README:
its tags ("Credit: Agent", always naming their axis), its byline ("Liu et al., 2025 ·
NeurIPS"), its links, the sections entries are grouped in, and the words for a value
("R8 Hybrid local-global reward") and for a filter ("Category is RL method or Framework").

Reads a record's data and the taxonomy; returns plain values for templates and writers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

from ..model.naming import author_list, authors, byline
from ..model.releases import Release
from ..model.taxonomy import Axis, Taxonomy
from ..model.text import parse_day

T = TypeVar("T")
UNKNOWN = {"", "unknown", "n/a", "none"}  # an affiliation that says nothing is not shown


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


def value_name(tax: Taxonomy, axis: str, value: str) -> str:
    """A value as readers see it, with its code: 'R8 Hybrid local-global reward', 'Agent'."""
    a = tax.axes.get(axis)
    v = a.by_id.get(value) if a else None
    if a is None or v is None:
        return value
    code = a.code_of(value)
    return f"{code} {v.label}" if code else v.label


def value_names(tax: Taxonomy, axis: str, values: list[str]) -> list[str]:
    return [value_name(tax, axis, v) for v in values]


def shared_codes(axis: Axis) -> dict[str, str]:
    """For each code that several values of AXIS share, a sentence that says so: {'R6': 'R6
    (Debate or verifier reward) has two values: Debate reward and Verifier reward.'}."""
    out = {}
    for code, family in axis.families.items():
        members = [v.label for v in axis.values if v.family == code and not v.retired]
        if len(members) > 1:
            count = {2: "two", 3: "three", 4: "four"}.get(len(members), str(len(members)))
            listed = ", ".join(members[:-1]) + f" and {members[-1]}"
            out[code] = f"{code} ({family}) has {count} values: {listed}."
    return out


def where_text(tax: Taxonomy, where: dict[str, Any]) -> str:
    """A filter in words: 'Category is RL method or Framework; RL use is Yes or Partial'."""
    parts = []
    for name, cond in where.items():
        label = tax.axes[name].label if name in tax.axes else name
        if isinstance(cond, list):
            names = [value_name(tax, name, str(v)) for v in cond]
            parts.append(f"{label} is {' or '.join(names)}")
        else:
            parts += [f"{label} {op} {arg}" for op, arg in cond.items()]
    return "; ".join(parts) or "all entries"


def where_query(where: dict[str, Any]) -> list[tuple[str, str]]:
    """The list page's address parameters for a filter, or [] when the list cannot express
    it (a comparison rather than a set of values)."""
    if not all(isinstance(cond, list) for cond in where.values()):
        return []
    return [(name, str(v)) for name, cond in where.items() for v in cond]


def value_tag(axis: Axis, value: str, shared: dict[str, str] | None = None) -> Tag:
    """The tag of one VALUE of AXIS (a value outside the taxonomy shows as it is written);
    SHARED: shared_codes(axis), when the caller has it already."""
    v = axis.by_id.get(value)
    if v is None:
        return Tag(axis.id, axis.label, axis.short, value, value, None)
    note = (shared_codes(axis) if shared is None else shared).get(v.family or "")
    tip = f"{v.description} {note}" if note else v.description
    return Tag(axis.id, axis.label, axis.short, value, v.label, axis.code_of(value), tip)


def tags_of(data: dict[str, Any], tax: Taxonomy, axes: Iterable[str] | None = None) -> list[Tag]:
    """The entry's tags in axis order (only AXES, when given, in that order)."""
    chosen = tax.axes_for("paper") if axes is None else [tax.axes[a] for a in axes]
    out = []
    for axis in chosen:
        raw = data.get(axis.id)
        if raw is None:
            continue
        shared = shared_codes(axis) if axis.families else {}
        for value in raw if isinstance(raw, list) else [raw]:
            out.append(value_tag(axis, str(value), shared))
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
    added = parse_day(data.get("added"))
    facets: dict[str, list[str]] = {}
    for t in tags:
        facets.setdefault(t.axis, []).append(t.value)
    return {
        "key": data["key"],
        "title": data.get("title", ""),
        "name": str(data.get("name") or ""),
        "url": safe_url(data.get("url")),
        "authors": authors(data),
        "byline": byline(data),
        "year": data.get("year"),
        "venue": data.get("venue", ""),
        "author_list": author_list(data),
        "affiliation": ""
        if str(data.get("affiliation", "")).strip().lower() in UNKNOWN
        else data["affiliation"],
        "summary": data.get("summary", ""),
        "notes": data.get("notes", ""),
        "added": str(data.get("added", "")),
        "new": since is not None
        and added is not None
        and not since.holds("paper", str(data["key"]), added),
        "tags": tags,
        "links": links_of(data, tax),
        "facets": {a: " ".join(v) for a, v in facets.items()},
        "data": data,
    }


def first_release(releases: list[Release], entry: dict[str, Any]) -> int:
    """The index in RELEASES of the first release that holds ENTRY (an entry_view), or
    len(RELEASES) when none does yet."""
    added = parse_day(entry["added"])
    key = str(entry["key"])
    return next((i for i, r in enumerate(releases) if r.holds("paper", key, added)), len(releases))


def tagged_by(tax: Taxonomy) -> str:
    """The headline axes in words, each with the range of its codes: 'reward design (R1-R8),
    credit unit and orchestration topology'."""
    parts = []
    for axis_id in tax.views.headline:
        axis = tax.axes[axis_id]
        codes = list(axis.families) or [v.code for v in axis.values if v.code and not v.retired]
        span = f" ({codes[0]}-{codes[-1]})" if len(codes) > 1 else ""
        label = axis.label if axis.label[:2].isupper() else axis.label[:1].lower() + axis.label[1:]
        parts.append(label + span)  # "RL involvement" keeps its capitals
    return ", ".join(parts[:-1]) + f" and {parts[-1]}" if len(parts) > 1 else "".join(parts)
