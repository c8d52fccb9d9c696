"""Generates the awesome list in README.md, between two markers; the rest is hand-written.

Reads the validated corpus and README.md; writes the block: headline counts, the table of
contents (generated sections plus the hand-written level-two headings after the block), the
concept figures and reader tables, and one section per category with
`- [Title](url) - First author, year. Tags.` items: two lines at most on GitHub, the summaries
being on the site's paper pages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from surewrite.files import write_file

from ..analysis.claims import ClaimResult, marked
from ..analysis.reader import reader_tables
from ..model.corpus import Corpus
from ..model.errors import CommandError
from ..model.naming import byline
from ..model.taxonomy import Taxonomy
from .citable import render
from .escape import md_text, md_url
from .figures import CONCEPT_TITLES
from .presentation import grouped, safe_url, tags_of
from .readertables import reader_tables as build_reader_tables

BEGIN = "<!-- BEGIN GENERATED: awesome list (litcorpus readme; do not edit) -->"
END = "<!-- END GENERATED: awesome list -->"
MAPS, TABLES = "Survey maps", "Reader tables"
UNLISTED = {"Contributing", "Footnotes", "Related Lists"}  # never in the table of contents


class ReadmeError(CommandError):
    """README.md lacks the markers that delimit the generated block."""


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def item(data: dict[str, Any], tax: Taxonomy, tag_axes: list[str]) -> str:
    """One list item: the linked title, the byline, then the tags, each by its code when it
    has one ('Reward: R8', 'Credit: Agent')."""
    by_axis: dict[str, list[str]] = {}  # 'Learns: O1, O2', one axis once
    for t in tags_of(data, tax, tag_axes):
        if t.value != "NA":
            by_axis.setdefault(t.short, []).append(t.code or t.label)
    shown = "; ".join(f"{short}: {', '.join(values)}" for short, values in by_axis.items())
    url = md_url(safe_url(data.get("url")) or f"papers/{data['key']}.yaml")
    tail = f" _{md_text(shown)}._" if shown else ""
    by = md_text(byline(data, venue=False))
    return f"- [{md_text(data['title'])}]({url}) - {by}.{tail}"


def tags_sentence(tax: Taxonomy) -> str:
    """What the tags after each byline are, from the taxonomy's readme_tags: 'Tags follow
    each byline: Reward (reward design, R1-R8), Credit (credit unit), ...'."""
    parts = []
    for axis_id in tax.views.readme_tags:
        axis = tax.axes[axis_id]
        codes = [c for v in axis.values if (c := axis.code_of(v.id))]
        span = f", {codes[0]}-{codes[-1]}" if len(set(codes)) > 1 else ""
        parts.append(f"{axis.short} ({axis.label.lower()}{span})")
    return f"Tags follow each byline: {', '.join(parts)}." if parts else ""


def reader_parts(corpus: Corpus) -> tuple[list[str], list[str]]:
    """The concept figures (as links into the committed stats/figures) and the reader tables
    (Markdown, as stats/tables has them), when the taxonomy declares them."""
    reader = reader_tables(corpus)
    if reader is None:
        return [], []
    maps = [
        f"![{title}](stats/figures/{name}.svg)"
        for name, title in CONCEPT_TITLES.items()
        if name.removeprefix("concept-") in reader  # concept-credit is drawn from "credit"
    ]
    version = corpus.version()
    tables = []
    for table in build_reader_tables(reader, corpus.taxonomy):
        tables += [render(table, version)["md"].rstrip("\n"), ""]
    return [line for m in maps for line in (m, "")][:-1], tables[:-1]


def changed_findings(claims: Sequence[ClaimResult]) -> str:
    """One paragraph on the release claims that held and no longer hold on the live corpus,
    so a reader of the list sees which findings the literature since has moved."""
    moved = [r for r in claims if r.claim.where and r.held and r.now is not None and not r.now.held]
    if not moved:
        return ""
    parts = []
    for r in moved:
        if r.later:
            tail = f" since {r.since} (first: `{r.later[0][0]}`)"
        elif r.missed:
            tail = f" (work its search missed, first `{r.missed[0][0]}`)"
        else:
            tail = " (a correction since)"
        text = md_text(r.claim.text.rstrip("."))
        parts.append(f"\u201c{text}\u201d {marked(r.verdicts)}{tail}")
    return (
        "**Findings the literature has moved since their release** (stats/README.md names the "
        "entries): " + "; ".join(parts) + "."
    )


