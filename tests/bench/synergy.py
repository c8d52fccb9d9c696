"""Writes the labelled sets that `screening.py` replays, from a git copy of the SYNERGY
dataset (asreview/synergy-dataset, CC0 1.0): each dataset's labels.csv joined with the OpenAlex
works in its works_1.zip, as record_id, openalex_id, doi, pmid, title, abstract,
publication_year, label_included, in labels.csv order. They go to .cache/labelled, which git
ignores: the abstracts are others' prose.

    python tests/bench/synergy.py /path/to/synergy-dataset.git
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import subprocess
import zipfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
COMMIT = "fcbd981087e525b3af0584d55cf1107f73ec901e"  # branch releases/v1
# the ranking's C was chosen on the first four; the other three were replayed after that
DATASETS = ("Donners_2021", "Sep_2021", "Oud_2018", "Jeyaraman_2020")
DATASETS += ("Nelson_2002", "Meijboom_2021", "van_der_Valk_2021")
COLUMNS = ["record_id", "openalex_id", "doi", "pmid", "title", "abstract"]
COLUMNS += ["publication_year", "label_included"]


def _show(git: Path, path: str) -> bytes:
    cmd = ["git", "--git-dir", str(git), "show", f"{COMMIT}:{path}"]
    return subprocess.run(cmd, check=True, capture_output=True).stdout


def _abstract(index: dict[str, list[int]] | None) -> str:
    """OpenAlex's inverted index back to text: words in position order, single spaces."""
    at = {p: word for word, places in (index or {}).items() for p in places}
    return " ".join(at[p] for p in sorted(at))


def _bare(value: str | None, prefix: str) -> str:
    return (value or "").removeprefix(prefix)


def write_dataset(git: Path, name: str, out: Path) -> tuple[int, int]:
    works: dict[str, dict[str, Any]] = {}
    with zipfile.ZipFile(io.BytesIO(_show(git, f"{name}/works_1.zip"))) as z:
        for member in z.namelist():
            works.update((w["id"], w) for w in json.loads(z.read(member)))
    labels = csv.DictReader(io.StringIO(_show(git, f"{name}/labels.csv").decode("utf-8")))
    rows = []
    for i, row in enumerate(labels):
        work = works[row["openalex_id"]]
        rows.append([
            i, row["openalex_id"], _bare(row["doi"], "https://doi.org/"),
            _bare(row["pmid"], "https://pubmed.ncbi.nlm.nih.gov/"), work.get("title") or "",
            _abstract(work.get("abstract_inverted_index")), work.get("publication_year") or "",
            row["label_included"],
        ])  # fmt: skip
    with (out / f"{name}.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS)
        writer.writerows(rows)
    return len(rows), sum(int(r[-1]) for r in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("git", type=Path, help="the git directory of a synergy-dataset copy")
    parser.add_argument("--out", type=Path, default=REPO / ".cache" / "labelled")
    parser.add_argument("--datasets", nargs="+", default=DATASETS, help="the sets to write")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.datasets:
        records, included = write_dataset(args.git, name, args.out)
        print(f"{name}: {records} records, {included} included")


if __name__ == "__main__":
    main()
