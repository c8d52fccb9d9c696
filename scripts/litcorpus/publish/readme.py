"""Generates the awesome list in README.md, between two markers; the rest is hand-written.

Reads the validated corpus and README.md; writes the block: headline counts, the table of
contents (generated sections plus the hand-written level-two headings after the block), and
one section per category with `- [Title](url) - First author, year. Summary. Tags.` items.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from safewrite.files import write_file

from ..model.corpus import Corpus
from ..model.errors import CommandError
from .escape import md_text, md_url
from .site import grouped, safe_url, shared_labels, tags_of

BEGIN = "<!-- BEGIN GENERATED: awesome list (litcorpus readme; do not edit) -->"
END = "<!-- END GENERATED: awesome list -->"
UNLISTED = {"Contributing", "Footnotes", "Related Lists"}  # never in the table of contents


class ReadmeError(CommandError):
    """README.md lacks the markers that delimit the generated block."""


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def _author(data: dict[str, Any]) -> str:
    authors = [a for a in data.get("authors", []) if a != "others"]
    first = (authors[0].split(",")[0].strip() if authors else "") or "Anonymous"
    first = first[0].upper() + first[1:]  # sentence-initial capital: "de Witt" -> "De Witt"
    more = len(data.get("authors", [])) > 1
    return f"{first}{' et al.' if more else ''}, {data.get('year')}"


def item(data: dict[str, Any], corpus: Corpus, tag_axes: list[str], shared: set[str]) -> str:
    tags = [
        t for t in tags_of(data, corpus.taxonomy, shared) if t.axis in tag_axes and t.value != "NA"
    ]
    tags.sort(key=lambda t: tag_axes.index(t.axis))
    shown = ", ".join(
        f"{t.code} {t.label}" if t.code else f"{t.axis_label}: {t.label}" for t in tags
    )
    summary = str(data.get("summary", "")).strip().rstrip(".")
    url = md_url(safe_url(data.get("url")) or f"papers/{data['key']}.yaml")
    tail = f" _{md_text(shown)}._" if shown else ""
    return (
        f"- [{md_text(data['title'])}]({url}) - {md_text(_author(data))}. {md_text(summary)}.{tail}"
    )


def generate_block(corpus: Corpus, tail_headings: list[str]) -> str:
    tax = corpus.taxonomy
    tag_axes = tax.views.readme_tags
    shared = shared_labels(tax)
    papers = sorted(
        (r.data for r in corpus.of("paper")),
        key=lambda d: (-int(d.get("year", 0)), str(d.get("title", "")).lower()),
    )
    n_ex = len(corpus.of("exclusion"))
    sections = grouped(tax, [(d, d) for d in papers])
    lines = [
        BEGIN,
        "",
        f"{len(papers)} entries retained, {n_ex} screened out, {len(papers) + n_ex} "
        f"audited (corpus {tax.version}, {corpus.hash()}). Tags follow each summary: "
        "reward family (R1-R8), credit unit, topology and the orchestration sub-decisions "
        "learned (O1-O5); benchmarks add what they measure (E1-E4).",
        "",
        "## Contents",
        "",
    ]
    lines += [f"- [{label}](#{slug(label)})" for label, _ in sections]
    lines += [f"- [{h}](#{slug(h)})" for h in tail_headings if h not in UNLISTED]
    for label, entries in sections:
        lines += ["", f"## {label}", ""]
        lines += [item(d, corpus, tag_axes, shared) for d in entries]
    lines += ["", END]
    return "\n".join(lines)


def render_readme(corpus: Corpus, current: str) -> str:
    """README text with the generated block replaced."""
    if current.count(BEGIN) != 1 or current.count(END) != 1:
        raise ReadmeError(
            "readme-markers", f"README.md must hold the markers once each: {BEGIN} {END}"
        )
    head, rest = current.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    tail_headings = re.findall(r"^## (.+?)\s*$", tail, flags=re.MULTILINE)
    return head + generate_block(corpus, tail_headings) + tail


def update_readme(corpus: Corpus, path: Path, check_only: bool = False) -> bool:
    """Rewrite the generated block; True when README.md changed (or would change). The
    caller holds the corpus lock (outputs.corpus_lock) when it writes."""
    try:
        current = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReadmeError(
            "unreadable-input", f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}"
        ) from exc
    new = render_readme(corpus, current)
    if new != current and not check_only:
        write_file(path, new.encode(), clean=True)
    return new != current