def _searched(corpus: Corpus) -> str:
    """How current the corpus is: each source's last day searched, read from the log."""
    from ..model.searches import last_searched, load_searches

    if corpus.as_of_day is not None:
        return ""
    days = last_searched(load_searches(corpus.root))
    said = "; ".join(f"{md_text(d['database'])} {d['last_day']}" for d in days)
    return f"Sources last searched: {said}." if said else ""


def generate_block(
    corpus: Corpus, tail_headings: list[str], claims: Sequence[ClaimResult] = ()
) -> str:
    tax = corpus.taxonomy
    tag_axes = tax.views.readme_tags
    papers = sorted(
        (r.data for r in corpus.of("paper")),
        key=lambda d: (-int(d.get("year", 0)), str(d.get("title", "")).lower()),
    )
    n_ex = len(corpus.of("exclusion"))
    sections = grouped(tax, [(d, d) for d in papers])
    maps, tables = reader_parts(corpus)
    lines = [
        BEGIN,
        "",
        f"{len(papers)} {'entry' if len(papers) == 1 else 'entries'} retained, "
        + (
            f"{n_ex} screened out, {len(papers) + n_ex} audited "
            if "exclusion" in tax.kinds
            else ""
        )
        + f"(corpus {corpus.version()}, {corpus.hash()}). {tags_sentence(tax)}",
        "",
    ]
    searched = _searched(corpus)
    lines += [searched, ""] if searched else []
    findings = changed_findings(claims)
    lines += [findings, ""] if findings else []
    lines += [
        "## Contents",
        "",
    ]
    heads = [h for h, part in ((MAPS, maps), (TABLES, tables)) if part]
    lines += [f"- [{label}](#{slug(label)})" for label in heads]
    lines += [f"- [{label}](#{slug(label)})" for label, _ in sections]
    lines += [f"- [{h}](#{slug(h)})" for h in tail_headings if h not in UNLISTED]
    for head, part in ((MAPS, maps), (TABLES, tables)):
        if part:
            lines += ["", f"## {head}", "", *part]
    for label, entries in sections:
        lines += ["", f"## {label}", ""]
        lines += [item(d, tax, tag_axes) for d in entries]
    lines += ["", END]
    return "\n".join(lines)


def render_readme(corpus: Corpus, current: str, claims: Sequence[ClaimResult] = ()) -> str:
    """README text with the generated block replaced; CLAIMS, the analysis's claim results,
    say which findings have moved."""
    if current.count(BEGIN) != 1 or current.count(END) != 1:
        raise ReadmeError(
            "readme-markers", f"README.md must hold the markers once each: {BEGIN} {END}"
        )
    head, rest = current.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    tail_headings = re.findall(r"^## (.+?)\s*$", tail, flags=re.MULTILINE)
    return head + generate_block(corpus, tail_headings, claims) + tail


def readme_text(corpus: Corpus, path: Path, claims: Sequence[ClaimResult] = ()) -> tuple[str, str]:
    """README.md as it is, and with the generated block made anew (ReadmeError when it cannot
    be read or lacks its markers)."""
    try:
        current = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReadmeError(
            "unreadable-input", f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}"
        ) from exc
    return current, render_readme(corpus, current, claims)


def update_readme(
    corpus: Corpus, path: Path, check_only: bool = False, claims: Sequence[ClaimResult] = ()
) -> bool:
    """Rewrite the generated block; True when README.md changed (or would change). The
    caller holds the corpus lock (outputs.corpus_lock) when it writes."""
    current, new = readme_text(corpus, path, claims)
    if new != current and not check_only:
        write_file(path, new.encode(), clean=True)
    return new != current
