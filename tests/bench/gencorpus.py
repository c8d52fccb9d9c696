"""Generates a synthetic but valid corpus of any size from the real one as the survey's
snapshot left it (tests/snapshot.py): the taxonomy, its 84 papers, its exclusions, its release
and claims and the second reader's file, plus synthetic entries whose tags
copy the tag set of a random shipped entry (so tag distributions and required-when rules hold)
and whose titles, authors and summaries are drawn from the shipped vocabulary. Synthetic
entries are dated after the survey's snapshot."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import re
import shutil
import sys
from pathlib import Path

import yaml

from litcorpus.model.taxonomy import load_taxonomy

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
from snapshot import copy_snapshot  # noqa: E402

SNAPSHOT = dt.date(2026, 5, 4)  # the survey's snapshot (version 2026.05)


def _quote(value: object) -> str:
    """A YAML flow scalar or list; JSON strings are valid double-quoted YAML."""
    if isinstance(value, list):
        return "[" + ", ".join(json.dumps(v, ensure_ascii=False) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def generate(out: Path, size: int, seed: int = 11) -> None:
    rng = random.Random(seed)
    if out.exists():
        shutil.rmtree(out)
    copy_snapshot(out)
    shutil.copytree(REPO / "traces", out / "traces")
    shipped = [yaml.safe_load(p.read_text()) for p in sorted((out / "papers").glob("*.yaml"))]
    tax = load_taxonomy(REPO)[0]
    tags = [axis.id for axis in tax.axes_for("paper")]
    evidence = [f.id for f in tax.kinds["paper"].fields.values() if f.type == "evidence"]
    words = sorted(
        {w for d in shipped for w in re.findall(r"[A-Za-z]{4,}", d["title"] + " " + d["summary"])}
    )
    families = sorted({a.split(",")[0] for d in shipped for a in d["authors"] if "," in a})
    for i in range(size - len(shipped)):
        model = rng.choice(shipped)
        title = " ".join(rng.choice(words).capitalize() for _ in range(rng.randint(6, 12)))
        arxiv = f"39{(i // 90000) % 100:02d}.{i % 90000 + 10000:05d}"
        lines = [f"key: syn{i:06d}", f"title: {_quote(f'{title} {i}')}", "authors:"]
        lines += [
            f"  - {_quote(f'{rng.choice(families)}, {rng.choice(words)}')}"
            for _ in range(rng.randint(1, 6))
        ]
        lines += [
            f"year: {rng.choice([2023, 2024, 2025, 2026])}",
            "venue: arXiv",
            "affiliation: unknown",
            "ids:",
            f"  arxiv: {_quote(arxiv)}",
            f"url: https://arxiv.org/abs/{arxiv}",
        ]
        for tag in tags:
            if tag in model:
                lines.append(f"{tag}: {_quote(model[tag])}")
        for field in evidence:  # each copied tag keeps its source
            if field in model:
                lines.append(f"{field}: {json.dumps(model[field])}")
        summary = " ".join(rng.choice(words).lower() for _ in range(rng.randint(14, 30)))
        lines.append(f"summary: {_quote(summary.capitalize() + '.')}")
        # every synthetic entry arrives after the survey's snapshot, as a living corpus grows
        lines.append(f"added: {_quote((SNAPSHOT + dt.timedelta(days=1 + i % 200)).isoformat())}")
        (out / "papers" / f"syn{i:06d}.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("size", type=int)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    generate(args.out, args.size)


if __name__ == "__main__":
    main()
