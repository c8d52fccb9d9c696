"""The tag suggestions of drafted entries, measured by time (run by `make bench`, or alone):
trained on the entries of release 2026.05 (the survey's snapshot) and tested on every entry
added since, each axis against its majority baseline (litcorpus.searching.suggest.evaluate).
Prints a Markdown table and writes .cache/bench/suggest.json."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "packages" / "litcorpus" / "src"))

from litcorpus.model.corpus import load_corpus  # noqa: E402
from litcorpus.searching.suggest import axes_of, evaluate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--release", default="2026.05")
    parser.add_argument("--out", type=Path, default=REPO / ".cache" / "bench" / "suggest.json")
    args = parser.parse_args()
    corpus = load_corpus(REPO)
    cut = next(r.date for r in corpus.releases.items if r.version == args.release)
    papers = corpus.of("paper")
    before = [r for r in papers if r.added and r.added <= cut]
    after = [r for r in papers if r.added and r.added > cut]
    rows = evaluate(before, after, axes_of(corpus))
    print(f"trained on {len(before)} entries of {args.release}, tested on {len(after)} added since")
    print("| axis | measure | classifier | majority baseline | train | test | suggested |")
    print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
    for r in rows:
        print(f"| {r['axis']} | {r['measure']} | {r['classifier']:.3f} | {r['baseline']:.3f} | "
              f"{r['train']} | {r['test']} | {'yes' if r['suggested'] else 'no'} |")  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
