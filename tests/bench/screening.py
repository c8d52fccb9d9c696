"""Benchmarks of the front of the review, run by `make bench` (run.py) or alone:

- import: `litcorpus search import` of a generated export of N records (CSV and OpenAlex JSON
  Lines; 5% of them duplicates of a 10,000-entry corpus, 2% repeated within the file) against
  reading the same file with the format's plain parser (csv.reader, json.loads per line): the
  floor; with each run's peak memory. Each format is imported again with 1% of its records
  dirty (DIRTY), and that import's time is set against the clean one's (target: 1.2x at most).
- simulate: `litcorpus screen simulate` on labelled systematic-review datasets (read from a
  folder, never committed; BENCHMARKS.md names each one's repository, commit and licence),
  against random order and, in the same run, against ASReview's default model (asreview
  installed in a virtual environment of its own under .cache/bench, as a peer) replaying the
  same records from the same prior records; both orders are scored by the same measures.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CACHE = REPO / ".cache" / "bench"
BIN = Path(sys.executable).parent
sys.path.insert(0, str(HERE))
from run import ENV, corpus, measure  # noqa: E402

FLOOR_CSV = "import csv, sys\nfor row in csv.reader(open(sys.argv[1], newline='')): pass\n"
FLOOR_JSONL = "import json, sys\nfor line in open(sys.argv[1]): json.loads(line)\n"
WORDS = [
    "agent",
    "agents",
    "multi",
    "reinforcement",
    "learning",
    "orchestration",
    "credit",
    "reward",
    "policy",
    "language",
    "model",
    "team",
    "debate",
    "planner",
    "solver",
    "verifier",
    "router",
    "swarm",
    "spawn",
    "aggregate",
    "communicate",
    "stop",
    "training",
    "benchmark",
    "tool",
    "web",
    "code",
    "math",
    "research",
    "hierarchical",
    "critic",
    "value",
    "advantage",
    "group",
    "relative",
]


# The dirty values real exports carry (see tests/test_import_faults.py): each is normalised,
# dropped with a warning, or keeps its record out, and none may slow the import much.
DIRTY = (
    {"title": "Agents that \x1b[31mlearn\x1b[0m to talk\x07"},
    {"title": "Debate \u202eesrever\u202c as a reward"},
    {"year": 0},
    {"year": 9999},
    {"url": "javascript:alert(1)"},
    {"doi": "10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-0"},
    {"doi": "10.1000/x\x1b"},
    {"title": ""},
)


def export_file(records: int, fmt: str, root: Path, seed: int = 5, dirty: float = 0.0) -> Path:
    """A search export of RECORDS records in FMT (csv or openalex JSON Lines); DIRTY of them
    (a fraction) carry one of the DIRTY values."""
    tag = f"-dirty{dirty:g}" if dirty else ""
    out = CACHE / f"export-{records}-{root.name}{tag}.{'csv' if fmt == 'csv' else 'jsonl'}"
    if out.exists():
        return out
    import yaml

    rng = random.Random(seed)
    known = [yaml.safe_load(p.read_text()) for p in sorted((root / "papers").glob("*.yaml"))]
    rows: list[dict[str, Any]] = []
    for i in range(records):
        roll = rng.random()
        if roll < 0.05:  # a duplicate of the corpus: by its arXiv id, or by its title
            d = rng.choice(known)
            arxiv = (d.get("ids") or {}).get("arxiv", "") if roll < 0.03 else ""
            rows.append({"title": d["title"], "year": d["year"], "arxiv": arxiv})
            continue
        if roll < 0.07 and rows:  # repeated within the file
            rows.append(dict(rng.choice(rows)))
            continue
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 12)))
        rows.append({
            "title": f"{words.capitalize()} {i}", "year": rng.choice([2024, 2025, 2026]),
            "arxiv": f"{rng.choice(['2501', '2508', '2603'])}.{i % 90000 + 10000:05d}",
        })  # fmt: skip
    for r in rows:
        r.setdefault("doi", "")
        r.setdefault("url", "")
        if dirty and rng.random() < dirty:
            bad = dict(rng.choice(DIRTY))
            if bad.get("title"):
                bad["title"] += f" {rng.random()}"  # one of many, not a duplicate
            r.update(bad)
    with out.open("w", newline="", encoding="utf-8") as f:
        if fmt == "csv":
            w = csv.writer(f)
            w.writerow(["title", "authors", "year", "arxiv", "doi", "url", "abstract"])
            for r in rows:
                w.writerow([r["title"], "Doe, Jane; Roe, Rick", r["year"], r["arxiv"], r["doi"],
                            r["url"], "An abstract."])  # fmt: skip
        else:
            for i, r in enumerate(rows):
                work = {
                    "id": f"https://openalex.org/W{i + 1000}", "title": r["title"],
                    "publication_year": r["year"],
                    "authorships": [{"author": {"display_name": "Jane Doe"}}],
                    "locations": [{"landing_page_url": f"https://arxiv.org/abs/{r['arxiv']}"}]
                    if r["arxiv"] else [{"landing_page_url": r["url"]}] if r["url"] else [],
                    "doi": r["doi"] or None,
                    "abstract_inverted_index": {"An": [0], "abstract.": [1]},
                }  # fmt: skip
                f.write(json.dumps(work) + "\n")
    return out


def bench_import(records: int, corpus_size: int, reps: int) -> list[dict[str, Any]]:
    """Each format clean, then with 1% dirty records (its ratio to the clean import beside)."""
    base = corpus(corpus_size)
    out = []
    for fmt, floor, dirty in (
        ("csv", FLOOR_CSV, 0.0),
        ("csv", FLOOR_CSV, 0.01),
        ("openalex", FLOOR_JSONL, 0.0),
        ("openalex", FLOOR_JSONL, 0.01),
    ):
        export = export_file(records, fmt, base, dirty=dirty)
        runs = []
        for _ in range(reps):
            with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
                root = Path(tmp) / "corpus"
                shutil.copytree(base, root, ignore=shutil.ignore_patterns("stats", "site"))
                cmd = [
                    str(BIN / "litcorpus"),
                    "search",
                    "import",
                    str(export),
                    "--root",
                    str(root),
                    "--source",
                    fmt,
                    "--query",
                    "bench",
                    "--date-run",
                    "2026-12-01",
                ]
                runs.append(measure(cmd, 1))  # fmt: skip
        tool = {
            "seconds": min(r["seconds"] for r in runs),
            "peak_mib": max(r["peak_mib"] for r in runs),
        }
        plain = measure([str(BIN / "python"), "-c", floor, str(export)], reps)
        row = {
            "format": fmt, "records": records, "corpus": corpus_size, "import": tool,
            "floor": plain, "ratio": round(tool["seconds"] / plain["seconds"], 2), "dirty": dirty,
        }  # fmt: skip
        if dirty:  # the clean run of the same format came just before
            row["vs_clean"] = round(tool["seconds"] / out[-1]["import"]["seconds"], 3)
        out.append(row)
    return out


def asreview_order(python: Path, data: Path, seed: int) -> list[int]:
    """The labels in the order ASReview's default model screens DATA, from the same priors as
    our replay of SEED (one relevant, one irrelevant record; priors left out of the order)."""
    from litcorpus.screening.simulate import read_labelled  # the same rows, the same priors
    from litcorpus.sources.detect import decode

    labelled = read_labelled(decode(data.read_bytes(), str(data)), str(data))
    rng = random.Random(seed)
    relevant = [i for i, v in enumerate(labelled.labels) if v == 1]
    irrelevant = [i for i, v in enumerate(labelled.labels) if v == 0]
    priors = [rng.choice(relevant), rng.choice(irrelevant)]
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        project = Path(tmp) / "sim.asreview"
        cmd = [str(python.parent / "asreview"), "simulate", str(data), "-o", str(project),
               "--prior-idx", *map(str, priors)]  # fmt: skip
        subprocess.run(cmd, check=True, env=ENV, capture_output=True)
        with zipfile.ZipFile(project) as z:
            db = next(n for n in z.namelist() if n.endswith("results.db"))
            z.extract(db, tmp)
        con = sqlite3.connect(Path(tmp) / db)
        rows = con.execute("SELECT record_id, label FROM results ORDER BY rowid").fetchall()
    order = [int(label) for record, label in rows if record not in priors]
    # ASReview stops once the last relevant record is found: what it left is irrelevant
    return order + [0] * (len(labelled.labels) - len(priors) - len(order))


def bench_simulate(folder: Path, seeds: int, peer: Path | None) -> list[dict[str, Any]]:
    from litcorpus.screening.simulate import measures, read_labelled, replay
    from litcorpus.sources.detect import decode

    out = []
    for data in sorted(folder.glob("*.csv")):
        labelled = read_labelled(decode(data.read_bytes(), str(data)), data.stem)
        step = 1
        began = time.perf_counter()
        ours = [measures(replay(labelled, s, step)) for s in range(seeds)]
        row: dict[str, Any] = {
            "dataset": data.stem, "records": len(labelled.labels),
            "relevant": sum(labelled.labels), "seeds": seeds, "ours": _mean(ours),
            "ours_seconds": round(time.perf_counter() - began, 1),
        }  # fmt: skip
        randoms = []
        for s in range(seeds):
            labels = list(labelled.labels)
            labels.remove(1)
            labels.remove(0)
            random.Random(10_000 + s).shuffle(labels)
            randoms.append(measures(labels))
        row["random"] = _mean(randoms)
        if peer is not None:
            began = time.perf_counter()
            row["asreview"] = _mean([measures(asreview_order(peer, data, s)) for s in range(seeds)])
            row["asreview_seconds"] = round(time.perf_counter() - began, 1)
        out.append(row)
    return out


def _mean(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {k: round(sum(r[k] for r in rows) / len(rows), 4) for k in rows[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--corpus", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--labelled", type=Path, default=REPO / ".cache" / "labelled")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--peer", type=Path, default=CACHE / "asreview-venv" / "bin" / "python")
    parser.add_argument("--out", type=Path, default=CACHE / "screening.json")
    args = parser.parse_args()
    CACHE.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {}
    if args.records:
        result["import"] = bench_import(args.records, args.corpus, args.reps)
        for r in result["import"]:
            t, f = r["import"], r["floor"]
            dirty = f" ({r['dirty']:.0%} dirty: {r['vs_clean']}x clean)" if r["dirty"] else ""
            print(f"import {r['format']:<9} {r['records']:>7} records vs {r['corpus']} entries: "
                  f"{t['seconds']:.2f} s, {r['ratio']}x the floor ({f['seconds']:.2f} s), "
                  f"peak {t['peak_mib']:.0f} MiB{dirty}")  # fmt: skip
    if args.labelled.is_dir():
        peer = args.peer if args.peer.exists() else None
        result["simulate"] = bench_simulate(args.labelled, args.seeds, peer)
        for r in result["simulate"]:
            line = (
                f"simulate {r['dataset']:<16} ({r['relevant']}/{r['records']}): "
                f"WSS@95 ours {r['ours']['wss@95']:.3f}"
            )
            seconds = f"{r['ours_seconds']} s"
            if "asreview" in r:
                line += f", ASReview {r['asreview']['wss@95']:.3f}"
                seconds += f" against {r['asreview_seconds']} s"
            print(f"{line}, random {r['random']['wss@95']:.3f}; {seconds}")
    args.out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
