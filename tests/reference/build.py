"""Rebuilds this folder from the survey's reference pool (CC0), kept beside the repository at
../shared/reference. The tests read only what this writes: the facts (keys, titles, ids,
years, venues, URLs, tags, stages) and, for the own-words test, hashed word n-grams of the
pool's sentences (one-liners, notes, exclusion reasons) in place of the sentences themselves.

Run from the repository root: python tests/reference/build.py [REFERENCE_DIR]
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from ngrams import hashed_grams  # noqa: E402

# Columns holding the pool's sentences: never copied, only hashed.
SENTENCES = {"papers.csv": ["one_liner", "notes"], "excluded.csv": ["exclusion_reason"]}
KEYS = {"papers.csv": "key", "excluded.csv": "record_id"}


def main(source: Path) -> None:
    grams: list[tuple[str, str, str, str]] = []
    for name, prose in SENTENCES.items():
        with open(source / name, encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        facts = [c for c in rows[0] if c not in prose]
        with open(HERE / name, "w", encoding="utf-8", newline="") as f:
            writer = csv.DictWriter(f, facts, lineterminator="\n")
            writer.writeheader()
            writer.writerows({c: row[c] for c in facts} for row in rows)
        for row in rows:
            for column in prose:
                for n in (3, 5):
                    for digest in sorted(hashed_grams(row[column], n)):
                        grams.append((row[KEYS[name]], column, str(n), digest))
    with open(HERE / "sentence-grams.csv", "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["record", "column", "n", "sha256"])
        writer.writerows(grams)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parents[2] / "shared" / "reference")
